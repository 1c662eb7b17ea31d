// The CRC-32C of ViewLog's checksummed records, by the CPU's own instruction where it has one: eight bytes per
// instruction instead of eight table look-ups. The portable tables stay in Swift (CRC32C.swift) for other CPUs
// and as the reference the tests compare this with.
#include "CCRC32C.h"
#include <string.h>

#if defined(__x86_64__)

int viewlog_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
uint32_t viewlog_crc32c_hardware(uint32_t crc, const void *data, size_t count) {
    const unsigned char *p = data;
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);  // any alignment
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    // The last 0-7 bytes in at most three steps (short records, such as object rows, end in them).
    if (count & 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        c32 = __builtin_ia32_crc32si(c32, word);
        p += 4;
    }
    if (count & 2) {
        uint16_t half;
        memcpy(&half, p, 2);
        c32 = __builtin_ia32_crc32hi(c32, half);
        p += 2;
    }
    if (count & 1) {
        c32 = __builtin_ia32_crc32qi(c32, *p);
    }
    return c32;
}

#elif defined(__aarch64__) && defined(__linux__)

#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

int viewlog_crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}

__attribute__((target("crc")))
uint32_t viewlog_crc32c_hardware(uint32_t crc, const void *data, size_t count) {
    const unsigned char *p = data;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        count -= 8;
    }
    if (count & 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        crc = __builtin_arm_crc32cw(crc, word);
        p += 4;
    }
    if (count & 2) {
        uint16_t half;
        memcpy(&half, p, 2);
        crc = __builtin_arm_crc32ch(crc, half);
        p += 2;
    }
    if (count & 1) {
        crc = __builtin_arm_crc32cb(crc, *p);
    }
    return crc;
}

#else

int viewlog_crc32c_hardware_available(void) { return 0; }

uint32_t viewlog_crc32c_hardware(uint32_t crc, const void *data, size_t count) {
    (void)data;
    (void)count;
    return crc;  // never called: no instruction on this CPU
}

#endif
