/// Reads the primitives of the binary format (`schema/log-format.md`) from borrowed bytes, with an explicit
/// bounds check before every read: a read past the end throws ``CodecError/truncated(field:offset:)``,
/// never traps. Lengths are checked against the bytes that remain and against a limit before anything is
/// allocated.
@usableFromInline package struct ByteReader {
    /// The bytes being read; borrowed, valid for the reader's lifetime.
    @usableFromInline package let buffer: UnsafeRawBufferPointer
    /// Offset of the next byte to read.
    @usableFromInline package private(set) var offset: Int

    /// Makes a reader of `buffer`, starting at `offset`.
    @inlinable package init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    /// Bytes not yet read.
    @inline(__always)
    @inlinable package var remaining: Int { buffer.count - offset }

    /// Whether every byte has been read.
    @inlinable package var isAtEnd: Bool { offset == buffer.count }

    /// Throws unless `n` more bytes are there for `field`.
    @inline(__always)
    @inlinable package func need(_ n: Int, _ field: StaticString) throws(CodecError) {
        guard n <= remaining else { throw .truncated(field: "\(field)", offset: offset) }
    }

    @inline(__always)
    @inlinable package mutating func u8(_ field: StaticString) throws(CodecError) -> UInt8 {
        try need(1, field)
        let v = buffer.load(fromByteOffset: offset, as: UInt8.self)
        offset += 1
        return v
    }

    @inline(__always)
    @inlinable package mutating func u16(_ field: StaticString) throws(CodecError) -> UInt16 {
        try need(2, field)
        let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        offset += 2
        return UInt16(littleEndian: v)
    }

    @inline(__always)
    @inlinable package mutating func u32(_ field: StaticString) throws(CodecError) -> UInt32 {
        try need(4, field)
        let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return UInt32(littleEndian: v)
    }

    @inline(__always)
    @inlinable package mutating func u64(_ field: StaticString) throws(CodecError) -> UInt64 {
        try need(8, field)
        let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(littleEndian: v)
    }

    /// Eight bytes, big-endian.
    @inline(__always)
    @inlinable package mutating func u64BigEndian(_ field: StaticString) throws(CodecError) -> UInt64 {
        try need(8, field)
        let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(bigEndian: v)
    }

    /// An unsigned LEB128 varint below 2³², in its shortest form (an overlong encoding is invalid, so that each
    /// value has exactly one encoding and encoded bytes are deterministic).
    @inline(__always)
    @inlinable package mutating func varint(_ field: StaticString) throws(CodecError) -> Int {
        let start = offset
        let first = try u8(field)
        if first < 0x80 { return Int(first) }
        var value = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while true {  // bounded: at most 4 more bytes
            let b = try u8(field)
            value |= UInt64(b & 0x7F) << shift
            if b < 0x80 {
                guard b != 0 else { throw .invalid(field: "\(field)", offset: start, reason: "overlong varint") }
                guard value <= UInt64(UInt32.max) else {
                    throw .invalid(field: "\(field)", offset: start, reason: "varint larger than 2^32 - 1")
                }
                return Int(value)
            }
            shift += 7
            guard shift < 35 else { throw .invalid(field: "\(field)", offset: start, reason: "varint longer than 5 bytes") }
        }
    }

    /// A length or count (varint) that must be at most `limit`, and for which at least `count × bytesEach`
    /// bytes must remain; so a corrupt length never makes a large allocation.
    @inline(__always)
    @inlinable package mutating func count(_ field: StaticString, limit: Int, bytesEach: Int) throws(CodecError) -> Int {
        let start = offset
        let n = try varint(field)
        guard n <= limit else { throw .tooLarge(field: "\(field)", offset: start, value: n, limit: limit) }
        let available = remaining / max(bytesEach, 1)
        guard n <= available else { throw .tooLarge(field: "\(field)", offset: start, value: n, limit: available) }
        return n
    }

    /// The next `n` bytes, borrowed; `n` must have been checked against ``remaining``.
    @inline(__always)
    @inlinable package mutating func bytes(_ n: Int, _ field: StaticString) throws(CodecError) -> UnsafeRawBufferPointer {
        try need(n, field)
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + n)])
        offset += n
        return slice
    }

    /// A string: varint UTF-8 length (at most `limit`), then that many bytes of valid UTF-8.
    @inline(__always)
    @inlinable package mutating func string(_ field: StaticString, limit: Int) throws(CodecError) -> String {
        let start = offset
        let n = try varint(field)
        guard n <= limit else { throw .tooLarge(field: "\(field)", offset: start, value: n, limit: limit) }
        guard n <= remaining else { throw .truncated(field: "\(field)", offset: start) }
        if n == 0 { return "" }
        let raw = try bytes(n, field)
        return try ByteReader.utf8(raw, field, at: start)
    }

    /// Validates `raw` as UTF-8: no replacement characters, ever.
    ///
    /// ASCII (the common case: names, most ids and strings) is checked eight bytes at a time and decoded
    /// directly; anything else goes through `String(validating:as:)`, which is exact but several times slower.
    @inline(__always)
    @inlinable package static func utf8(_ raw: UnsafeRawBufferPointer, _ field: StaticString, at offset: Int) throws(CodecError) -> String {
        let s = raw.withMemoryRebound(to: UInt8.self) { bytes -> String? in
            if isASCII(raw) { return String(decoding: bytes, as: UTF8.self) }
            return String(validating: bytes, as: UTF8.self)
        }
        guard let s else { throw .invalid(field: "\(field)", offset: offset, reason: "not valid UTF-8") }
        return s
    }

    /// Checks that `raw` is valid UTF-8 without making a `String` of it (ASCII needs no more than a look).
    @inlinable package static func checkUTF8(_ raw: UnsafeRawBufferPointer, _ field: StaticString, at offset: Int) throws(CodecError) {
        if isASCII(raw) { return }
        _ = try utf8(raw, field, at: offset)
    }

    /// Whether every byte is below 0x80.
    @inline(__always)
    @inlinable package static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        let n = raw.count
        var i = 0
        var bits: UInt64 = 0
        while n - i >= 8 {
            bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            bits |= UInt64(raw[i])
            i += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}
