import LMDB

extension LogStore {
    /// Appends one transaction of `changes` by `author` and returns it as logged.
    @discardableResult
    public func append(_ changes: [ChangeRequest], author: String) throws(StoreError) -> Transaction {
        try append([TransactionRequest(author: author, changes: changes)])[0]
    }

    /// Appends `requests` as consecutive transactions in **one** LMDB write: every change is checked against
    /// the schema and the state left by the changes before it; if any is refused, nothing is appended.
    /// - Returns: the transactions as logged, with their seqs.
    /// - Throws: ``StoreError/invalidChange(transaction:change:reason:)`` naming the refused change by its
    ///   0-based transaction and change index; ``StoreError/emptyTransaction(transaction:)``; ``StoreError/emptyInput``.
    @discardableResult
    public func append(_ requests: [TransactionRequest]) throws(StoreError) -> [Transaction] {
        guard !requests.isEmpty else { throw .emptyInput }
        for (i, r) in requests.enumerated() {
            guard !r.changes.isEmpty else { throw .emptyTransaction(transaction: i) }
            guard r.changes.count <= Limits.transactionChangesMax else {
                throw .invalidChange(transaction: i, change: Limits.transactionChangesMax,
                                     reason: "more than \(Limits.transactionChangesMax) changes in one transaction")
            }
        }
        let time = Timestamp.now
        let appended = try perform { txn in try self.appendInTransaction(txn, requests, time: time) }
        if let last = appended.last { notifyHead(last.seq) }
        return appended
    }

    /// Appends `requests` inside `txn`. With `newSchema`, the first transaction starts with the schema change
    /// to it (recorded in the metadata too), and its requests are resolved against the new schema.
    /// Unless `replicated` (the replication SPI, which commits what its stream acknowledged), a replica store
    /// refuses: a local-only append would fork the log.
    func appendInTransaction(_ txn: LMDBTransaction, _ requests: [TransactionRequest], time: Timestamp,
                             newSchema: Schema? = nil, replicated: Bool = false) throws -> [Transaction] {
        if !replicated, let link = try replicaLink(in: txn) {
            throw StoreError.replica(path: path, stream: link.stream)
        }
        let format = try self.format(in: txn)
        let currentSchema = try schema(at: UInt64.max, in: txn)
        var resolver = ChangeResolver(schema: newSchema ?? currentSchema)
        var head = try self.head(in: txn)
        // The objects this write touches, in the order it first touches them, each with the state it leaves
        // (values nil: absent) and the change that left it; `slots` finds an object's place in `touched`.
        var touched: [AppendedObject] = []
        var slots: [ObjectKey: Int] = [:]
        // At most one object per change: sized once, not grown (rehashing was 5 % of a 100,000-insert write).
        let changeCount = requests.reduce(0) { $0 + $1.changes.count }
        touched.reserveCapacity(changeCount)
        slots.reserveCapacity(changeCount)
        // Each transaction's entry and, per change, the byte range of an insert's values in it (empty for other
        // changes; no array for an entry without inserts): an object whose last change is an insert gets a row
        // that copies those bytes.
        var entries: [(bytes: [UInt8], insertedValues: [Range<Int>])] = []
        entries.reserveCapacity(requests.count)
        var result: [Transaction] = []
        result.reserveCapacity(requests.count)
        for (ti, request) in requests.enumerated() {
            let seq = head + 1
            let time = request.time ?? time
            let schemaChange = ti == 0 ? newSchema : nil
            var changes: [Change] = []
            changes.reserveCapacity(request.changes.count + 1)
            // The entry is written as its changes are resolved: an insert's values go from their slots straight
            // into it, never through a dictionary sorted by name.
            var entry = EntryWriter(seq: seq, time: time, author: request.author,
                                    changeCount: request.changes.count + (schemaChange == nil ? 0 : 1))
            var insertedValues: [Range<Int>] = []
            if let newSchema = schemaChange {
                let change = Change.schema(newSchema, previous: currentSchema)
                entry.append(change)
                changes.append(change)
                try putMeta(txn, MetaKey.schema(at: seq), Array(newSchema.json.text.utf8), format: format)
            }
            for (ci, changeRequest) in request.changes.enumerated() {
                let key = changeRequest.key
                let slot = Self.slot(of: key, in: &slots, next: touched.count)
                let current: ObjectValues?
                if slot < touched.count {
                    current = touched[slot].values
                } else {
                    let rowKey = ObjectRecordCodec.key(key)
                    current = try objectRecord(rowKey, of: key, format: format, in: txn)?.values
                    touched.append(AppendedObject(rowKey: rowKey))
                }
                let change: Change
                do { change = try resolver.resolve(changeRequest, current: current) } catch {
                    throw StoreError.invalidChange(transaction: ti, change: ci, reason: error.reason)
                }
                if let expected = request.expected?[ci], expected != change {
                    throw StoreError.invalidChange(transaction: ti, change: ci,
                                                   reason: "\(key.entity) \(key.id.json.text): the store's state differs from the one this change was made on (its previous values do not match)")
                }
                if case .insert = change {
                    if insertedValues.isEmpty {
                        insertedValues = Array(repeating: 0..<0, count: request.changes.count + (schemaChange == nil ? 0 : 1))
                    }
                    insertedValues[changes.count] = entry.appendInsert(key, names: resolver.insertNames,
                                                                       values: resolver.insertValues)
                } else {
                    entry.append(change)
                }
                guard entry.count <= Limits.transactionBytesMax else {
                    throw StoreError.invalidChange(transaction: ti, change: ci,
                                                   reason: "the transaction encodes to more than \(Limits.transactionBytesMax) bytes")
                }
                touched[slot].values = ObjectValues.applying(change, to: current)
                touched[slot].seq = seq
                touched[slot].transaction = ti
                touched[slot].change = changes.count
                changes.append(change)
            }
            let bytes = entry.finish()
            try txn.put(logDB, key: bigEndianBytes(seq), value: bytes, flags: .append)
            entries.append((bytes, insertedValues))
            head = seq
            result.append(Transaction(seq: seq, time: time, author: request.author, changes: changes))
        }
        // Write objects in key order: sequential B-tree access is much faster than random. A write that touches
        // them in key order already (a bulk load of ascending ids) is not sorted; keys compare as bytes.
        func precedes(_ a: AppendedObject, _ b: AppendedObject) -> Bool {
            a.rowKey.withUnsafeBytes { x in b.rowKey.withUnsafeBytes { y in ByteReader.compare(x, y) < 0 } }
        }
        if touched.indices.dropFirst().contains(where: { !precedes(touched[$0 - 1], touched[$0]) }) {
            touched.sort(by: precedes)
        }
        for object in touched {
            guard let values = object.values else {
                try txn.delete(objectsDB, key: object.rowKey)
                continue
            }
            let entry = entries[object.transaction]
            let inserted = entry.insertedValues.isEmpty ? 0..<0 : entry.insertedValues[object.change]
            let record = inserted.isEmpty
                ? ObjectRecordCodec.encode(values: values, seq: object.seq, key: object.rowKey, format: format)
                : entry.bytes.withUnsafeBytes { b in
                    ObjectRecordCodec.encode(valueBytes: UnsafeRawBufferPointer(rebasing: b[inserted]), seq: object.seq,
                                             key: object.rowKey, format: format)
                }
            try txn.put(objectsDB, key: object.rowKey, value: record)
        }
        try putMeta(txn, MetaKey.head, bigEndianBytes(head), format: format)
        return result
    }

    /// The place of `key` in an append's `touched` objects: its slot if the write touched it already, else `next`,
    /// which becomes its slot. One hash of the key either way (the `default:` subscript's modify inserts `next`).
    @inline(__always)
    private static func slot(of key: ObjectKey, in slots: inout [ObjectKey: Int], next: Int) -> Int {
        func read(_ slot: inout Int) -> Int { slot }
        return read(&slots[key, default: next])
    }

    /// The object's record at the head: values and the seq that last changed it.
    func objectRecord(_ key: ObjectKey, format: Int? = nil, in txn: LMDBTransaction) throws -> (values: ObjectValues, seq: UInt64)? {
        try objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)
    }

    /// Reads the head row of `key` into `fetched` (its attributes' values); `false` when the object has none.
    func headRecord(_ key: ObjectKey, format: Int, into fetched: inout FetchedValues, in txn: LMDBTransaction) throws -> Bool {
        try ObjectRecordCodec.key(key).withUnsafeBytes { kb in
            guard let bytes = try txn.value(objectsDB, for: kb) else { return false }
            do { try ObjectRecordCodec.decode(bytes, key: kb, format: format, into: &fetched) } catch {
                throw StoreError.corrupt(seq: nil, reason: "object \(key): \(error)")
            }
            return true
        }
    }

    /// The record stored under `k`, the LMDB key of `key` (``ObjectRecordCodec/key(_:)``).
    func objectRecord(_ k: [UInt8], of key: ObjectKey, format: Int? = nil, in txn: LMDBTransaction) throws -> (values: ObjectValues, seq: UInt64)? {
        let format = try format ?? self.format(in: txn)
        return try k.withUnsafeBytes { kb in
            guard let bytes = try txn.value(objectsDB, for: kb) else { return nil }
            do { return try ObjectRecordCodec.decode(bytes, key: kb, format: format) } catch {
                throw StoreError.corrupt(seq: nil, reason: "object \(key): \(error)")
            }
        }
    }
}

/// An object an append touches: its LMDB key, the values the write leaves it (`nil`: absent), the seq that last
/// changed it, and where that change is (`transaction` among the write's requests, `change` among that entry's
/// changes).
private struct AppendedObject {
    let rowKey: [UInt8]
    var values: ObjectValues?
    var seq: UInt64 = 0
    var transaction = 0
    var change = 0

    init(rowKey: [UInt8]) { self.rowKey = rowKey }
}
