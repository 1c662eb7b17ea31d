@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Reading an entry for a fold: the object changes of one entity, without decoding the rest.
///
/// Replay, time travel and deltas need the changes of one entity (or one object); decoding every change of every
/// entry into a ``Transaction`` allocates its values for nothing. This reader checks an entry's header and
/// checksum exactly as ``TransactionCodec/decode(_:expectedSeq:)`` does — so a damaged entry is the same
/// ``CodecError`` — then decodes only the changes of the wanted entity and steps over the others and over schema
/// changes, with every length still checked against the bytes that remain (never a trap). The bytes it steps
/// over are covered by the checksum just checked; their finer rules (name order, UTF-8, a schema that loads) are
/// checked by the full decoder, which `verify`, `log` and `export` use.
extension TransactionCodec {
    /// Calls `body` with every insert, update and delete of `entity` (of every entity when `nil`) in one entry,
    /// in the entry's order.
    /// - Parameters:
    ///   - bytes: exactly one entry.
    ///   - expectedSeq: the seq the entry must hold (its log key).
    ///   - entity: the entity's name as UTF-8, or `nil` for all.
    ///   - updates: which values of an update to decode; the other side is given empty.
    ///   - body: called with each change.
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    static func forEachChange(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64, entity: [UInt8]?,
                              updates: UpdateValues = .both, _ body: (Change) -> Void) throws(CodecError) {
        _ = try walkChanges(bytes, expectedSeq: expectedSeq, entity: entity) { kind, name, nameAt, r throws(CodecError) in
            let key = ObjectKey(entity: try ByteReader.utf8(name, "entity name", at: nameAt), id: try r.id())
            switch kind {
            case Kind.insert: body(.insert(key, values: try r.objectValues()))
            case Kind.delete: body(.delete(key, previous: try r.objectValues()))
            default:
                let (values, previous) = try r.updatePairs(updates)
                body(.update(key, values: values, previous: previous))
            }
            return true
        }
    }

    /// The one walk over an entry for a fold: checks the header and checksum as
    /// ``TransactionCodec/decode(_:expectedSeq:)`` does, steps over schema changes and the changes of entities
    /// other than `entity` (every length checked), and calls `body` with each insert, update or delete of `entity`
    /// (of every entity when `nil`): its kind, its entity name's raw bytes and their offset, and the reader at its
    /// id, which `body` must read through to the change's end.
    /// - Returns: `false` when `body` returned `false` (the walk stopped there), else `true` with the whole entry
    ///   read and nothing after it.
    static func walkChanges(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64, entity: [UInt8]?,
                            _ body: (UInt8, UnsafeRawBufferPointer, Int, inout ByteReader) throws(CodecError) -> Bool)
        throws(CodecError) -> Bool {
        var (r, seq, _, flags) = try checkedHeader(bytes, expectedSeq: expectedSeq)
        try r.skipString("author", limit: Limits.stringBytesMax)
        _ = try reverts(&r, flags: flags, seq: seq)
        let count = try changeCount(&r)
        for _ in 0..<count {
            let at = r.offset
            let kind = try r.u8("change kind")
            switch kind {
            case Kind.insert, Kind.update, Kind.delete:
                let (raw, nameAt) = try r.rawName("entity name")
                if let entity, !raw.elementsEqual(entity) {
                    try r.skipID()
                    if kind == Kind.update { try r.skipUpdatePairs() } else { try r.skipObjectValues() }
                    continue
                }
                guard try body(kind, raw, nameAt, &r) else { return false }
            case Kind.schema:
                try r.skipString("schema", limit: Limits.stringBytesMax)
                try r.skipString("previous schema", limit: Limits.stringBytesMax)
            case Kind.migration:
                try r.skipString("migration", limit: Limits.stringBytesMax)
                try r.skipString("schema", limit: Limits.stringBytesMax)
                try r.skipString("previous schema", limit: Limits.stringBytesMax)
            default:
                throw .invalid(field: "change kind", offset: at, reason: "unknown kind \(kind)")
            }
        }
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
        return true
    }
}

/// Which values of an update a fold decodes: a fold forwards needs the new values, an undo the previous ones.
enum UpdateValues {
    /// Both sides.
    case both
    /// The new values only.
    case new
    /// The previous values only.
    case previous
}

extension ByteReader {
    /// Steps over a string of at most `limit` bytes (its bytes are not checked as UTF-8).
    mutating func skipString(_ field: StaticString, limit: Int) throws(CodecError) {
        let start = offset
        let n = try varint(field)
        guard n <= limit else { throw .tooLarge(field: "\(field)", offset: start, value: n, limit: limit) }
        guard n <= remaining else { throw .truncated(field: "\(field)", offset: start) }
        _ = try bytes(n, field)
    }

    /// Steps over a tagged id.
    mutating func skipID() throws(CodecError) {
        let at = offset
        let tag = try u8("id tag")
        switch tag {
        case IDTag.int: _ = try bytes(8, "int id")
        case IDTag.string: try skipString("string id", limit: Limits.idBytesMax)
        default: throw .invalid(field: "id tag", offset: at, reason: "unknown tag \(tag)")
        }
    }

    /// Steps over a tagged value.
    mutating func skipValue() throws(CodecError) {
        let at = offset
        let tag = try u8("value tag")
        switch tag {
        case ValueTag.null, ValueTag.boolFalse, ValueTag.boolTrue: return
        case ValueTag.string: try skipString("string value", limit: Limits.stringBytesMax)
        case ValueTag.int, ValueTag.double, ValueTag.date: _ = try bytes(8, "value")
        case ValueTag.set: _ = try setMembers()
        default: throw .invalid(field: "value tag", offset: at, reason: "unknown tag \(tag)")
        }
    }

    /// Steps over object values.
    mutating func skipObjectValues() throws(CodecError) {
        let n = try count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.namedValueMin)
        for _ in 0..<n {
            _ = try rawName("attribute name")
            try skipValue()
        }
    }

    /// Steps over an update's (name, new value, previous value) triples.
    mutating func skipUpdatePairs() throws(CodecError) {
        let n = try count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.updatePairMin)
        for _ in 0..<n {
            _ = try rawName("attribute name")
            try skipValue()
            try skipValue()
        }
    }
}
