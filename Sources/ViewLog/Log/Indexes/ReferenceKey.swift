/// The keys of the `refs` database: the reverse index of relationships, from each target object to the objects that
/// name it (DESIGN §10). Byte layout in `schema/log-format.md`:
///
/// ```
/// u16 big-endian n | the target's object key (n bytes) | source entity | 0x00 | relationship | 0x00 | source id
/// ```
///
/// Keys of one target share the prefix up to the target's key, and under it sort by source entity name, then
/// relationship name (code point order: names hold no `0x00`), then source id in id order — exactly the order in
/// which DESIGN §10 runs delete rules, so a prefix scan lists a deleted object's referrers in that order.
/// The value of an entry is the CRC-32C of its key (4 bytes, little-endian), checked on read.
enum ReferenceKey {
    /// The bytes every key of `target`'s referrers starts with.
    static func prefix(target: ObjectKey) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + target.entity.utf8.count + (target.id.stringBytes ?? 0))
        writeTarget(target, into: &w)
        return w.finish()
    }

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
    static func key(target: ObjectKey, source: ObjectKey, relationship: String) -> [UInt8] {
        var w = ByteWriter(capacity: 48 + target.entity.utf8.count + source.entity.utf8.count + relationship.utf8.count)
        writeTarget(target, into: &w)
        w.raw(source.entity)
        w.u8(0)
        w.raw(relationship)
        w.u8(0)
        ObjectRecordCodec.appendID(source.id, to: &w)
        return w.finish()
    }

    private static func writeTarget(_ target: ObjectKey, into w: inout ByteWriter) {
        let start = w.count
        w.u16(0)  // patched: the length of the target's key, big-endian
        ObjectRecordCodec.writeKey(target, into: &w)
        let n = UInt16(w.count - start - 2)
        w.patchU16BigEndian(at: start, n)
    }

    /// One entry of the index, decoded.
    struct Entry: Hashable {
        let target: ObjectKey
        let source: ObjectKey
        let relationship: String
    }

    /// Decodes a key; total: any bytes give an entry or a ``CodecError``.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> Entry {
        var r = ByteReader(bytes, offset: 0)
        let hi = try r.u8("reference target length"), lo = try r.u8("reference target length")
        let n = Int(hi) << 8 | Int(lo)
        let at = r.offset
        let targetBytes = try r.bytes(n, "reference target")
        let target = try ObjectRecordCodec.decodeKey(targetBytes)
        let rest = UnsafeRawBufferPointer(rebasing: bytes[(at + n)...])
        // source entity 0x00 relationship 0x00 id
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
        let id = try ObjectRecordCodec.decodeID(rest, prefixCount: secondNul + 1)
        return Entry(target: target, source: ObjectKey(entity: entity, id: id), relationship: relationship)
    }

    /// The value stored with `key`: its checksum.
    static func value(of key: UnsafeRawBufferPointer) -> [UInt8] {
        let crc = CRC32C.checksum(key)
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8),
                UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 24)]
    }

    /// Whether `value` is the checksum of `key`.
    static func isIntact(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        value.count == 4 && value.elementsEqual(Self.value(of: key))
    }
}
