extension LogStore {
    /// Transactions per write when replaying or importing in chunks: bounds the size of one LMDB write.
    public static let replayChunkTransactions = 10_000

    /// Rebuilds the store up to `position` (default: the head) into a new store at `path`: the same log
    /// (seqs, times, authors, changes) and the objects and metadata rebuilt from it. Commits in chunks of
    /// ``replayChunkTransactions``; on failure the partial store is left for inspection and the error names
    /// the seq.
    /// - Parameter progress: called with (transactions replayed, total) after each chunk.
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

    /// Appends transactions exactly as logged elsewhere: each must be the next seq, and every change must
    /// resolve to the same logged change on this store's state. Schema changes are applied as schema updates.
    public func appendVerbatim(_ transactions: [Transaction]) throws(StoreError) {
        var batch: [TransactionRequest] = []
        var firstSeq: UInt64?
        var batchStart = 0  // index in `transactions` of batch[0], so errors name the caller's transaction
        func flush() throws(StoreError) {
            guard !batch.isEmpty, let first = firstSeq else { return }
            let appended: [Transaction]
            do { appended = try append(batch) } catch {
                if case let .invalidChange(t, c, reason) = error {
                    throw .invalidChange(transaction: batchStart + t, change: c, reason: reason)
                }
                throw error
            }
            guard appended.first?.seq == first else {
                throw .corrupt(seq: first, reason: "replayed as seq \(appended.first?.seq ?? 0): the target store's log is not at seq \(first - 1)")
            }
            batch.removeAll()
            firstSeq = nil
        }
        for (index, t) in transactions.enumerated() {
            if batch.isEmpty { batchStart = index }
            if t.changes.contains(where: { $0.key == nil }) {
                try flush()
                guard case .schema(let s, _) = t.changes[0] else {
                    throw .corrupt(seq: t.seq, reason: "a schema change must open its transaction")
                }
                let appended = try updateSchema(s, author: t.author, time: t.time)
                guard appended?.seq == t.seq, appended?.changes == t.changes else {
                    throw .corrupt(seq: t.seq, reason: "the schema change does not replay to the same transaction")
                }
                continue
            }
            if firstSeq == nil { firstSeq = t.seq }
            batch.append(TransactionRequest(replaying: t))
        }
        try flush()
    }
}
