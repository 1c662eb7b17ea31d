/// Writes the primitives of the binary format (`schema/log-format.md`) into a growing buffer that it owns.
///
/// Integers are little-endian unless a method says otherwise; lengths and counts are unsigned LEB128 varints.
/// Each write checks the capacity once and stores with one unaligned store or one `memcpy`, which is several
/// times faster than appending to an `Array` element by element; ``finish()`` copies the bytes into an array
/// once. Non-copyable, so that the buffer has exactly one owner and is freed exactly once.
@usableFromInline package struct ByteWriter: ~Copyable {
    @usableFromInline internal var base: UnsafeMutableRawPointer
    @usableFromInline internal var capacity: Int
    /// Bytes written so far.
    @usableFromInline package private(set) var count: Int

    /// Makes a writer whose buffer holds `capacity` bytes before it grows.
    @inlinable package init(capacity: Int) {
        let c = max(capacity, 64)
        base = .allocate(byteCount: c, alignment: 16)
        self.capacity = c
        count = 0
    }

    deinit { base.deallocate() }

    /// The bytes written, as an array.
    @inlinable package consuming func finish() -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Makes room for `n` more bytes.
    @inline(__always)
    @inlinable internal mutating func reserve(_ n: Int) {
        if n > capacity - count { grow(to: count + n) }
    }

    @inline(never)
    @inlinable internal mutating func grow(to needed: Int) {
        var c = capacity
        while c < needed { c *= 2 }  // at most 63 doublings
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: c, alignment: 16)
        bigger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = bigger
        capacity = c
    }

    @inline(__always)
    @inlinable internal mutating func store<T: FixedWidthInteger>(_ v: T) {
        reserve(MemoryLayout<T>.size)
        base.storeBytes(of: v, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    @inline(__always)
    @inlinable package mutating func u8(_ v: UInt8) { store(v) }

    @inline(__always)
    @inlinable package mutating func u16(_ v: UInt16) { store(v.littleEndian) }

    @inline(__always)
    @inlinable package mutating func u32(_ v: UInt32) { store(v.littleEndian) }

    @inline(__always)
    @inlinable package mutating func u64(_ v: UInt64) { store(v.littleEndian) }

    /// Eight bytes, big-endian: the byte order of LMDB keys, so that byte order is numeric order.
    @inline(__always)
    @inlinable package mutating func u64BigEndian(_ v: UInt64) { store(v.bigEndian) }

    /// An unsigned LEB128 varint of a value below 2³²: seven bits per byte, low bits first, at most 5 bytes.
    @inline(__always)
    @inlinable package mutating func varint(_ v: Int) {
        precondition(v >= 0 && v <= Int(UInt32.max), "varint out of range")
        if v < 0x80 {
            store(UInt8(truncatingIfNeeded: v))
            return
        }
        reserve(5)
        var rest = UInt32(truncatingIfNeeded: v)
        while rest >= 0x80 {  // at most 4 steps
            base.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: count, as: UInt8.self)
            count += 1
            rest >>= 7
        }
        base.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Raw bytes.
    @inline(__always)
    @inlinable package mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The UTF-8 bytes of `s`, without a length.
    @inline(__always)
    @inlinable package mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
    }

    /// A string: its UTF-8 length as a varint, then its UTF-8 bytes.
    /// - Precondition: at most `limit` bytes long.
    @inline(__always)
    @inlinable package mutating func string(_ s: String, limit: Int) {
        var s = s
        s.withUTF8 { utf8 in
            precondition(utf8.count <= limit, "string of \(utf8.count) bytes is longer than the limit \(limit) of the log format")
            varint(utf8.count)
            raw(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Drops the bytes written after the first `count`.
    @inlinable package mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count, "truncating outside the written bytes")
        self.count = count
    }

    /// Calls `body` with the bytes written at `range` (valid only during the call: a later write may move them).
    @inline(__always)
    @inlinable package func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "bytes outside the written ones")
        return try body(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// Complements every byte written from `start` on.
    @inlinable package mutating func complementBytes(from start: Int) {
        precondition(start >= 0 && start <= count, "complementing outside the written bytes")
        for i in start..<count { base.storeBytes(of: ~base.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) }
    }

    /// Overwrites four bytes at `offset` with `v`, little-endian (for length and checksum fields written last).
    @inlinable package mutating func patchU32(at offset: Int, _ v: UInt32) {
        precondition(offset >= 0 && offset + 4 <= count, "patch outside the written bytes")
        base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Overwrites two bytes written before with `v`, big-endian.
    @inlinable package mutating func patchU16BigEndian(at offset: Int, _ v: UInt16) {
        precondition(offset >= 0 && offset + 2 <= count, "patch outside the written bytes")
        base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    /// The CRC-32C of the bytes written from `offset` on.
    package func checksum(from offset: Int, seed: UInt32 = 0) -> UInt32 {
        precondition(offset >= 0 && offset <= count, "checksum outside the written bytes")
        return CRC32C.checksum(UnsafeRawBufferPointer(start: base + offset, count: count - offset), seed: seed)
    }
}
