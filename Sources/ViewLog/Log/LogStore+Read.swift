import LMDB

extension LogStore {
    /// Log entries read per read transaction when scanning: bounds how long one reader stays open.
    static let scanChunkEntries = 4096

    /// Transactions `from + 1 … to` (`to` defaults to the head), in seq order.
    /// - Throws: ``StoreError/positionPastHead(position:head:)``; ``StoreError/corrupt(seq:reason:)`` naming a
    ///   damaged entry.
    public func transactions(after from: UInt64 = 0, through to: UInt64? = nil) throws(StoreError) -> [Transaction] {
        var out: [Transaction] = []
        try forEachTransaction(after: from, through: to) { out.append($0) }
        return out
    }

    /// Calls `body` with transactions `from + 1 … to` in seq order, reading the log in short read transactions
    /// of ``scanChunkEntries`` entries (the log is append-only, so entries read never change).
    public func forEachTransaction(after from: UInt64 = 0, through to: UInt64? = nil,
                                   _ body: (Transaction) throws -> Void) throws(StoreError) {
        let head = try self.head
        let end = to ?? head
        guard end <= head else { throw .positionPastHead(position: end, head: head) }
        guard from <= head else { throw .positionPastHead(position: from, head: head) }
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
    func readTransactions(_ txn: LMDBTransaction, from: UInt64, through: UInt64) throws -> [Transaction] {
        guard from <= through else { return [] }
        var out: [Transaction] = []
        out.reserveCapacity(Int(min(through - from + 1, 65_536)))
        try txn.withCursor(logDB) { cursor in
            var entry = try cursor.seek(atLeast: bigEndianBytes(from))
            var expected = from
            while let e = entry, expected <= through {
                guard let seq = uint64FromBigEndian(e.key) else {
                    throw StoreError.corrupt(seq: expected, reason: "log key of \(e.key.count) bytes")
                }
                guard seq == expected else {
                    throw StoreError.corrupt(seq: expected, reason: "missing from the log (next entry is \(seq))")
                }
                do { out.append(try TransactionCodec.decode(e.value, expectedSeq: seq)) } catch {
                    throw StoreError.corrupt(seq: seq, reason: "\(error)")
                }
                expected += 1
                entry = try cursor.next()
            }
            if expected <= through { throw StoreError.corrupt(seq: expected, reason: "missing from the log") }
        }
        return out
    }

    /// The object's values at the head, or at `position`; `nil` when it does not exist there.
    public func object(_ key: ObjectKey, at position: UInt64? = nil) throws(StoreError) -> ObjectValues? {
        try perform(read: true) { txn in
            let head = try self.head(in: txn)
            let p = position ?? head
            guard p <= head else { throw StoreError.positionPastHead(position: p, head: head) }
            let entity = try self.schema(at: p, in: txn).entities[key.entity]
            func canonical(_ values: ObjectValues?) -> ObjectValues? {
                guard let values else { return nil }
                return entity?.canonical(values) ?? values
            }
            let record = try self.objectRecord(key, in: txn)
            if let record, record.seq <= p { return canonical(record.values) }  // unchanged since p
            var state = record?.values
            // Walk back from the head, undoing every change of this object after p.
            var seq = head
            while seq > p {
                let low = seq > UInt64(Self.scanChunkEntries) ? max(p + 1, seq - UInt64(Self.scanChunkEntries) + 1) : p + 1
                Self.undo(try self.readTransactions(txn, from: low, through: seq)) { k, inverse in
                    if k == key { state = ObjectValues.applying(inverse, to: state) }
                }
                seq = low - 1
            }
            return canonical(state)
        }
    }

    /// Every object of `entity` at the head or at `position`, in id order.
    ///
    /// An older position is computed from the log, whichever way is shorter: undoing the changes after it from
    /// the head, or replaying from empty (DESIGN §6).
    public func objects(of entity: String, at position: UInt64? = nil) throws(StoreError) -> [(id: ObjectID, values: ObjectValues)] {
        try perform(read: true) { txn in
            let head = try self.head(in: txn)
            let p = position ?? head
            guard p <= head else { throw StoreError.positionPastHead(position: p, head: head) }
            guard let description = try self.schema(at: p, in: txn).entities[entity] else { return [] }
            if p == head { return try self.headObjects(of: entity, in: txn).map { ($0.id, description.canonical($0.values)) } }
            var state: [ObjectID: ObjectValues] = [:]
            if head - p <= p {
                for (id, values) in try self.headObjects(of: entity, in: txn) { state[id] = values }
                Self.undo(try self.readTransactions(txn, from: p + 1, through: head)) { _, inverse in
                    Self.apply(inverse, entity: entity, to: &state)
                }
            } else {
                for t in try self.readTransactions(txn, from: 1, through: p) {
                    for change in t.changes { Self.apply(change, entity: entity, to: &state) }
                }
            }
            return state.sorted { $0.key < $1.key }.map { (id: $0.key, values: description.canonical($0.value)) }
        }
    }

    /// Calls `body` with the inverse of every object change of `transactions`, last change first: replaying
    /// them takes the state after the transactions back to the state before them.
    static func undo(_ transactions: [Transaction], _ body: (ObjectKey, Change) -> Void) {
        for t in transactions.reversed() {
            for change in t.changes.reversed() {
                if let key = change.key { body(key, change.inverse) }
            }
        }
    }

    static func apply(_ change: Change, entity: String, to state: inout [ObjectID: ObjectValues]) {
        guard let key = change.key, key.entity == entity else { return }
        state[key.id] = ObjectValues.applying(change, to: state[key.id])
    }

    /// Objects of `entity` at the head, in id order.
    func headObjects(of entity: String, in txn: LMDBTransaction) throws -> [(id: ObjectID, values: ObjectValues)] {
        let prefix = ObjectRecordCodec.entityPrefix(entity)
        let format = try self.format(in: txn)
        var out: [(id: ObjectID, values: ObjectValues)] = []
        try txn.withCursor(objectsDB) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let e = entry, e.key.starts(with: prefix) {
                let key: ObjectKey, record: (values: ObjectValues, seq: UInt64)
                do {
                    key = try ObjectRecordCodec.decodeKey(e.key)
                    record = try ObjectRecordCodec.decode(e.value, key: e.key, format: format)
                } catch {
                    throw StoreError.corrupt(seq: nil, reason: "object record of \(entity) (key \(ObjectRecordCodec.describeKey(e.key))): \(error)")
                }
                out.append((key.id, record.values))
                entry = try cursor.next()
            }
        }
        // Key order is id order for int ids (big-endian, sign flipped) but not always for strings vs the view
        // tie-break order, which both use code points: byte order of UTF-8 is code-point order.
        return out
    }
}
