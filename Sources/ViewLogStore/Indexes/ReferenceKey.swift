@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The keys and values of the `refs` database: the reverse index of relationships, from each target object to the
/// objects that name it (DESIGN §10). Byte layout in `schema/log-format.md`:
///
/// ```
/// key:   target | source entity | 0x00 | relationship | 0x00 | source id
///        target: u16 big-endian n, then the target's object key (n ≤ 160 bytes)
///                or 0x8010, then a 16-byte digest of the target's object key (a longer key)
///        source id: its encoding (tag, then the id; ≤ 91 bytes)
///                   or its first 75 bytes, then a 16-byte digest of the whole encoding (a longer one)
/// value: u32 little-endian CRC-32C of the key followed by the source id's encoding, then that encoding
/// ```
///
/// Keys of one target and one relationship share a prefix, so a prefix scan lists a target's referrers through
/// one relationship. A key is at most 511 bytes (LMDB's largest key), whatever the names and ids: long targets and
/// ids are digested in the key, and the id is whole in the value, which is where referrers' ids are read from.
/// (Two targets whose long keys had one digest would share referrers in the index; every reader checks what it
/// finds against the referrer's own value — the delete rules do, a view only evaluates one row too many — and
/// `verify` compares the index with the objects.)
enum ReferenceKey {
    /// The longest target key kept whole, and the longest source id encoding kept whole.
    static let targetBytesWholeMax = 160
    static let sourceIDBytesWholeMax = 91
    static let digestBytes = 16

    /// The bytes every key of `target`'s referrers through `relationship` of `source` starts with.
    static func prefix(target: ObjectKey, source: String, relationship: String) -> [UInt8] {
        var w = ByteWriter(capacity: 32 + target.entity.utf8.count + source.utf8.count + relationship.utf8.count)
        writeTarget(target, into: &w)
        w.raw(source)
        w.u8(0)
        w.raw(relationship)
        w.u8(0)
        return w.finish()
    }

    /// The key saying that `source`'s `relationship` names `target`.
    package static func key(target: ObjectKey, source: ObjectKey, relationship: String) -> [UInt8] {
        var key = prefix(target: target, source: source.entity, relationship: relationship)
        let id = encodedID(source.id)
        if id.count <= sourceIDBytesWholeMax {
            key += id
        } else {
            key += id.prefix(sourceIDBytesWholeMax - digestBytes)
            key += digest(id)
        }
        precondition(key.count <= 511, "a refs key over LMDB's limit")
        return key
    }

    /// The value stored with `key`, for the source id `id`.
    package static func value(key: [UInt8], id: ObjectID) -> [UInt8] {
        let encoded = encodedID(id)
        let crc = CRC32C.checksum(encoded, seed: CRC32C.checksum(key))
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8),
                UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 24)] + encoded
    }

    /// The source id of an entry, after checking its checksum; a ``CodecError`` for damaged or undecodable bytes.
    static func sourceID(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(CodecError) -> ObjectID {
        guard value.count >= 5 else { throw .truncated(field: "refs value", offset: value.count) }
        let stored = UInt32(value[0]) | UInt32(value[1]) << 8 | UInt32(value[2]) << 16 | UInt32(value[3]) << 24
        let encoded = UnsafeRawBufferPointer(rebasing: value[4...])
        let computed = CRC32C.checksum(encoded, seed: CRC32C.checksum(key))
        guard stored == computed else { throw .invalid(field: "refs entry", offset: 0, reason: "checksum mismatch") }
        return try ObjectRecordCodec.decodeID(encoded, prefixCount: 0)
    }

    private static func encodedID(_ id: ObjectID) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + (id.stringBytes ?? 0))
        ObjectRecordCodec.appendID(id, to: &w)
        return w.finish()
    }

    private static func writeTarget(_ target: ObjectKey, into w: inout ByteWriter) {
        let key = ObjectRecordCodec.key(target)
        if key.count <= targetBytesWholeMax {
            w.u16(0)
            w.patchU16BigEndian(at: w.count - 2, UInt16(key.count))
            key.withUnsafeBytes { w.raw($0) }
        } else {
            w.u16(0)
            w.patchU16BigEndian(at: w.count - 2, 0x8000 | UInt16(digestBytes))
            digest(key).withUnsafeBytes { w.raw($0) }
        }
    }

    /// A 16-byte digest of `bytes`, the same in every process and on every machine (it is stored): two FNV-1a
    /// hashes of 64 bits from different offsets, the second also mixing in each byte's position.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x6c62_272e_07bb_0142
        for (i, byte) in bytes.enumerated() {  // bounded by the bytes
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte) ^ (UInt64(i) << 8)) &* 0x0000_0100_0000_01b3
        }
        a ^= UInt64(bytes.count)
        return withUnsafeBytes(of: a.bigEndian) { Array($0) } + withUnsafeBytes(of: b.bigEndian) { Array($0) }
    }

    /// One entry of the index, decoded: the source entity and relationship from the key, the source id from the
    /// value, and the target when the key holds it whole (`nil`: digested).
    struct Entry: Hashable {
        let target: ObjectKey?
        let source: ObjectKey
        package let relationship: String
    }

    /// Decodes an entry; total: any bytes give an entry or a ``CodecError``.
    static func decode(key bytes: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(CodecError) -> Entry {
        let id = try sourceID(key: bytes, value: value)
        var r = ByteReader(bytes, offset: 0)
        let hi = try r.u8("reference target length"), lo = try r.u8("reference target length")
        let field = Int(hi) << 8 | Int(lo)
        let digested = field & 0x8000 != 0
        let n = field & 0x7FFF
        let at = r.offset
        let targetBytes = try r.bytes(n, "reference target")
        let target = digested ? nil : try ObjectRecordCodec.decodeKey(targetBytes)
        let rest = UnsafeRawBufferPointer(rebasing: bytes[(at + n)...])
        guard let firstNul = rest.firstIndex(of: 0) else { throw .truncated(field: "reference source entity", offset: at + n) }
        let afterEntity = rest.index(after: firstNul)
        guard let secondNul = rest[afterEntity...].firstIndex(of: 0) else {
            throw .truncated(field: "reference relationship", offset: at + n + afterEntity)
        }
        guard firstNul > 0, secondNul > afterEntity else {
            throw .invalid(field: "reference", offset: at + n, reason: "an empty name")
        }
        let entity = try ByteReader.utf8(UnsafeRawBufferPointer(rebasing: rest[..<firstNul]), "reference source entity", at: at + n)
        let relationship = try ByteReader.utf8(UnsafeRawBufferPointer(rebasing: rest[afterEntity..<secondNul]),
                                               "reference relationship", at: at + n + afterEntity)
        return Entry(target: target, source: ObjectKey(entity: entity, id: id), relationship: relationship)
    }
}
