import CCRC32C

/// CRC-32C (Castagnoli): reflected polynomial `0x82F63B78`, initial value and final XOR `0xFFFFFFFF`.
///
/// The checksum of every log entry and object row (see `schema/log-format.md`). By the CPU's CRC-32C instruction
/// where it has one (x86-64 SSE 4.2, ARMv8 CRC: eight bytes per instruction, the `CCRC32C` target); otherwise
/// table-driven, slicing-by-8: eight bytes per step with eight 256-entry tables, about a byte per cycle.
///
/// Checksums chain: `checksum(b, seed: checksum(a)) == checksum(a + b)`.
@_spi(Engine) public enum CRC32C {
    /// The reflected Castagnoli polynomial.
    public static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight tables of 256 entries, one after the other: table `k` gives the CRC of a byte followed by `k`
    /// zero bytes. Built once, on first use (a `static let` is initialised lazily and thread-safely).
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ polynomial : c >> 1 }
            t[i] = c
        }
        for k in 1..<8 {
            for i in 0..<256 {
                let previous = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return t
    }()

    /// The CRC-32C of `bytes`.
    /// - Parameters:
    ///   - bytes: the data; any alignment.
    ///   - seed: the checksum of the data before `bytes`, to checksum data in pieces; `0` to start.
    /// - Returns: the checksum of the data before (given by `seed`) followed by `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        if hardware { return ~viewlog_crc32c_hardware(~seed, base, bytes.count) }
        return portableChecksum(bytes, seed: seed)
    }

    /// Whether the CPU computes CRC-32C itself (``checksum(_:seed:)-(UnsafeRawBufferPointer,_)`` then uses it).
    static let hardware = viewlog_crc32c_hardware_available() != 0

    /// The CRC-32C of `bytes` by the tables, on any CPU: what the hardware path must agree with.
    static func portableChecksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        let count = bytes.count
        var crc = ~seed
        tables.withUnsafeBufferPointer { t in
            var i = 0
            // Eight bytes per step: the low word is folded into the CRC, the high word is not.
            while count - i >= 8 {
                let lo = base.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian ^ crc
                let hi = base.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian
                crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < count {
                let b = base.load(fromByteOffset: i, as: UInt8.self)
                crc = t[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
        }
        return ~crc
    }

    /// The CRC-32C of `bytes`; the same as the `UnsafeRawBufferPointer` overload.
    public static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }
}
