@_spi(Engine) import ViewLogModel
/// Where ``KeyEncoding`` writes a key's bytes: an array (a key kept or compared later), or a ``ByteWriter``
/// reused for every row of a load, whose writes are one capacity check and one store each (an array's
/// `append(contentsOf:)` of eight bytes cost about a hundred instructions: most of an initial fetch's key
/// encoding).
@usableFromInline package protocol KeySink: ~Copyable {
    /// Bytes written so far.
    var count: Int { get }
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends the 8 bytes of `v`, most significant first.
    mutating func appendBigEndian(_ v: UInt64)
    /// Complements every byte from `start` on (a descending component).
    mutating func complementBytes(from start: Int)
    /// Appends `bytes`, in one copy.
    mutating func append(bytes: UnsafeRawBufferPointer)
}

extension Array: KeySink where Element == UInt8 {
    @inline(__always)
    @inlinable package mutating func appendBigEndian(_ v: UInt64) {
        Swift.withUnsafeBytes(of: v.bigEndian) { append(contentsOf: $0) }
    }

    @inlinable package mutating func complementBytes(from start: Int) {
        for i in start..<count { self[i] = ~self[i] }
    }

    @inline(__always)
    @inlinable package mutating func append(bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

extension ByteWriter: KeySink {
    @inline(__always)
    @inlinable package mutating func append(_ byte: UInt8) { u8(byte) }

    @inline(__always)
    @inlinable package mutating func appendBigEndian(_ v: UInt64) { u64BigEndian(v) }

    @inline(__always)
    @inlinable package mutating func append(bytes: UnsafeRawBufferPointer) { raw(bytes) }
}
