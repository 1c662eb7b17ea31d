/// The hash of ids and keys for this process's in-memory tables (``ObjectIDIndex``, a view's row index, an append's
/// object table): fast — 8 bytes at a time, multiply and fold — and seeded with ``processSeed``, drawn at random
/// once per process, so that whoever writes the ids cannot choose a set of them that shares a slot in every process
/// and turns lookups linear.
@usableFromInline package enum IDHash {
    /// This process's seed.
    @usableFromInline static let processSeed = UInt64.random(in: .min ... .max)

    /// The hash of `bytes` under `seed`.
    @inlinable
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = processSeed) -> Int {
        var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {  // bounded by the bytes
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        while i < bytes.count {
            tail = tail << 8 | UInt64(bytes[i])
            i += 1
        }
        h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 32
        return mix(h, seed: seed)
    }

    /// `h` mixed with `seed` so that every bit of the result depends on every bit of both (MurmurHash3's 64-bit
    /// finalizer): which values share a table slot then changes with the seed. A seed xored in before a multiply
    /// would not do: values that agree in their low bits share the low bits of their products under every seed.
    @inlinable
    package static func mix(_ h: UInt64, seed: UInt64 = processSeed) -> Int {
        var h = h ^ seed
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return Int(truncatingIfNeeded: h)
    }
}
