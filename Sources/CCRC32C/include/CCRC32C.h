#ifndef VIEWLOG_CCRC32C_H
#define VIEWLOG_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has a CRC-32C instruction (x86-64: SSE 4.2; AArch64: the CRC extension). Checked once.
int viewlog_crc32c_hardware_available(void);

/// Updates the raw (not inverted) CRC-32C register `crc` with `count` bytes at `data`, by the CPU's CRC-32C
/// instruction. Only call when viewlog_crc32c_hardware_available() returned nonzero.
uint32_t viewlog_crc32c_hardware(uint32_t crc, const void *data, size_t count);

#endif
