@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The binary forms of the `objects` database (the current state at head): the record of one object (its values
/// and the seq that last changed it) and its LMDB key (entity, then id, ordered so that byte order is id order
/// within an entity). Byte layout in `schema/log-format.md`.
///
/// Two record versions: version 1 (stores of log format 1) has no checksum; version 2 (log format 2) ends with a
/// CRC-32C of the object's key and the record, checked on every read, so a damaged row is an error, never other
/// data. Decoding is total, as for ``TransactionCodec``.
@_spi(Engine) public enum ObjectRecordCodec {
    /// The version byte every record of log format 1 starts with (no checksum).
    public static let recordVersion: UInt8 = 1
    /// The version byte every record of log format 2 starts with (checksummed).
    public static let checkedRecordVersion: UInt8 = 2

    /// Flips the sign bit of an int id so that unsigned big-endian byte order is signed numeric order.
    static let signBit: UInt64 = 0x8000_0000_0000_0000
    /// The longest object key: an entity name, `0x00`, the id tag and the longest string id (386 bytes).
    static let keyBytesMax = Limits.nameBytesMax + 2 + Limits.idBytesMax

    /// Encodes an object's record: version, seq, values.
    /// - Precondition: the limits of ``TransactionCodec/encode(_:)`` hold for `values`, and `seq` is in
    ///   `1...Int64.max`.
    public static func encode(values: ObjectValues, seq: UInt64) -> [UInt8] {
        encode(values: values, seq: seq, key: [], format: 1)
    }

    /// Decodes an object's record.
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> (values: ObjectValues, seq: UInt64) {
        try decodeFrame(bytes, key: UnsafeRawBufferPointer(start: nil, count: 0), format: 1) { r throws(CodecError) in try r.objectValues() }
    }

    /// Encodes an object's record of log format 2: version 2, seq, values, then a `u32` CRC-32C of `key` (the
    /// object's LMDB key, see ``key(_:)``) followed by every byte before the checksum — so a row that is damaged,
    /// or copied under another key, fails its check.
    /// - Precondition: as ``encode(values:seq:)``.
    public static func encode(values: ObjectValues, seq: UInt64, key: [UInt8]) -> [UInt8] {
        encode(values: values, seq: seq, key: key, format: 2)
    }

    /// Decodes an object's record of log format 2 stored under `key`, checking its checksum first.
    /// - Throws: ``CodecError/checksumMismatch(seq:stored:computed:)`` for a damaged record (or one stored under
    ///   another key); other ``CodecError``s naming what is wrong and at which byte offset.
    public static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(CodecError) -> (values: ObjectValues, seq: UInt64) {
        try decodeFrame(bytes, key: key, format: 2) { r throws(CodecError) in try r.objectValues() }
    }

    /// Decodes a record of a store of log format `format` stored under `key`, its values in the canonical form of
    /// an entity with `attributes` (see ``ByteReader/objectValues(canonicalFor:)``): the same result and the same
    /// errors as ``decode(_:key:format:)`` followed by ``EntityDescription/canonical(_:)``.
    static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, format: Int,
                       canonicalFor attributes: [Attribute]) throws(CodecError) -> ObjectValues {
        try decodeFrame(bytes, key: key, format: format) { r throws(CodecError) in try r.objectValues(canonicalFor: attributes) }.values
    }

    /// Decodes a record of a store of log format `format` stored under `key` into `fetched`: the values of its
    /// attributes (see ``ByteReader/objectValues(into:)``), with the same checks and errors as
    /// ``decode(_:key:format:)``.
    /// - Returns: where the record's values lie in `bytes` (their encoding as object values, already checked), for
    ///   a caller that keeps them (``ViewRowRecords``).
    @discardableResult
    static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, format: Int,
                       into fetched: FetchedValues, names: AttributeNames? = nil) throws(CodecError) -> Range<Int> {
        try decodeFrame(bytes, key: key, format: format) { r throws(CodecError) in
            let start = r.offset
            try r.objectValues(into: fetched, names: names)
            return start..<r.offset
        }.values
    }

    /// ``decode(_:key:format:into:names:)`` of one row of a scan, its names compared with the last row's
    /// (``RecordShape``).
    @discardableResult
    static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, format: Int,
                       into fetched: FetchedValues, names: AttributeNames,
                       shape: inout RecordShape) throws(CodecError) -> Range<Int> {
        try decodeFrame(bytes, key: key, format: format) { r throws(CodecError) in
            let start = r.offset
            try r.objectValues(into: fetched, names: names, shape: &shape)
            return start..<r.offset
        }.values
    }

    /// The one reading of a record's frame: for format 2 the checksum (over `key` and the record) first, then the
    /// version byte of `format`, the seq, the values read by `values`, and nothing after them.
    @inline(__always)
    static func decodeFrame<T>(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, format: Int,
                               values readValues: (inout ByteReader) throws(CodecError) -> T)
        throws(CodecError) -> (values: T, seq: UInt64) {
        var (r, seq) = try header(bytes, key: key, format: format)
        let values = try readValues(&r)
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
        return (values, seq)
    }

    /// Decodes the id of an object's LMDB key that starts with `prefix` (its entity's ``entityPrefix(_:)``): the
    /// same id and errors as ``decodeKey(_:)``, without making the entity name.
    static func decodeID(_ bytes: UnsafeRawBufferPointer, prefixCount: Int) throws(CodecError) -> ObjectID {
        var r = ByteReader(bytes, offset: prefixCount)
        let tagAt = r.offset
        let tag = try r.u8("id tag")
        switch tag {
        case IDTag.int:
            let flipped = try r.u64BigEndian("int id")
            guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
            return .int(Int64(bitPattern: flipped ^ signBit))
        case IDTag.string:
            let n = r.remaining
            guard n <= Limits.idBytesMax else {
                throw .tooLarge(field: "string id", offset: r.offset, value: n, limit: Limits.idBytesMax)
            }
            let at = r.offset
            let raw = try r.bytes(n, "string id")
            return .string(try ByteReader.utf8(raw, "string id", at: at))
        default:
            throw .invalid(field: "id tag", offset: tagAt, reason: "unknown tag \(tag)")
        }
    }

    /// Decodes a record of a store of log format `format` (1: unchecked, 2: checksummed under `key`).
    static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, format: Int) throws(CodecError) -> (values: ObjectValues, seq: UInt64) {
        format >= 2 ? try decode(bytes, key: key) : try decode(bytes)
    }

    /// Encodes a record for a store of log format `format` (1: no checksum; 2: checksummed under `key`).
    static func encode(values: ObjectValues, seq: UInt64, key: [UInt8], format: Int) -> [UInt8] {
        var w = ByteWriter(capacity: values.count * 24)
        w.objectValues(values)
        return w.withBytes(0..<w.count) { valueBytes in
            key.withUnsafeBytes { k in
                let n = recordBytes(valueBytes: valueBytes.count, format: format)
                return [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
                    write(into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[0..<n]),
                          valueBytes: valueBytes, seq: seq, key: k, format: format)
                    initialized = n
                }
            }
        }
    }

    /// The size of the record ``write(into:valueBytes:seq:key:format:)`` writes.
    static func recordBytes(valueBytes: Int, format: Int) -> Int {
        1 + 8 + valueBytes + (format >= 2 ? 4 : 0)
    }

    /// Bytes of the checksum that ends a record of version 2.
    static let checksumBytes = 4

    /// The seq of a version-2 record stored under `key`, after checking its checksum, version and seq; its values
    /// are not decoded (a checkpoint copies them as they are).
    static func checkedSeq(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(CodecError) -> UInt64 {
        try header(bytes, key: key, format: 2).seq
    }

    /// Checks a record's frame — its checksum (format 2), version byte and seq — and returns a reader over the
    /// record without its checksum, at the values, and the seq.
    @inline(__always)
    private static func header(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                               format: Int) throws(CodecError) -> (reader: ByteReader, seq: UInt64) {
        let body: UnsafeRawBufferPointer, expected: UInt8
        if format >= 2 {
            guard bytes.count >= 9 + checksumBytes else { throw .truncated(field: "object record", offset: bytes.count) }
            body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - checksumBytes)])
            let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: body.count, as: UInt32.self))
            let computed = CRC32C.checksum(body, seed: CRC32C.checksum(key))
            guard stored == computed else { throw .checksumMismatch(seq: nil, stored: stored, computed: computed) }
            expected = checkedRecordVersion
        } else {
            body = bytes
            expected = recordVersion
        }
        var r = ByteReader(body)
        let version = try r.u8("record version")
        guard version == expected else {
            throw .invalid(field: "record version", offset: 0,
                           reason: format >= 2 ? "version \(version) in a store of log format 2" : "unsupported version \(version)")
        }
        let seq = try r.u64("seq")
        guard seq >= 1, seq <= UInt64(Int64.max) else {
            throw .invalid(field: "seq", offset: 1, reason: "\(seq) is not in 1...\(Int64.max)")
        }
        return (r, seq)
    }

    /// The one writing of a record's frame, into `out` (exactly ``recordBytes(valueBytes:format:)`` bytes: an
    /// array, or LMDB's reserved space for the row): the version byte (2 for format 2, else 1), the seq,
    /// `valueBytes` (object values as the log encodes them: an insert's value bytes are copied from its entry), and
    /// for format 2 the CRC-32C of `key` and everything before it.
    static func write(into out: UnsafeMutableRawBufferPointer, valueBytes: UnsafeRawBufferPointer, seq: UInt64,
                      key: UnsafeRawBufferPointer, format: Int) {
        precondition(seq >= 1 && seq <= UInt64(Int64.max), "seq \(seq) out of range")
        precondition(out.count == recordBytes(valueBytes: valueBytes.count, format: format), "record size")
        guard let base = out.baseAddress else { preconditionFailure("no space reserved for a record") }
        base.storeBytes(of: format >= 2 ? checkedRecordVersion : recordVersion, as: UInt8.self)
        (base + 1).storeBytes(of: seq.littleEndian, as: UInt64.self)
        if let values = valueBytes.baseAddress, valueBytes.count > 0 {
            (base + 9).copyMemory(from: values, byteCount: valueBytes.count)
        }
        guard format >= 2 else { return }
        let body = 9 + valueBytes.count
        let crc = CRC32C.checksum(UnsafeRawBufferPointer(start: base, count: body), seed: CRC32C.checksum(key))
        (base + body).storeBytes(of: crc.littleEndian, as: UInt32.self)
    }

    /// Decodes an object's record from an array; the same as the `UnsafeRawBufferPointer` overload.
    public static func decode(_ bytes: [UInt8]) throws(CodecError) -> (values: ObjectValues, seq: UInt64) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try decode(raw) }
        }
        return try result.get()
    }

    /// The LMDB key of an object: entity name (UTF-8), `0x00`, id tag, id bytes — an int id as 8 bytes big-endian
    /// with the sign bit flipped, a string id as its UTF-8 bytes. Within one entity, byte order is
    /// ``ObjectID``'s order (numeric, or code point).
    /// - Precondition: the entity name is 1…``Limits/nameBytesMax`` bytes without `0x00`; a string id is at most
    ///   ``Limits/idBytesMax`` bytes.
    public static func key(_ k: ObjectKey) -> [UInt8] {
        var w = ByteWriter(capacity: k.entity.utf8.count + 10 + (k.id.stringBytes ?? 0))
        writeKey(k, into: &w)
        return w.finish()
    }

    /// Writes the LMDB key of `k` (see ``key(_:)``) at the end of `w`.
    static func writeKey(_ k: ObjectKey, into w: inout ByteWriter) {
        appendPrefix(k.entity, to: &w)
        appendID(k.id, to: &w)
    }

    /// Writes the LMDB key of the object `id` of the entity whose ``entityPrefix(_:)`` is `prefix` at the end of `w`.
    static func writeKey(prefix: [UInt8], id: ObjectID, into w: inout ByteWriter) {
        prefix.withUnsafeBytes { w.raw($0) }
        appendID(id, to: &w)
    }

    static func appendID(_ id: ObjectID, to w: inout ByteWriter) {
        switch id {
        case .int(let i):
            w.u8(IDTag.int)
            w.u64BigEndian(UInt64(bitPattern: i) ^ signBit)
        case .string(let s):
            precondition(s.utf8.count <= Limits.idBytesMax, "string id longer than \(Limits.idBytesMax) bytes")
            w.u8(IDTag.string)
            w.raw(s)
        }
    }

    /// The bytes every key of `entity` starts with, and no key of another entity: its name and `0x00`. For range
    /// scans over one entity.
    public static func entityPrefix(_ entity: String) -> [UInt8] {
        var w = ByteWriter(capacity: entity.utf8.count + 1)
        appendPrefix(entity, to: &w)
        return w.finish()
    }

    static func appendPrefix(_ entity: String, to w: inout ByteWriter) {
        var entity = entity
        entity.withUTF8 { name in
            precondition(!name.isEmpty && name.count <= Limits.nameBytesMax, "entity name out of range")
            // memchr, not a loop over `utf8`: this runs for every key an append writes.
            precondition(memchr(name.baseAddress!, 0, name.count) == nil, "entity name contains a NUL byte")
            w.raw(UnsafeRawBufferPointer(name))
        }
        w.u8(0)
    }

    /// Decodes an object's LMDB key (see ``key(_:)``).
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    public static func decodeKey(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> ObjectKey {
        // The entity name ends at the first 0x00, within nameBytesMax + 1 bytes.
        let scan = min(bytes.count, Limits.nameBytesMax + 1)
        var end = 0
        while end < scan, bytes[end] != 0 { end += 1 }
        guard end < bytes.count, bytes[end] == 0 else {
            if end == scan, scan > Limits.nameBytesMax {
                throw .tooLarge(field: "entity name", offset: 0, value: end, limit: Limits.nameBytesMax)
            }
            throw .truncated(field: "entity name", offset: 0)
        }
        guard end >= 1 else { throw .invalid(field: "entity name", offset: 0, reason: "empty name") }
        let entity = try ByteReader.utf8(UnsafeRawBufferPointer(rebasing: bytes[0..<end]), "entity name", at: 0)
        return ObjectKey(entity: entity, id: try decodeID(bytes, prefixCount: end + 1))
    }

    /// Decodes an object's LMDB key from an array; the same as the `UnsafeRawBufferPointer` overload.
    public static func decodeKey(_ bytes: [UInt8]) throws(CodecError) -> ObjectKey {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try decodeKey(raw) }
        }
        return try result.get()
    }
}

extension ObjectRecordCodec {
    /// An object's LMDB key for error messages: `Entity/id` when it decodes, else its bytes in hex.
    static func describeKey(_ bytes: UnsafeRawBufferPointer) -> String {
        if let key = try? decodeKey(bytes) { return key.description }
        return bytes.prefix(64).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

extension ObjectID {
    /// UTF-8 length of a string id; `nil` for an int id.
    var stringBytes: Int? {
        if case .string(let s) = self { return s.utf8.count }
        return nil
    }
}
