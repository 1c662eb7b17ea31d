@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// The move of a position from `from` to `to` (either direction), reduced to the objects it touched —
    /// each once, with its full values at both ends (the change-set rules: a batch compares before with after).
    ///
    /// Reads one short read transaction. The states come from the log, whichever way costs less (it folds
    /// unless the entries before outnumber those after by more than a third):
    /// folding the touched objects' changes forwards from the empty store, or undoing them from the object rows at
    /// the head. A delta of a few named entities (a context's views) starts from the nearest complete checkpoint
    /// instead when one is nearer: below the earlier end to fold, above the later end to undo.
    /// - Parameters:
    ///   - from: the position the move starts at.
    ///   - to: the position it ends at (before `from` for a move backwards).
    ///   - entities: only objects of these entities (all when `nil`).
    public func delta(from: UInt64, to: UInt64, entities: Set<String>? = nil) throws(StoreError) -> Delta {
        try delta(from: from, to: to, entities: entities, via: .automatic)
    }

    package func delta(from: UInt64, to: UInt64, entities: Set<String>?, via travel: TimeTravel,
               bySlot: Bool = true) throws(StoreError) -> Delta {
        try perform(read: true) { txn in
            try self.delta(from: from, to: to, entities: entities, in: txn, via: travel, bySlot: bySlot)
        }
    }

    /// The delta; a delta of up to ``slotDeltaEntitiesMax`` named entities is folded by slot (``SlotRows``) unless
    /// `bySlot` is `false` (tests compare the two ways) or the log names an attribute the schema lacks.
    ///
    /// Across migrations (DESIGN §13), the one place names are carried through them: the objects are folded under
    /// every name their entity has along the move, then each is named as at `to` — its state at `from` carried to
    /// `to`'s names (``MigrationCarry``), merged with its state at `to` — and kept only when the two differ, so that a
    /// rename alone is no change and a converted value that differs is one. The delta holds the carry for its
    /// controllers to rename their requests by.
    package func delta(from: UInt64, to: UInt64, entities: Set<String>?, in txn: LMDBTransaction,
               via travel: TimeTravel = .automatic, bySlot: Bool = true) throws -> Delta {
        let folded = try foldedDelta(from: from, to: to, entities: entities, in: txn, via: travel, bySlot: bySlot)
        // Only a move whose schemas differ can pass a migration: the common move reads nothing more.
        guard folded.schemaChange != nil else { return folded }
        guard let carry = try migrationCarry(from: from, to: to, in: txn) else { return folded }
        let names = entities.map { Set($0.flatMap(carry.namesAlong)) }
        let across = names == entities ? folded
            : try foldedDelta(from: from, to: to, entities: names, in: txn, via: travel, bySlot: false)
        let forward = from < to
        var merged: [ObjectKey: ObjectDelta] = [:]
        func touch(_ key: ObjectKey, _ seq: UInt64, _ set: (inout ObjectDelta) -> Void) {
            var d = merged[key] ?? ObjectDelta(key: key, before: nil, after: nil, seq: seq)
            d.seq = forward ? max(d.seq, seq) : min(d.seq, seq)
            set(&d)
            merged[key] = d
        }
        for d in across.objects {
            // Its state at `from` is named as at `from`; at `to`, as at `to`.
            if let before = d.before {
                touch(ObjectKey(entity: carry.entity(d.key.entity), id: d.key.id), d.seq) {
                    $0.before = carry.values(before, of: d.key.entity)
                }
            }
            if let after = d.after { touch(d.key, d.seq) { $0.after = after } }
        }
        let objects = merged.values.filter { $0.before != $0.after }.sorted { $0.key < $1.key }
        return Delta(from: from, to: to, objects: objects, schemaChange: folded.schemaChange, carry: carry)
    }

    /// The delta of ``delta(from:to:entities:in:via:bySlot:)`` as the log names its objects (no names carried).
    private func foldedDelta(from: UInt64, to: UInt64, entities: Set<String>?, in txn: LMDBTransaction,
                             via travel: TimeTravel, bySlot: Bool) throws -> Delta {
        let head = try self.head(in: txn)
        for p in [from, to] { _ = try reachable(p, in: txn) }
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
        // The empty store is a base only while the log starts at 1.
        let fromEmpty = try horizon(in: txn) == 0
        let folds = (travel == .automatic && lo == 0)
            || (fromEmpty && travel.foldsForward(entriesBefore: lo, entriesAfter: head - hi))
        // By slot, one entity at a time (each a pass over the entries; a few entities, as a context's views
        // observe): a replay from position 0 in one pass, any other move as `deltaBySlot`.
        if bySlot, let entities, !entities.isEmpty, entities.count <= Self.slotDeltaEntitiesMax {
            var objects: [ObjectDelta] = [], schemaChange: Schema?, complete = true
            // By slot, the touched objects' states start from the nearest known state: the empty store or a
            // checkpoint at or below lo, a checkpoint or the head at or above hi.
            let start = try timeTravelStart(from: lo, to: hi, head: head, via: travel, in: txn)
            for entity in entities {
                let part = folds && from == 0
                    ? try replayBySlot(of: entity, through: to, in: txn)
                    : try deltaBySlot(of: entity, from: from, to: to, start: start, in: txn)
                guard let part else { complete = false; break }
                objects += part.objects
                schemaChange = part.schemaChange
            }
            if complete {
                if entities.count > 1 { objects.sort { $0.key < $1.key } }
                return Delta(from: from, to: to, objects: objects, schemaChange: schemaChange)
            }
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
    /// The most entities a delta folds by slot, one pass over the entries each; more are folded by name in one.
    static let slotDeltaEntitiesMax = 4

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

extension LogStore {
    /// The delta of `entity`'s objects from `from` to `to` (either direction, neither 0 → forwards), folded by
    /// slot: the touched objects from entries lo + 1 … hi (ids only, no value decoded), then their states at
    /// `start.base` — the empty store (0), a complete checkpoint, or the head rows — folded forwards from it
    /// (`start.folds`, base ≤ lo) or undone from it (base ≥ hi), each pass applying only to them. `nil` when the log names an attribute
    /// the schema lacks or a schema of the move lacks the entity (the caller folds by name).
    private func deltaBySlot(of entity: String, from: UInt64, to: UInt64, start: TimeTravelStart,
                             in txn: LMDBTransaction) throws -> Delta? {
        let base = start.base, folds = start.folds, head = start.head
        let lo = min(from, to), hi = max(from, to), forward = from < to
        precondition(folds ? base <= lo : base >= hi && base <= head, "a delta's base state on the wrong side of the move")
        let schemaLo = try schema(at: lo, in: txn), schemaHi = try schema(at: hi, in: txn)
        // Names resolve against the schema of the newest entry read: schemas only add attributes.
        guard let atLoEntity = schemaLo.entities[entity], let atHiEntity = schemaHi.entities[entity],
              let resolving = folds ? atHiEntity : try schema(at: base, in: txn).entities[entity] else { return nil }
        // The touched objects, each with the seq it reports: the last in the direction of the move (a pass
        // backwards over lo + 1 … hi applies the lowest seq last).
        var touched = SlotRows(layout: SlotLayout(attributes: resolving.attributes, keeping: []))
        guard try slotFold(txn, from: lo + 1, through: hi, entity: entity, undo: !forward, into: &touched) else { return nil }
        var rows = SlotRows(layout: SlotLayout(attributes: resolving.attributes), capacity: touched.count)
        let low: [ObjectValues?], high: [ObjectValues?]
        func states(_ description: EntityDescription) -> [ObjectValues?] {
            let output = rows.output(description.attributes)
            return (0..<rows.count).map { rows.values(ofRow: $0, canonicalFor: output) }
        }
        // The touched objects' states at the base: absent in the empty store, else their stored rows.
        if base == 0 {
            for id in touched.ids { rows.appendAbsent(id) }
        } else {
            let format = try self.format(in: txn)
            let fetched = FetchedValues(attributes: rows.layout.kept)
            for id in touched.ids {
                if try storedRecord(ObjectKey(entity: entity, id: id), at: start.storedRows, format: format,
                                    into: fetched, in: txn) {
                    rows.appendExisting(id, fetched)
                } else {
                    rows.appendAbsent(id)
                }
            }
        }
        if folds {
            guard try slotFold(txn, from: base + 1, through: lo, entity: entity, undo: false, onlyKnown: true, into: &rows) else { return nil }
            low = states(atLoEntity)
            guard try slotFold(txn, from: lo + 1, through: hi, entity: entity, undo: false, onlyKnown: true, into: &rows) else { return nil }
            high = states(atHiEntity)
        } else {
            guard try slotFold(txn, from: hi + 1, through: base, entity: entity, undo: true, onlyKnown: true, into: &rows) else { return nil }
            high = states(atHiEntity)
            guard try slotFold(txn, from: lo + 1, through: hi, entity: entity, undo: true, onlyKnown: true, into: &rows) else { return nil }
            low = states(atLoEntity)
        }
        var objects: [ObjectDelta] = []
        objects.reserveCapacity(touched.count)
        for r in touched.rowsInIDOrder() {
            objects.append(ObjectDelta(key: ObjectKey(entity: entity, id: touched.ids[r]), before: forward ? low[r] : high[r],
                                       after: forward ? high[r] : low[r], seq: touched.seq(ofRow: r)))
        }
        var schemaChange: Schema?
        if schemaLo != schemaHi { schemaChange = forward ? schemaHi : schemaLo }
        return Delta(from: from, to: to, objects: objects, schemaChange: schemaChange)
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
