@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Log entries read per read transaction when scanning: bounds how long one reader stays open.
    static let scanChunkEntries = 4096

    /// Transactions `from + 1 … to` (`from` defaults to the horizon, `to` to the head), in seq order.
    /// - Throws: ``StoreError/positionPastHead(position:head:)``; ``StoreError/compacted(position:horizon:)`` for a
    ///   `from` below the horizon; ``StoreError/corrupt(seq:reason:)`` naming a damaged entry.
    public func transactions(after from: UInt64? = nil, through to: UInt64? = nil) throws(StoreError) -> [Transaction] {
        var out: [Transaction] = []
        try forEachTransaction(after: from, through: to) { out.append($0) }
        return out
    }

    /// Calls `body` with transactions `from + 1 … to` in seq order (`from` defaults to the horizon, `to` to the
    /// head), reading the log in short read transactions of `scanChunkEntries` entries (the log is append-only, so
    /// entries read never change).
    public func forEachTransaction(after from: UInt64? = nil, through to: UInt64? = nil,
                                   _ body: (Transaction) throws -> Void) throws(StoreError) {
        let (from, end) = try perform(read: true) { txn in
            let horizon = try self.horizon(in: txn)
            let end = try self.reachable(to, in: txn).position
            return (try self.reachable(from ?? horizon, in: txn).position, end)
        }
        var next = from + 1
        while next <= end {
            let chunk: [Transaction] = try perform(read: true) { txn in
                try self.readTransactions(txn, from: next, through: min(end, next + UInt64(Self.scanChunkEntries) - 1))
            }
            for t in chunk { try wrapBody { try body(t) } }
            next += UInt64(chunk.count)
        }
    }

    private func wrapBody(_ body: () throws -> Void) throws(StoreError) {
        do { try body() } catch let e as StoreError { throw e } catch { throw .storage("\(error)") }
    }

    /// Reads and decodes entries `from … through` (inclusive) in `txn`, checking contiguity.
    package func readTransactions(_ txn: LMDBTransaction, from: UInt64, through: UInt64) throws -> [Transaction] {
        guard from <= through else { return [] }
        var out: [Transaction] = []
        out.reserveCapacity(Int(min(through - from + 1, 65_536)))
        var expected = from
        try txn.scan(logDB, from: .atLeast(bigEndianBytes(from))) { e in
            try self.checkLogKey(e.key, expected: expected, in: txn)
            do { out.append(try TransactionCodec.decode(e.value, expectedSeq: expected)) } catch {
                throw StoreError.corrupt(seq: expected, reason: "\(error)")
            }
            expected += 1
            return expected <= through ? .next : .stop
        }
        if expected <= through { throw missingEntry(expected, in: txn) }
        return out
    }

    /// The object's values at the head, or at `position`; `nil` when it does not exist there.
    ///
    /// An older position is computed from the log, whichever way costs less: folding the object's changes
    /// forwards from the empty store or the nearest checkpoint below (the entries up to the position), or undoing
    /// them from the nearest checkpoint above or the head (the entries after the position), which costs more per
    /// entry — it folds unless the entries before outnumber those after by more than a third. Only the entries on
    /// that side are read.
    public func object(_ key: ObjectKey, at position: UInt64? = nil) throws(StoreError) -> ObjectValues? {
        try object(key, at: position, via: .automatic)
    }

    package func object(_ key: ObjectKey, at position: UInt64?, via travel: TimeTravel) throws(StoreError) -> ObjectValues? {
        try perform(read: true) { txn in
            let (p, head) = try self.reachable(position, in: txn)
            // An object of an entity the schema lacks at p, or with an id its entity cannot have, is absent there
            // (and such a key has no LMDB key to look up).
            guard let entity = try self.schema(at: p, in: txn).entities[key.entity],
                  (try? entity.checkID(key.id)) != nil else { return nil }
            func canonical(_ values: ObjectValues?) -> ObjectValues? {
                guard let values else { return nil }
                return entity.canonical(values)
            }
            let record = try self.objectRecord(key, in: txn)
            if let record, record.seq <= p { return canonical(record.values) }  // unchanged since p
            // From the nearest known state: the empty store or a checkpoint below, a checkpoint or the head above.
            let start = try self.timeTravelStart(from: p, to: p, head: head, via: travel, in: txn)
            var state = ObjectState(values: nil)
            if start.folds {
                if start.base > 0 { state.values = try self.objectRecord(key, at: start.storedRows, in: txn)?.values }
                try self.foldLog(txn, from: start.base + 1, through: p, entity: key.entity) { _, change in
                    if change.key?.id == key.id { state.apply(change) }
                }
            } else {
                // The head's record is read already.
                state.values = start.storedRows == nil ? record?.values : try self.objectRecord(key, at: start.storedRows, in: txn)?.values
                try self.undoLog(txn, from: p + 1, through: start.base, entity: key.entity) { _, inverse in
                    if inverse.key?.id == key.id { state.apply(inverse) }
                }
            }
            return canonical(state.values)
        }
    }

    /// Every object of `entity` at the head or at `position`, in id order.
    ///
    /// An older position is computed from the log, whichever way costs less (it folds unless the entries before
    /// outnumber those after by more than a third): folding the entity's changes forwards from the empty store or
    /// the nearest checkpoint below (``CheckpointPolicy``), or undoing them from the nearest checkpoint above or the
    /// object rows at the head. Only the entries on that side are read, one at a time.
    public func objects(of entity: String, at position: UInt64? = nil) throws(StoreError) -> [(id: ObjectID, values: ObjectValues)] {
        try objects(of: entity, at: position, via: .automatic)
    }

    /// Every object of `entity` at `position`, as ``objects(of:at:)``; only `attributes` (some of the entity's, in
    /// its order) when given, the others left out of the values — for a caller that reads no other (a results
    /// controller: ``ViewPlan/attributesRead(of:)``).
    ///
    /// An older position is folded by slot (``SlotRows``), decoding only the kept attributes' values; by name
    /// (``EntityState``) when the log names an attribute the schema lacks, or when `bySlot` is `false` (tests
    /// compare the two).
    package func objects(of entity: String, at position: UInt64?, via travel: TimeTravel = .automatic,
                 reading attributes: [Attribute]? = nil, bySlot: Bool = true) throws(StoreError) -> [(id: ObjectID, values: ObjectValues)] {
        try perform(read: true) { txn in
            let (p, head) = try self.reachable(position, in: txn)
            guard let description = try self.schema(at: p, in: txn).entities[entity] else { return [] }
            let output = attributes ?? description.attributes
            if p == head { return try self.headObjects(of: entity, in: txn, canonicalFor: output) }
            if bySlot, let rows = try self.objectsBySlot(of: entity, at: p, head: head, via: travel,
                                                         described: description, output: output, in: txn) {
                return rows
            }
            // The empty store is a base only while the log starts at 1.
            let folds = try self.horizon(in: txn) == 0 && travel.foldsForward(entriesBefore: p, entriesAfter: head - p)
            var state: EntityState
            if folds {
                state = EntityState()
                try self.foldLog(txn, from: 1, through: p, entity: entity) { _, change in state.apply(change) }
            } else {
                state = EntityState(try self.headObjects(of: entity, in: txn))
                try self.undoLog(txn, from: p + 1, through: head, entity: entity) { _, inverse in state.apply(inverse) }
            }
            let rows = state.rows()
            if let attributes {
                let kept = SlotLayout(attributes: description.attributes, keeping: attributes).kept
                return rows.map { (id: $0.id, values: description.canonical($0.values).filter { v in kept.contains { $0.name == v.key } }) }
            }
            return rows.map { (id: $0.id, values: description.canonical($0.values)) }
        }
    }

    /// ``objects(of:at:via:reading:bySlot:)`` at an older position `p`, folded by slot (see
    /// ``foldBySlot(_:at:head:via:described:keeping:in:)``). `nil` when the log names an attribute the schema does
    /// not have (the caller folds by name).
    private func objectsBySlot(of entity: String, at p: UInt64, head: UInt64, via travel: TimeTravel,
                               described description: EntityDescription,
                               output: [Attribute], in txn: LMDBTransaction) throws -> [(id: ObjectID, values: ObjectValues)]? {
        let rows = try foldBySlot(entity, at: p, head: head, via: travel, described: description, keeping: output, in: txn)
        return rows.map { $0.existingRows(canonicalFor: $0.output(output)) }
    }

    /// The objects of `entity` at an older position `p` in slots, keeping `keeping`'s attributes. The state starts
    /// from the nearest known state on either side — the empty store or a checkpoint at or below `p`, a checkpoint
    /// or the head at or above it (``TimeTravel/automatic`` chooses by the entries each way; the other cases use
    /// no checkpoint) — and folds the entries between forwards, or undoes them. `nil` when the log names an
    /// attribute the schema does not have.
    private func foldBySlot(_ entity: String, at p: UInt64, head: UInt64, via travel: TimeTravel,
                            described description: EntityDescription,
                            keeping: [Attribute], in txn: LMDBTransaction) throws -> SlotRows? {
        let start = try timeTravelStart(from: p, to: p, head: head, via: travel, in: txn)
        let base = start.base, folds = start.folds
        // Names resolve against the schema of the newest entry read: schemas only add attributes, so it knows
        // every name the entries read can hold (else the fold reports it and the caller folds by name).
        guard let resolving = folds ? description : try self.schema(at: base, in: txn).entities[entity] else { return nil }
        // Starting from stored rows, room for as many as the head has (of every entity: an upper bound when one
        // entity dominates, as a view's usually does), so that loading them grows no array.
        let capacity = base > 0 ? min(try txn.statistics(objectsDB).entries, Self.slotRowsReserveMax) : 0
        var rows = SlotRows(layout: SlotLayout(attributes: resolving.attributes, keeping: keeping), capacity: capacity)
        if base > 0 {
            try forEachObject(of: entity, storedAt: start.storedRows, reading: rows.layout.kept, in: txn) { id, fetched, _ in
                rows.appendExisting(id, fetched)
            }
        }
        if folds {
            guard try slotFold(txn, from: base + 1, through: p, entity: entity, undo: false, into: &rows) else { return nil }
        } else {
            guard try slotFold(txn, from: p + 1, through: base, entity: entity, undo: true, into: &rows) else { return nil }
        }
        return rows
    }

    /// Calls `visit` with the id of every object of `entity` at the older position `p` (below the head), in id
    /// order, and its values of `attributes` (some of the entity's, in its order) in one ``FetchedValues`` reused for
    /// every object; for each object `visit` accepts, calls `member` with its values of every attribute of the
    /// entity at `p` in the entity's order (`null` where it has none) — folded by slot, as ``objects(of:at:)``
    /// computes them, without a dictionary per object, and the whole values only for accepted objects. Neither
    /// closure may keep the values past its call.
    /// - Returns: `false`, calling nothing, when the log names an attribute the schema lacks (the caller reads
    ///   ``objects(of:at:)`` instead).
    package func forEachObject(of entity: EntityDescription, at p: UInt64, reading attributes: [Attribute], in txn: LMDBTransaction,
                       visit: (ObjectID, FetchedValues) -> Bool, member: (ObjectID, [Value]) -> Void) throws -> Bool {
        let head = try self.head(in: txn)
        precondition(p < head, "forEachObject(of:at:) is for positions below the head")
        guard let rows = try foldBySlot(entity.name, at: p, head: head, via: .automatic, described: entity,
                                        keeping: entity.attributes, in: txn) else { return false }
        let fetched = FetchedValues(attributes: attributes)
        rows.forEachExistingRow(reading: rows.output(attributes), into: fetched, all: rows.output(entity.attributes),
                                visit: visit, member: member)
        return true
    }

    /// Objects of `entity` at the head, in id order; with `attributes` (sorted by name, as an entity's), their
    /// values in the canonical form of those attributes (decoded straight into it, see
    /// ``ByteReader/objectValues(canonicalFor:)``).
    func headObjects(of entity: String, in txn: LMDBTransaction,
                     canonicalFor attributes: [Attribute]? = nil) throws -> [(id: ObjectID, values: ObjectValues)] {
        let format = try self.format(in: txn)
        var out: [(id: ObjectID, values: ObjectValues)] = []
        try forEachStoredRecord(of: entity, at: nil, in: txn, format: format) { id, key, value throws(CodecError) in
            if let attributes {
                out.append((id, try ObjectRecordCodec.decode(value, key: key, format: format, canonicalFor: attributes)))
            } else {
                out.append((id, try ObjectRecordCodec.decode(value, key: key, format: format).values))
            }
        }
        // Key order is id order for int ids (big-endian, sign flipped) but not always for strings vs the view
        // tie-break order, which both use code points: byte order of UTF-8 is code-point order.
        return out
    }

    /// Calls `body` with the id of every object of `entity` at the head, in key order, and its values of
    /// `attributes` (sorted by name, as an entity's) in one ``FetchedValues`` reused for every object: nothing is
    /// allocated per object. `body` must not keep the values past its call.
    package func forEachHeadObject(of entity: String, reading attributes: [Attribute], in txn: LMDBTransaction,
                           _ body: (ObjectID, FetchedValues) -> Void) throws {
        try forEachHeadObject(of: entity, reading: attributes, in: txn) { id, fetched, _ in body(id, fetched) }
    }

    /// ``forEachHeadObject(of:reading:in:_:)``, giving `body` also the object's whole values as their stored,
    /// checked encoding (object values: `schema/log-format.md`), valid only during the call.
    package func forEachHeadObject(of entity: String, reading attributes: [Attribute], in txn: LMDBTransaction,
                           _ body: (ObjectID, FetchedValues, UnsafeRawBufferPointer) -> Void) throws {
        try forEachObject(of: entity, storedAt: nil, reading: attributes, in: txn, body)
    }

    /// ``forEachHeadObject(of:reading:in:_:)`` over the object rows at the head (`checkpoint` `nil`) or the rows of
    /// the complete checkpoint at seq `checkpoint`.
    package func forEachObject(of entity: String, storedAt checkpoint: UInt64?, reading attributes: [Attribute], in txn: LMDBTransaction,
                       _ body: (ObjectID, FetchedValues, UnsafeRawBufferPointer) -> Void) throws {
        let format = try self.format(in: txn)
        let fetched = FetchedValues(attributes: attributes)
        let names = AttributeNames(attributes)
        var shape = RecordShape()
        try forEachStoredRecord(of: entity, at: checkpoint, in: txn, format: format) { id, key, value throws(CodecError) in
            let range = try ObjectRecordCodec.decode(value, key: key, format: format, into: fetched, names: names,
                                                     shape: &shape)
            body(id, fetched, UnsafeRawBufferPointer(rebasing: value[range]))
        }
    }

    /// Calls `body` with the id, LMDB key and record of every object of `entity` at the head (`checkpoint` `nil`)
    /// or in the checkpoint at seq `checkpoint`, in key order. A ``CodecError`` of `body` or of the id is a
    /// ``StoreError/corrupt(seq:reason:)`` naming the key; the row that ends the scan (another entity's or
    /// checkpoint's) is checked too in a store of format 2.
    private func forEachStoredRecord(
        of entity: String, at checkpoint: UInt64?, in txn: LMDBTransaction, format: Int,
        _ body: (ObjectID, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(CodecError) -> Void
    ) throws {
        let (db, keyPrefix) = storedRows(at: checkpoint)
        let prefix = keyPrefix + ObjectRecordCodec.entityPrefix(entity)
        try txn.scan(db, from: .atLeast(prefix)) { e in
            guard e.key.hasPrefix(prefix) else {
                // The key that ends the scan must be a sound record too: a damaged key of this entity (one byte
                // of its entity name changed) would otherwise end the scan early and silently drop the rest.
                if format >= 2 {
                    do { _ = try ObjectRecordCodec.decode(e.value, key: e.key, format: format) } catch {
                        throw StoreError.corrupt(seq: nil, reason: "\(Self.describeRow(e.key, checkpoint: checkpoint, "after \(entity)'s")): \(error)"
                                                     + (checkpoint == nil ? "" : Self.checkpointRepairHint))
                    }
                }
                return .stop
            }
            do {
                try body(try ObjectRecordCodec.decodeID(e.key, prefixCount: prefix.count), e.key, e.value)
            } catch {
                throw StoreError.corrupt(seq: nil, reason: "\(Self.describeRow(e.key, checkpoint: checkpoint, "of \(entity)")): \(error)"
                                             + (checkpoint == nil ? "" : Self.checkpointRepairHint))
            }
            return .next
        }
    }

    /// Names a stored row for an error, `relation` saying how it relates to the entity read ("of E"): an object
    /// record by its key, or a checkpoint's row by its seq and key.
    static func describeRow(_ key: UnsafeRawBufferPointer, checkpoint: UInt64?, _ relation: String) -> String {
        guard checkpoint != nil, key.count >= 8, let seq = uint64FromBigEndian(UnsafeRawBufferPointer(rebasing: key[..<8])) else {
            return "object record \(relation) (key \(ObjectRecordCodec.describeKey(key)))"
        }
        let objectKey = UnsafeRawBufferPointer(rebasing: key[8...])
        return "row of the checkpoint at seq \(seq) \(relation) (key \(ObjectRecordCodec.describeKey(objectKey)))"
    }

    /// Where stored rows are: the object rows at the head (`checkpoint` `nil`: the `objects` database, keys as they
    /// are) or the rows of the checkpoint at seq `checkpoint` (the `checkpoints` database, keys after the seq).
    func storedRows(at checkpoint: UInt64?) -> (db: LMDBDatabase, keyPrefix: [UInt8]) {
        guard let checkpoint else { return (objectsDB, []) }
        guard let checkpoints = checkpointsDB else { preconditionFailure("a checkpoint read without a checkpoints database") }
        return (checkpoints, bigEndianBytes(checkpoint))
    }

    /// The most rows a fold reserves room for ahead (a store of many entities, most not the one read, would
    /// otherwise reserve for all of them).
    static let slotRowsReserveMax = 4_000_000
}
