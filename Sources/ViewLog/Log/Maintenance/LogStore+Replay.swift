extension LogStore {
    /// Transactions per write when replaying or importing in chunks: bounds the size of one LMDB write.
    public static let replayChunkTransactions = 10_000

    /// Rebuilds the store up to `position` (default: the head) into a new store at `path`: the same log
    /// (seqs, times, authors, changes) and the objects and metadata rebuilt from it. Commits in chunks of
    /// ``replayChunkTransactions``; on failure the partial store is left for inspection and the error names
    /// the seq.
    /// - Parameters:
    ///   - path: the new store's directory; it must not exist.
    ///   - position: the last transaction to replay (default: the head).
    ///   - options: how the new store is opened.
    ///   - progress: called with (transactions replayed, total) after each chunk.
    @discardableResult
    public func replay(into path: String, through position: UInt64? = nil, options: StoreOptions = StoreOptions(),
                       progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> LogStore {
        let headNow = try head
        let end = position ?? headNow
        guard end <= headNow else { throw .positionPastHead(position: end, head: headNow) }
        let target = try LogStore.create(at: path, schema: try schema(at: 0), options: options)
        var chunk: [Transaction] = []
        var done: UInt64 = 0
        func flush() throws(StoreError) {
            guard !chunk.isEmpty else { return }
            try target.appendVerbatim(chunk)
            done += UInt64(chunk.count)
            chunk.removeAll(keepingCapacity: true)
            progress?(done, end)
        }
        var pending: StoreError?
        try forEachTransaction(after: 0, through: end) { t in
            chunk.append(t)
            if chunk.count >= Self.replayChunkTransactions {
                do { try flush() } catch let e as StoreError { pending = e; throw e }
            }
        }
        if let pending { throw pending }
        try flush()
        return target
    }

    /// Appends transactions exactly as logged elsewhere, in **one** LMDB write: the first must be the seq after
    /// the head and the others follow it, and every change must resolve to the same logged change on this
    /// store's state. Schema changes are applied as schema updates. Every check runs inside the write, so an
    /// error means nothing was appended, also when another process appended meanwhile.
    /// - Throws: ``StoreError/invalidChange(transaction:change:reason:)`` naming the caller's transaction (by
    ///   index) whose seq does not follow or whose change does not replay.
    public func appendVerbatim(_ transactions: [Transaction]) throws(StoreError) {
        guard !transactions.isEmpty else { return }
        for t in transactions {
            for case .schema(let s, _) in t.changes {
                do { try s.validate() } catch { throw .schema(error) }
                try Self.checkSchemaSize(s)
            }
        }
        let now = Timestamp.now
        let appended: [Transaction] = try perform { txn in
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
                    guard case .schema(let s, _) = t.changes[0] else {
                        throw StoreError.corrupt(seq: t.seq, reason: "a schema change must open its transaction")
                    }
                    let replayed = try self.updateSchemaInTransaction(txn, s, author: t.author, time: t.time)
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
        if let last = appended.last { notifyHead(last.seq) }
    }
}
