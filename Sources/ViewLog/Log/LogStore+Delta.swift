import LMDB

extension LogStore {
    /// The move of a position from `from` to `to` (either direction), reduced to the objects it touched —
    /// each once, with its full values at both ends (the change-set rules: a batch compares before with after).
    ///
    /// Reads one short read transaction. The states come from the log, whichever way reads fewer entries:
    /// folding the touched objects' changes forwards from the empty store (entries 1 … the later end), or undoing
    /// them from the object rows at the head (entries after the earlier end).
    /// - Parameters:
    ///   - from: the position the move starts at.
    ///   - to: the position it ends at (before `from` for a move backwards).
    ///   - entities: only objects of these entities (all when `nil`).
    public func delta(from: UInt64, to: UInt64, entities: Set<String>? = nil) throws(StoreError) -> Delta {
        try delta(from: from, to: to, entities: entities, via: .automatic)
    }

    func delta(from: UInt64, to: UInt64, entities: Set<String>?, via travel: TimeTravel,
               bySlot: Bool = true) throws(StoreError) -> Delta {
        try perform(read: true) { txn in
            try self.delta(from: from, to: to, entities: entities, in: txn, via: travel, bySlot: bySlot)
        }
    }

    /// The delta; a move forwards from position 0 of one entity (a replay) is folded by slot (``SlotRows``)
    /// unless `bySlot` is `false` (tests compare the two ways).
    func delta(from: UInt64, to: UInt64, entities: Set<String>?, in txn: LMDBTransaction,
               via travel: TimeTravel = .automatic, bySlot: Bool = true) throws -> Delta {
        let head = try self.head(in: txn)
        for p in [from, to] where p > head { throw StoreError.positionPastHead(position: p, head: head) }
        if from == to { return Delta(from: from, to: to, objects: []) }
        let lo = min(from, to), hi = max(from, to)
        let forward = from < to
        // One entity: the log reader skips the others' changes without decoding them.
        let only = entities?.count == 1 ? entities?.first : nil
        // Touched objects and the seq reported for each: last in the direction of the move.
        var seqs: [ObjectKey: UInt64] = [:]
        // (A struct, not `ObjectValues?` as the dictionary value: absent objects must stay keys.)
        var states: [ObjectKey: ObjectState] = [:]
        func apply(_ change: Change) {
            guard let key = change.key else { return }
            states[key]?.apply(change)  // in place: only objects already in `states`
        }
        func touch(_ seq: UInt64, _ change: Change) -> ObjectKey? {
            guard let key = change.key else { return nil }
            if let entities, !entities.contains(key.entity) { return nil }
            if forward || seqs[key] == nil { seqs[key] = seq }
            return key
        }
        let atLo: [ObjectKey: ObjectState], atHi: [ObjectKey: ObjectState]
        // From position 0 a fold reads the range once; an undo reads it twice and the entries after it as well.
        let folds = (travel == .automatic && lo == 0) || travel.foldsForward(entriesBefore: lo, entriesAfter: head - hi)
        if folds, from == 0, bySlot, let only,
           let delta = try replayBySlot(of: only, through: to, in: txn) {
            return delta
        }
        if folds && lo == 0 {
            // From the empty store: every touched object starts absent, so one pass over 1 … hi does it all.
            try foldLog(txn, from: 1, through: hi, entity: only) { seq, change in
                guard let key = touch(seq, change) else { return }
                states[key, default: ObjectState(values: nil)].apply(change)
            }
            atLo = [:]
            atHi = states
        } else if folds {
            // Fold forwards from the empty store through hi: reads entries 1 … hi, none after hi.
            try foldLog(txn, from: lo + 1, through: hi, entity: only) { seq, change in _ = touch(seq, change) }
            for key in seqs.keys { states[key] = ObjectState(values: nil) }
            try foldLog(txn, from: 1, through: lo, entity: only) { _, change in apply(change) }
            atLo = states
            try foldLog(txn, from: lo + 1, through: hi, entity: only) { _, change in apply(change) }
            atHi = states
        } else {
            // Undo from the object rows at the head down to lo: reads entries lo + 1 … head.
            try foldLog(txn, from: lo + 1, through: hi, entity: only) { seq, change in _ = touch(seq, change) }
            for key in seqs.keys { states[key] = ObjectState(values: try objectRecord(key, in: txn)?.values) }
            try undoLog(txn, from: hi + 1, through: head, entity: only) { _, inverse in apply(inverse) }
            atHi = states
            try undoLog(txn, from: lo + 1, through: hi, entity: only) { _, inverse in apply(inverse) }
            atLo = states
        }
        let schemaLo = try schema(at: lo, in: txn)
        let schemaHi = try schema(at: hi, in: txn)
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
        if schemaLo != schemaHi { schemaChange = forward ? schemaHi : schemaLo }
        return Delta(from: from, to: to, objects: objects, schemaChange: schemaChange)
    }
}

extension LogStore {
    /// The delta from position 0 to `to` of `entity`'s objects, folded by slot: one pass over entries 1 … `to`,
    /// each object's kept once, its values decoded straight into slots. `nil` when the log names an attribute the
    /// schema at `to` lacks (the caller folds by name).
    private func replayBySlot(of entity: String, through to: UInt64, in txn: LMDBTransaction) throws -> Delta? {
        let schemaLo = try schema(at: 0, in: txn), schemaHi = try schema(at: to, in: txn)
        guard let description = schemaHi.entities[entity] else { return nil }
        var rows = SlotRows(layout: SlotLayout(attributes: description.attributes))
        guard try slotFold(txn, from: 1, through: to, entity: entity, undo: false, into: &rows) else { return nil }
        let output = rows.output(description.attributes)
        var objects: [ObjectDelta] = []
        objects.reserveCapacity(rows.count)
        for r in rows.rowsInIDOrder() {
            objects.append(ObjectDelta(key: ObjectKey(entity: entity, id: rows.ids[r]), before: nil,
                                       after: rows.values(ofRow: r, canonicalFor: output), seq: rows.seq(ofRow: r)))
        }
        return Delta(from: 0, to: to, objects: objects, schemaChange: schemaLo != schemaHi ? schemaHi : nil)
    }
}

/// An object's values at a position, `nil` when it does not exist there.
struct ObjectState {
    var values: ObjectValues?

    /// Applies an insert, update or delete of this object, in place (an update does not copy the values).
    @inline(__always)
    mutating func apply(_ change: Change) {
        ObjectValues.apply(change, to: &values)
    }
}
