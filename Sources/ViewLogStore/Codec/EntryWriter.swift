@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Writes log entries (byte layout in `schema/log-format.md`) one after another into one buffer, change by
/// change: an entry's header and author when it begins, each change as it comes, its length and checksum when it
/// ends.
///
/// ``TransactionCodec/encode(_:)`` writes one ``Transaction`` through it; an append writes all its entries into
/// one writer as it resolves their changes — an insert's values straight from their slots
/// (``appendInsert(_:names:values:)``), no dictionary built, iterated or sorted to encode them — and puts each
/// entry from the buffer, with no array per entry. Byte ranges it returns are offsets in the whole buffer.
struct EntryWriter: ~Copyable {
    private var w: ByteWriter
    /// Where the entry being written starts.
    private var start = 0
    /// The changes that entry declares, and how many were written; `nil` between entries.
    private var declared: Int?
    private var written = 0

    /// Makes a writer whose buffer holds `capacity` bytes before it grows.
    init(capacity: Int) {
        w = ByteWriter(capacity: capacity)
    }

    /// Begins the entry of transaction `seq`.
    /// - Precondition: no entry is open; `seq` in `1...Int64.max`; 1…``Limits/transactionChangesMax`` changes;
    ///   `reverts` descending, below `seq`, at most ``Limits/revertsMax``.
    mutating func begin(seq: UInt64, time: Timestamp, author: String, changeCount: Int, reverts: [UInt64] = []) {
        precondition(declared == nil, "an entry is already open")
        precondition(seq >= 1 && seq <= UInt64(Int64.max), "seq \(seq) out of range")
        precondition(changeCount >= 1, "a transaction has at least one change")
        precondition(changeCount <= Limits.transactionChangesMax, "too many changes in one transaction")
        declared = changeCount
        written = 0
        start = w.count
        for b in TransactionCodec.magic { w.u8(b) }
        w.u16(TransactionCodec.formatVersion)
        precondition(reverts.count <= Limits.revertsMax && zip(reverts, reverts.dropFirst()).allSatisfy(>)
                     && (reverts.first.map { $0 < seq && reverts.last! >= 1 } ?? true), "reverts must be descending seqs below \(seq)")
        w.u16(reverts.isEmpty ? 0 : TransactionCodec.Flag.reverts)
        w.u32(0)  // length, patched by end()
        w.u32(0)  // checksum, patched by end()
        w.u64(seq)
        w.u64(UInt64(bitPattern: time.milliseconds))
        w.string(author, limit: Limits.stringBytesMax)
        if !reverts.isEmpty {
            w.varint(reverts.count)
            for r in reverts { w.u64(r) }
        }
        w.varint(changeCount)
    }

    /// Bytes of the open entry so far.
    package var count: Int { w.count - start }

    /// Writes one change of the open entry; for an insert, returns the byte range of its object values.
    /// - Precondition: as ``TransactionCodec/encode(_:)`` requires of each change.
    @discardableResult
    package mutating func append(_ change: Change) -> Range<Int>? {
        countChange()
        switch change {
        case let .insert(key, values):
            w.u8(TransactionCodec.Kind.insert)
            w.key(key)
            let start = w.count
            w.objectValues(values)
            return start..<w.count
        case let .update(key, values, previous):
            w.u8(TransactionCodec.Kind.update)
            w.key(key)
            w.updatePairs(values, previous: previous)
        case let .delete(key, previous):
            w.u8(TransactionCodec.Kind.delete)
            w.key(key)
            w.objectValues(previous)
        case let .schema(schema, previous):
            w.u8(TransactionCodec.Kind.schema)
            w.string(schema.json.text, limit: Limits.stringBytesMax)
            w.string(previous.json.text, limit: Limits.stringBytesMax)
        case let .migration(migration, schema, previous):
            w.u8(TransactionCodec.Kind.migration)
            w.string(migration.json.text, limit: Limits.stringBytesMax)
            w.string(schema.json.text, limit: Limits.stringBytesMax)
            w.string(previous.json.text, limit: Limits.stringBytesMax)
        }
        return nil
    }

    /// Writes the insert of `key` whose complete values are `values`, one per attribute of `entity` (in its order:
    /// names in code-point order, already encoded as the log writes them): the same bytes as ``append(_:)`` of that
    /// insert. Returns the byte range of its object values.
    /// - Precondition: one value per attribute, at most ``Limits/attributesMax``.
    @discardableResult
    mutating func appendInsert(_ key: ObjectKey, of entity: ChangeResolver.ResolvedEntity, values: [Value]) -> Range<Int> {
        let ends = entity.nameEnds
        precondition(ends.count == values.count, "an insert needs one value per attribute")
        precondition(values.count <= Limits.attributesMax, "more than \(Limits.attributesMax) attributes")
        countChange()
        w.u8(TransactionCodec.Kind.insert)
        w.key(key)
        let start = w.count
        w.varint(values.count)
        entity.names.withUnsafeBytes { names in
            var from = 0
            for i in values.indices {
                w.raw(UnsafeRawBufferPointer(rebasing: names[from..<ends[i]]))
                w.value(values[i])
                from = ends[i]
            }
        }
        return start..<w.count
    }

    private mutating func countChange() {
        guard let declared else { preconditionFailure("no entry is open") }
        precondition(written < declared, "more changes than the entry declares")
        written += 1
    }

    /// Ends the open entry, filling in its length and checksum; returns its byte range.
    /// - Precondition: every declared change was written; at most ``Limits/transactionBytesMax`` bytes.
    package mutating func end() -> Range<Int> {
        guard let declared else { preconditionFailure("no entry is open") }
        precondition(written == declared, "the entry declares \(declared) changes, \(written) were written")
        precondition(count <= Limits.transactionBytesMax, "transaction of \(count) bytes exceeds the limit")
        w.patchU32(at: start + TransactionCodec.lengthOffset, UInt32(count))
        w.patchU32(at: start + TransactionCodec.checksumOffset, w.checksum(from: start + TransactionCodec.seqOffset))
        self.declared = nil
        return start..<w.count
    }

    /// Calls `body` with the bytes at `range` (valid only during the call: a later write may move them).
    package func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try w.withBytes(range, body)
    }

    /// Every byte written, as an array.
    /// - Precondition: no entry is open.
    consuming func finish() -> [UInt8] {
        precondition(declared == nil, "an entry is still open")
        return w.finish()
    }
}
