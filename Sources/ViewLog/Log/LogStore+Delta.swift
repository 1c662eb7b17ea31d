import LMDB

extension LogStore {
    /// The move of a position from `from` to `to` (either direction), reduced to the objects it touched —
    /// each once, with its full values at both ends (the change-set rules: a batch compares before with after).
    ///
    /// Reads one short read transaction. States at the far end come from the head record, undoing later
    /// changes from the log when the end is not the head.
    /// - Parameters:
    ///   - from: the position the move starts at.
    ///   - to: the position it ends at (before `from` for a move backwards).
    ///   - entities: only objects of these entities (all when `nil`).
    public func delta(from: UInt64, to: UInt64, entities: Set<String>? = nil) throws(StoreError) -> Delta {
        try perform(read: true) { txn in try self.delta(from: from, to: to, entities: entities, in: txn) }
    }

    func delta(from: UInt64, to: UInt64, entities: Set<String>?, in txn: LMDBTransaction) throws -> Delta {
        let head = try self.head(in: txn)
        for p in [from, to] where p > head { throw StoreError.positionPastHead(position: p, head: head) }
        if from == to { return Delta(from: from, to: to, objects: []) }
        let lo = min(from, to), hi = max(from, to)
        let forward = from < to
        let range = try readTransactions(txn, from: lo + 1, through: hi)
        // Touched objects and the seq reported for each: last in the direction of the move.
        var seqs: [ObjectKey: UInt64] = [:]
        var schemaChanged = false
        for t in range {
            for change in t.changes {
                guard let key = change.key else { schemaChanged = true; continue }
                if let entities, !entities.contains(key.entity) { continue }
                if forward || seqs[key] == nil { seqs[key] = t.seq }
            }
        }
        // States at hi: the head record, with changes after hi undone.
        // (A struct, not `ObjectValues?` as the dictionary value: absent objects must stay keys.)
        var states: [ObjectKey: ObjectState] = [:]
        states.reserveCapacity(seqs.count)
        for key in seqs.keys { states[key] = ObjectState(values: try objectRecord(key, in: txn)?.values) }
        func undo(_ transactions: [Transaction]) {
            Self.undo(transactions) { key, inverse in
                guard let state = states[key] else { return }
                states[key] = ObjectState(values: ObjectValues.applying(inverse, to: state.values))
            }
        }
        if hi < head { undo(try readTransactions(txn, from: hi + 1, through: head)) }
        let atHi = states
        undo(range)
        let atLo = states
        let schemaLo = try schema(at: lo, in: txn)
        let schemaHi = schemaChanged ? try schema(at: hi, in: txn) : schemaLo
        var objects: [ObjectDelta] = []
        objects.reserveCapacity(seqs.count)
        for (key, seq) in seqs {
            var low = atLo[key]?.values, high = atHi[key]?.values
            if let v = low, let e = schemaLo.entities[key.entity] { low = e.canonical(v) }
            if let v = high, let e = schemaHi.entities[key.entity] { high = e.canonical(v) }
            objects.append(ObjectDelta(key: key, before: forward ? low : high, after: forward ? high : low, seq: seq))
        }
        objects.sort { $0.key < $1.key }
        var schemaChange: Schema?
        if schemaChanged, schemaLo != schemaHi { schemaChange = forward ? schemaHi : schemaLo }
        return Delta(from: from, to: to, objects: objects, schemaChange: schemaChange)
    }
}

/// An object's values at a position, `nil` when it does not exist there.
struct ObjectState {
    var values: ObjectValues?
}
