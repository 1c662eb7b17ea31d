@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Transactions per write when replaying or importing in chunks: bounds the size of one LMDB write.
    public static let replayChunkTransactions = 10_000

    /// Rebuilds the store up to `position` (default: the head) into a new store at `path`: the same log
    /// (seqs, times, authors, changes) and the objects and metadata rebuilt from it. A compacted store's replay
    /// starts from its ``snapshot()``: the new store has the same horizon. Commits in chunks of
    /// ``replayChunkTransactions``; on failure the partial store is left for inspection and the error names
    /// the seq.
    ///
    /// Every change is checked as an append would check it, against the schema and the state it follows. A log
    /// without schema changes is copied entry by entry, its bytes as they are, while the objects are folded by slot
    /// (each value straight into its attribute's slot) and each chunk's changed rows are written from their slots.
    /// From a chunk that cannot be replayed so (a schema change, or a change that does not fit), the rest is
    /// appended change by change (``appendVerbatim(_:)``), which names what is wrong; the two ways give the same
    /// store, byte for byte.
    /// - Parameters:
    ///   - path: the new store's directory; it must not exist.
    ///   - position: the last transaction to replay (default: the head).
    ///   - options: how the new store is opened.
    ///   - progress: called with (transactions replayed, total) after each chunk.
    @discardableResult
    public func replay(into path: String, through position: UInt64? = nil, options: StoreOptions = StoreOptions(),
                       progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> LogStore {
        try replay(into: path, through: position, options: options, bySlot: true, chunk: Self.replayChunkTransactions,
                   progress: progress)
    }

    /// ``replay(into:through:options:progress:)``, copying entries and folding by slot where it can only when
    /// `bySlot`, committing every `chunk` transactions (a test compares the two ways, over many chunks).
    func replay(into path: String, through position: UInt64?, options: StoreOptions, bySlot: Bool, chunk size: Int,
                progress: ((UInt64, UInt64) -> Void)?) throws(StoreError) -> LogStore {
        precondition(size >= 1, "a chunk holds at least one transaction")
        let end = try checkedPosition(position)
        // A compacted store's replay starts from its snapshot at the horizon (DESIGN §13).
        let snapshot = try self.snapshot()
        let firstSchema = if let snapshot { snapshot.schema } else { try schema(at: 0) }
        let target = try LogStore.create(at: path, schema: firstSchema, options: options)
        var done: UInt64 = 0
        if let snapshot {
            try target.start(from: snapshot)
            done = snapshot.position
        } else if bySlot && !firstSchema.hasRelationships {
            // Copying by slot writes object rows, not the relationships index: a log with relationships replays as appends.
            done = try copyBySlot(into: target, schema: firstSchema, through: end, chunk: size, progress: progress)
        }
        var chunk: [Transaction] = []
        func flush() throws(StoreError) {
            guard !chunk.isEmpty else { return }
            try target.appendVerbatim(chunk)
            done += UInt64(chunk.count)
            chunk.removeAll(keepingCapacity: true)
            progress?(done, end)
        }
        var pending: StoreError?
        if done < end {
            try forEachTransaction(after: done, through: end) { t in
                chunk.append(t)
                if chunk.count >= size {
                    do { try flush() } catch let e as StoreError { pending = e; throw e }
                }
            }
        }
        if let pending { throw pending }
        try flush()
        return target
    }

    /// Replays entries `1 … end` into `target` (new, of `schema`) chunk by chunk: the chunk's entries folded by
    /// slot, every change checked against the state as an append would check it, then, in one write, the entries
    /// copied as they are and the rows the chunk changed written from their slots. The fold happens before the
    /// write, because a write that fills the map runs again (`LMDBEnvironment.write`) and must then write the same.
    /// - Returns: the last seq replayed: `end`, or the end of the last chunk before one that cannot be replayed so
    ///   (a schema change, a name the schema lacks, a damaged entry, a change that does not fit), which is not
    ///   written.
    private func copyBySlot(into target: LogStore, schema: Schema, through end: UInt64, chunk size: Int,
                            progress: ((UInt64, UInt64) -> Void)?) throws(StoreError) -> UInt64 {
        var fold = CheckedFold(schema: schema, appendChecks: true, tracksTouchedRows: true)
        var entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        entries.reserveCapacity(size)
        var done: UInt64 = 0
        while done < end {
            let first = done + 1, last = min(end, done + UInt64(size))
            // The entries stay in the source's pages, valid while its read transaction is open.
            let replayed: Bool = try perform(read: true) { source in
                entries.removeAll(keepingCapacity: true)
                var folded = true, expected = first
                try source.scan(self.logDB, from: .atLeast(bigEndianBytes(first))) { e in
                    guard uint64FromBigEndian(e.key) == expected, (try? fold.read(e.value, seq: expected)) == true else {
                        folded = false
                        return .stop
                    }
                    entries.append((e.key, e.value))
                    if fold.pendingChanges >= Self.slotFoldBatchChanges { fold.flush { _ in folded = false } }
                    expected += 1
                    return folded && expected <= last ? .next : .stop
                }
                fold.flush { _ in folded = false }
                guard folded, expected > last else { return false }
                let touched = fold.entities.indices.map { fold.takeTouchedRows(of: $0) }
                try target.perform { txn in
                    let format = try target.format(in: txn)
                    for (key, value) in entries { try txn.put(target.logDB, key: key, value: value, flags: .append) }
                    try self.writeRows(touched, of: fold, into: target, format: format, in: txn)
                    // Rows written from slots, not by appends: the stored views are dropped here (a replay that
                    // stops leaves none rather than wrong ones) and built again from the objects at its end.
                    for prefix in try target.storedViewPrefixes(in: txn) { try target.dropStoredView(prefix: prefix, in: txn) }
                    try target.putMeta(txn, MetaKey.head, bigEndianBytes(last), format: format)
                }
                return true
            }
            guard replayed else { break }
            done = last
            progress?(done, end)
        }
        if done > 0 {
            try target.buildStoredViews()
            target.notifyHead(done)  // the rest, if any, is appended by `appendVerbatim`, which notifies
        }
        return done
    }

    /// Writes rows `touched` (by entity) of `fold` into `target`'s objects, in key order: each object that exists
    /// as a record of its slots, each that does not removed.
    private func writeRows(_ touched: [[Int]], of fold: borrowing CheckedFold, into target: LogStore, format: Int,
                           in txn: LMDBTransaction) throws {
        var key = ByteWriter(capacity: 128), values = ByteWriter(capacity: 256)
        for (e, rows) in touched.enumerated() where !rows.isEmpty {
            let entity = fold.entities[e]
            let ids = entity.rows.ids, prefix = ObjectRecordCodec.entityPrefix(entity.description.name)
            try txn.withSequentialPuts(target.objectsDB) { puts in
                for r in entity.rows.inIDOrder(rows) {
                    key.truncate(to: 0)
                    ObjectRecordCodec.writeKey(prefix: prefix, id: ids[r], into: &key)
                    guard entity.rows.exists(r) else {
                        _ = try txn.delete(target.objectsDB, key: key.withBytes(0..<key.count) { Array($0) })
                        continue
                    }
                    values.truncate(to: 0)
                    entity.rows.writeObjectValues(ofRow: r, into: &values)
                    let seq = entity.rows.seq(ofRow: r)
                    try key.withBytes(0..<key.count) { k in
                        try values.withBytes(0..<values.count) { v in
                            try puts.put(key: k, reserving: ObjectRecordCodec.recordBytes(valueBytes: v.count, format: format)) { out in
                                ObjectRecordCodec.write(into: out, valueBytes: v, seq: seq, key: k, format: format)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Appends transactions exactly as logged elsewhere, in **one** LMDB write: the first must be the seq after
    /// the head and the others follow it, and every change must resolve to the same logged change on this
    /// store's state. Schema changes are applied as schema updates. Every check runs inside the write, so an
    /// error means nothing was appended, also when another process appended meanwhile.
    /// - Throws: ``StoreError/invalidChange(transaction:change:reason:)`` naming the caller's transaction (by
    ///   index) whose seq does not follow or whose change does not replay.
    public func appendVerbatim(_ transactions: [Transaction]) throws(StoreError) {
        guard !transactions.isEmpty else { return }
        try Self.checkSchemas(of: transactions)
        let now = Timestamp.now
        let appended: [Transaction] = try perform { txn in try self.appendVerbatim(transactions, time: now, in: txn) }
        if let last = appended.last { notifyHead(last.seq) }
    }

    /// Refuses transactions with a schema change to a schema that is not valid or too long.
    static func checkSchemas(of transactions: [Transaction]) throws(StoreError) {
        for t in transactions {
            for s in t.changes.compactMap(\.newSchema) {
                do { try s.validate() } catch { throw .schema(error) }
                try checkSchemaSize(s)
            }
        }
    }

    /// ``appendVerbatim(_:)`` inside the write `txn` (its schemas checked by ``checkSchemas(of:)``), `now` the time of
    /// the write; returns the transactions appended.
    func appendVerbatim(_ transactions: [Transaction], time now: Timestamp, in txn: LMDBTransaction) throws -> [Transaction] {
        var head = try self.head(in: txn)
        var result: [Transaction] = []
        var batch: [TransactionRequest] = []
        var batchStart = 0  // index in `transactions` of batch[0], so errors name the caller's transaction
        func flush() throws {
            guard !batch.isEmpty else { return }
            do { result += try self.appendInTransaction(txn, batch, time: now) } catch {
                if case let .invalidChange(t, c, reason) = error as? StoreError {
                    throw StoreError.invalidChange(transaction: batchStart + t, change: c, reason: reason)
                }
                throw error
            }
            batch.removeAll()
        }
        for (index, t) in transactions.enumerated() {
            guard t.seq == head + 1 else {
                throw StoreError.invalidChange(transaction: index, change: 0,
                                               reason: "seq \(t.seq) does not follow the store's head (\(head))")
            }
            head = t.seq
            if t.changes.contains(where: { $0.key == nil }) {
                try flush()
                let replayed: Transaction?
                switch t.changes[0] {
                case .schema(let s, _):
                    replayed = try self.updateSchemaInTransaction(txn, s, author: t.author, time: t.time)
                case .migration(let m, _, _):
                    replayed = try self.migrateInTransaction(txn, m, author: t.author, time: t.time)
                default:
                    throw StoreError.corrupt(seq: t.seq, reason: "a schema change must open its transaction")
                }
                guard replayed?.seq == t.seq, replayed?.changes == t.changes else {
                    throw StoreError.invalidChange(transaction: index, change: 0,
                                                   reason: "the schema change does not replay to the same transaction")
                }
                result.append(replayed!)
                continue
            }
            if batch.isEmpty { batchStart = index }
            batch.append(TransactionRequest(replaying: t))
        }
        try flush()
        return result
    }
}
