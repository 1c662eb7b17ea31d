/// Appends the primitives of the binary format (`schema/log-format.md`) to a growing byte array.
///
/// Integers are little-endian unless a method says otherwise; lengths and counts are unsigned LEB128 varints.
/// Callers reserve capacity up front so that encoding a typical entry allocates once.
struct ByteWriter {
    /// The bytes written so far.
    var bytes: [UInt8]

    /// Makes a writer whose buffer can hold `capacity` bytes before it grows.
    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Bytes written so far.
    var count: Int { bytes.count }

    @inline(__always)
    mutating func u8(_ v: UInt8) { bytes.append(v) }

    @inline(__always)
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    @inline(__always)
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    @inline(__always)
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    /// Eight bytes, big-endian: the byte order of LMDB keys, so that byte order is numeric order.
    @inline(__always)
    mutating func u64BigEndian(_ v: UInt64) { withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) } }

    /// An unsigned LEB128 varint of a value below 2³²: seven bits per byte, low bits first, at most 5 bytes.
    @inline(__always)
    mutating func varint(_ v: Int) {
        precondition(v >= 0 && v <= Int(UInt32.max), "varint out of range")
        if v < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            return
        }
        var rest = UInt32(truncatingIfNeeded: v)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// The UTF-8 bytes of `s`, without a length.
    @inline(__always)
    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A string: its UTF-8 length as a varint, then its UTF-8 bytes.
    /// - Precondition: at most `limit` bytes long.
    @inline(__always)
    mutating func string(_ s: String, limit: Int) {
        let n = s.utf8.count
        precondition(n <= limit, "string of \(n) bytes is longer than the limit \(limit) of the log format")
        varint(n)
        raw(s)
    }

    /// Overwrites four bytes at `offset` with `v`, little-endian (for length and checksum fields written last).
    mutating func patchU32(at offset: Int, _ v: UInt32) {
        precondition(offset >= 0 && offset + 4 <= bytes.count, "patch outside the written bytes")
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }
}
