/// Writes one log entry change by change (byte layout in `schema/log-format.md`): the header and author when it
/// is made, each change as it comes, the length and checksum when it is finished.
///
/// ``TransactionCodec/encode(_:)`` writes a whole ``Transaction`` through it; an append writes its changes as it
/// resolves them, and an insert's values straight from their slots (``appendInsert(_:names:values:)``), so no
/// dictionary is built, iterated or sorted to encode them.
struct EntryWriter: ~Copyable {
    private var w: ByteWriter
    /// The changes the entry declares; ``finish()`` checks that exactly these were written.
    private let changeCount: Int
    private var written = 0

    /// Starts the entry of transaction `seq`.
    /// - Precondition: `seq` in `1...Int64.max`; 1…``Limits/transactionChangesMax`` changes.
    init(seq: UInt64, time: Timestamp, author: String, changeCount: Int) {
        precondition(seq >= 1 && seq <= UInt64(Int64.max), "seq \(seq) out of range")
        precondition(changeCount >= 1, "a transaction has at least one change")
        precondition(changeCount <= Limits.transactionChangesMax, "too many changes in one transaction")
        self.changeCount = changeCount
        w = ByteWriter(capacity: TransactionCodec.headerBytes + 8 + author.utf8.count + changeCount * 96)
        for b in TransactionCodec.magic { w.u8(b) }
        w.u16(TransactionCodec.formatVersion)
        w.u16(0)  // flags: none defined in version 1
        w.u32(0)  // length, patched by finish()
        w.u32(0)  // checksum, patched by finish()
        w.u64(seq)
        w.u64(UInt64(bitPattern: time.milliseconds))
        w.string(author, limit: Limits.stringBytesMax)
        w.varint(changeCount)
    }

    /// Bytes written so far.
    var count: Int { w.count }

    /// Writes one change; for an insert, returns the byte range of its object values in the entry.
    /// - Precondition: as ``TransactionCodec/encode(_:)`` requires of each change.
    @discardableResult
    mutating func append(_ change: Change) -> Range<Int>? {
        precondition(written < changeCount, "more changes than the entry declares")
        written += 1
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
        }
        return nil
    }

    /// Writes the insert of `key` whose complete values are `values`, one per attribute named in `names` (the
    /// entity's attribute names in code-point order, each encoded as the log writes a name: its length as a varint,
    /// then its UTF-8): the same bytes as ``append(_:)`` of that insert. Returns the byte range of its object values
    /// in the entry.
    /// - Precondition: `names` and `values` have the same count, at most ``Limits/attributesMax``; names strictly
    ///   increasing.
    @discardableResult
    mutating func appendInsert(_ key: ObjectKey, names: [[UInt8]], values: [Value]) -> Range<Int> {
        precondition(written < changeCount, "more changes than the entry declares")
        precondition(names.count == values.count, "an insert needs one value per attribute")
        precondition(values.count <= Limits.attributesMax, "more than \(Limits.attributesMax) attributes")
        written += 1
        w.u8(TransactionCodec.Kind.insert)
        w.key(key)
        let start = w.count
        w.varint(values.count)
        for i in values.indices {
            names[i].withUnsafeBytes { w.raw($0) }
            w.value(values[i])
        }
        return start..<w.count
    }

    /// The finished entry: its length and checksum filled in.
    /// - Precondition: every declared change was written; at most ``Limits/transactionBytesMax`` bytes.
    consuming func finish() -> [UInt8] {
        precondition(written == changeCount, "the entry declares \(changeCount) changes, \(written) were written")
        precondition(w.count <= Limits.transactionBytesMax, "transaction of \(w.count) bytes exceeds the limit")
        w.patchU32(at: TransactionCodec.lengthOffset, UInt32(w.count))
        w.patchU32(at: TransactionCodec.checksumOffset, w.checksum(from: TransactionCodec.seqOffset))
        return w.finish()
    }
}
