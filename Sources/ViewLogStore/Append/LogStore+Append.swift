@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Appends one transaction of `changes` by `author` and returns it as logged.
    @discardableResult
    public func append(_ changes: [ChangeRequest], author: String) throws(StoreError) -> Transaction {
        try append([TransactionRequest(author: author, changes: changes)])[0]
    }

    /// Appends `requests` as consecutive transactions in **one** LMDB write: every change is checked against
    /// the schema and the state left by the changes before it; if any is refused, nothing is appended.
    /// - Returns: the transactions as logged, with their seqs, one per request: a request whose changes by predicate
    ///   all matched nothing appends nothing and is returned with seq 0 and no changes.
    /// - Throws: ``StoreError/invalidChange(transaction:change:reason:)`` naming the refused change by its
    ///   0-based transaction and change index; ``StoreError/emptyTransaction(transaction:)``; ``StoreError/emptyInput``.
    @discardableResult
    public func append(_ requests: [TransactionRequest]) throws(StoreError) -> [Transaction] {
        guard !requests.isEmpty else { throw .emptyInput }
        try Self.checkShape(of: requests)
        let time = Timestamp.now
        let appended = try perform { txn in try self.appendInTransaction(txn, requests, time: time) }
        if let last = appended.last(where: { $0.seq != 0 }) { notifyHead(last.seq) }
        return appended
    }

    /// Appends the transactions `next` gives, batch after batch until it returns `nil`, as consecutive
    /// transactions in **one** LMDB write: all or nothing, as ``append(_:)-([TransactionRequest])`` with all the
    /// batches at once, but holding one batch in memory at a time (a bulk load reads its input batch by batch).
    ///
    /// A write that fills the store's map is rolled back and run again once the map has grown, from the first
    /// batch. With `rewind`, that run calls `rewind` and then reads the batches from `next` again (`rewind` must
    /// make `next` start over). Without it, the batches read are kept, to be given again, so the whole input is
    /// held in memory.
    /// - Returns: the seqs appended, in order, one per request: 0 for a request that appended nothing (its changes by
    ///   predicate all matched nothing).
    /// - Throws: what `next` or `rewind` throws, as it is (nothing is appended); otherwise a ``StoreError`` as
    ///   ``append(_:)-([TransactionRequest])`` throws it, its transaction index counted over all the batches.
    public func append(batches next: () throws -> [TransactionRequest]?,
                       rewind: (() throws -> Void)? = nil) throws -> [UInt64] {
        let time = Timestamp.now
        var seqs: [UInt64] = []
        var producerError: (any Error)?
        var kept: [[TransactionRequest]] = []  // without `rewind`: the batches read, for a write that runs again
        var runs = 0
        do {
            try perform { txn in
                // The write runs again after the map grows (`LMDBEnvironment.write`): from the first batch.
                runs += 1
                seqs.removeAll()
                var given = 0  // batches of `kept` given in this run
                if runs > 1, let rewind {
                    do { try rewind() } catch {
                        producerError = error
                        throw error
                    }
                }
                while true {  // bounded by `next`: one batch per step
                    let batch: [TransactionRequest]
                    if rewind == nil, given < kept.count {
                        batch = kept[given]
                    } else {
                        do {
                            guard let b = try next() else { break }
                            batch = b
                        } catch {
                            producerError = error
                            throw error  // aborts the write
                        }
                        if rewind == nil { kept.append(batch) }
                    }
                    given += 1
                    let before = seqs.count
                    do {
                        try Self.checkShape(of: batch)
                        let appended = try self.appendInTransaction(txn, batch, time: time)
                        seqs.reserveCapacity(before + appended.count)
                        for t in appended { seqs.append(t.seq) }
                    } catch let error as StoreError {
                        throw error.countingTransactions(from: before)
                    }
                }
                guard !seqs.isEmpty else { throw StoreError.emptyInput }
            }
        } catch {
            throw producerError ?? error
        }
        if let last = seqs.last(where: { $0 != 0 }) { notifyHead(last) }
        return seqs
    }

    /// Refuses an empty transaction or one with too many changes.
    static func checkShape(of requests: [TransactionRequest]) throws(StoreError) {
        for (i, r) in requests.enumerated() {
            guard !r.changes.isEmpty else { throw .emptyTransaction(transaction: i) }
            guard r.changes.count <= Limits.transactionChangesMax else {
                throw .invalidChange(transaction: i, change: Limits.transactionChangesMax,
                                     reason: "more than \(Limits.transactionChangesMax) changes in one transaction")
            }
        }
    }

    /// Appends `requests` inside `txn`. With `newSchema`, the first transaction starts with the schema change
    /// to it (recorded in the metadata too), and its requests are resolved against the new schema. With `migration`
    /// too, that change is the migration, and the requests (its rewrite) are resolved against the new schema with
    /// the entities it renamed or removed (their objects' deletes).
    /// Unless `replicated` (the replication SPI, which commits what its stream acknowledged), a replica store
    /// refuses: a local-only append would fork the log. `viewProgress` is called while a stored view the write adds
    /// is built (``LogStore/buildStoredViews(progress:)``).
    func appendInTransaction(_ txn: LMDBTransaction, _ requests: [TransactionRequest], time: Timestamp,
                             newSchema: Schema? = nil, migration: Migration? = nil, replicated: Bool = false,
                             viewProgress: ((String, Int, Int) -> Void)? = nil) throws -> [Transaction] {
        if !replicated, let link = try replicaLink(in: txn) {
            throw StoreError.replica(path: path, stream: link.stream)
        }
        let format = try self.format(in: txn)
        let currentSchema = try schema(at: UInt64.max, in: txn)
        var resolver = ChangeResolver(schema: migration == nil ? newSchema ?? currentSchema : newSchema!.keeping(entitiesOf: currentSchema))
        let headBefore = try self.head(in: txn)
        var head = headBefore
        let changeCount = requests.reduce(0) { $0 + $1.changes.count }
        var objects = AppendedObjects(capacity: changeCount)
        // The write's log entries, one after another in one buffer: an object whose last change is an insert gets
        // a row that copies that insert's value bytes from it.
        var entries = EntryWriter(capacity: changeCount * 64 + requests.count * 64)
        var result: [Transaction] = []
        result.reserveCapacity(requests.count)
        var references = ReferenceWrite(schema: resolver.schema)
        for (ti, request) in requests.enumerated() {
            references.beginTransaction()
            let seq = head + 1
            let time = request.time ?? time
            let schemaChange = ti == 0 ? newSchema : nil
            let loggedCount = request.changes.count + (schemaChange == nil ? 0 : 1)
            var changes: [Change] = []
            changes.reserveCapacity(loggedCount)
            // The entry is written as its changes are resolved: an insert's values go from their slots straight
            // into it, never through a dictionary sorted by name. With relationships, delete rules add changes as
            // they run, and a change by predicate makes one per match: the entry, which declares its count first,
            // is written once the transaction is resolved.
            // A closure, not the key path: a key path applied per change copied each request (10 % of a bulk append).
            let byPredicate = request.changes.contains { $0.isByPredicate }
            let deferred = references.isActive || byPredicate
            var causes: [Int] = []  // deferred: the request change behind each logged change
            if !request.reverts.isEmpty {
                let r = request.reverts
                guard r.count <= Limits.revertsMax, zip(r, r.dropFirst()).allSatisfy(>), r.last! >= 1, r.first! < seq else {
                    throw StoreError.invalidChange(transaction: ti, change: 0,
                                                   reason: "reverts must list at most \(Limits.revertsMax) seqs, descending, below \(seq)")
                }
            }
            if !deferred {
                entries.begin(seq: seq, time: time, author: request.author, changeCount: loggedCount, reverts: request.reverts)
            }
            if let newSchema = schemaChange {
                let change = migration.map { Change.migration($0, schema: newSchema, previous: currentSchema) }
                    ?? Change.schema(newSchema, previous: currentSchema)
                if deferred { causes.append(0) } else { entries.append(change) }
                changes.append(change)
                try putMeta(txn, MetaKey.schema(at: seq), Array(newSchema.json.text.utf8), format: format)
                try recordFeatures(of: newSchema, in: txn, format: format, migration: migration != nil)
            }
            // Each request as given, or each match of a change by predicate, resolved where it stands (no array
            // per change for the ordinary ones: a bulk load resolves millions) by a function, so that the request is
            // borrowed from the array, not copied (copies of each request were 4 % of a bulk append).
            func resolve(_ changeRequest: ChangeRequest, change ci: Int, matched: Bool) throws {
                let key = changeRequest.key
                // Before the key is encoded: only a schema's entity and a valid id make an LMDB key.
                let entity: ChangeResolver.ResolvedEntity
                do { entity = try resolver.checkedEntity(of: key) } catch {
                    throw try refusal(of: objects, transaction: ti, change: ci, error.reason, in: txn)
                }
                if deferred { objects.reserveOneMore() }  // delete rules may have taken the room of later changes
                let (slot, isNew) = objects.slot(of: key)
                let current: ObjectValues?
                if !isNew {
                    current = objects[slot].values
                } else if case .insert = changeRequest {
                    current = nil  // checked when its row is written
                    objects[slot].assumedAbsent = (ti, ci)
                } else {
                    current = try objects.withKey(of: slot) { k in try objectRecord(k, of: key, format: format, in: txn) }?.values
                }
                if isNew { objects[slot].before = current }
                // A match an earlier match's delete rules deleted is skipped.
                if matched, current == nil { return }
                let change: Change
                do { change = try resolver.resolve(changeRequest, of: entity, current: current) } catch {
                    throw try refusal(of: objects, transaction: ti, change: ci, error.reason, in: txn)
                }
                if let expected = request.expected?[ci], expected != change {
                    throw try refusal(of: objects, transaction: ti, change: ci,
                                      "\(key.entity) \(key.id.json.text): the store's state differs from the one this change was made on (its previous values do not match)",
                                      in: txn)
                }
                var inserted = 0..<0
                if deferred {
                    causes.append(ci)
                } else {
                    if case .insert = change {
                        inserted = entries.appendInsert(key, of: entity, values: resolver.insertValues)
                    } else {
                        entries.append(change)
                    }
                    guard entries.count <= Limits.transactionBytesMax else {
                        throw try refusal(of: objects, transaction: ti, change: ci,
                                          "the transaction encodes to more than \(Limits.transactionBytesMax) bytes", in: txn)
                    }
                }
                objects[slot].changed(to: ObjectValues.applying(change, to: current), at: seq, inserted: inserted)
                changes.append(change)
                if references.isActive {
                    references.record(change, before: current, after: objects[slot].values, index: ci)
                    // A transaction reproduced as logged (import, replay, a replica) holds its rules' consequences,
                    // and a revert undoes the reverted ones with its own changes.
                    if case .delete = change, request.expected == nil, request.reverts.isEmpty {
                        do {
                            try applyDeleteRules(of: key, seq: seq, change: ci, objects: &objects, changes: &changes,
                                                 causes: &causes, references: &references, format: format, in: txn)
                        } catch let refusal as ChangeResolver.Refusal {
                            throw try self.refusal(of: objects, transaction: ti, change: ci, refusal.reason, in: txn)
                        }
                    }
                }
            }
            for ci in request.changes.indices {
                var matches: [ChangeRequest]?
                if request.changes[ci].isByPredicate {
                    guard request.expected == nil else {
                        throw try refusal(of: objects, transaction: ti, change: ci,
                                          "a change by predicate cannot be checked against the changes it must log", in: txn)
                    }
                    do {
                        matches = try self.requests(matching: request.changes[ci], objects: objects, schema: resolver.schema, format: format, in: txn)
                    } catch let refused as ChangeResolver.Refusal {
                        throw try refusal(of: objects, transaction: ti, change: ci, refused.reason, in: txn)
                    }
                }
                if let matches {
                    for match in matches { try resolve(match, change: ci, matched: true) }
                } else {
                    try resolve(request.changes[ci], change: ci, matched: false)
                }
            }
            // Changes by predicate that all matched nothing: the transaction appends nothing (and takes no seq).
            if changes.isEmpty {
                result.append(Transaction(seq: 0, time: time, author: request.author, changes: []))
                continue
            }
            if references.isActive {
                if let problem = try references.integrityProblem(refs: try refsDatabase(), objects: objectsDB, in: txn) {
                    throw try refusal(of: objects, transaction: ti, change: problem.change, problem.reason, in: txn)
                }
            }
            if deferred {
                guard changes.count <= Limits.transactionChangesMax else {
                    throw try refusal(of: objects, transaction: ti, change: causes.last ?? 0,
                                      "its \(byPredicate ? "changes by predicate and delete rules" : "delete rules") make more than \(Limits.transactionChangesMax) changes in one transaction", in: txn)
                }
                entries.begin(seq: seq, time: time, author: request.author, changeCount: changes.count, reverts: request.reverts)
                for (i, change) in changes.enumerated() {
                    entries.append(change)
                    guard entries.count <= Limits.transactionBytesMax else {
                        throw try refusal(of: objects, transaction: ti, change: causes[i],
                                          "the transaction encodes to more than \(Limits.transactionBytesMax) bytes", in: txn)
                    }
                }
            }
            let entry = entries.end()
            try withUnsafeBytes(of: seq.bigEndian) { key in
                try entries.withBytes(entry) { try txn.put(logDB, key: key, value: $0, flags: .append) }
            }
            head = seq
            result.append(Transaction(seq: seq, time: time, author: request.author, changes: changes, reverts: request.reverts))
        }
        // The checkpoint being built copies the rows this write changes before it writes them (see
        // `LogStore+CheckpointWriter.swift`).
        let checkpoints = try checkpointsBeforeWrite(headBefore: headBefore, format: format, in: txn)
        if let checkpoints { try copyRowsBeforeWrite(of: objects, directory: checkpoints, in: txn) }
        try writeRows(of: objects, entries: entries, format: format, in: txn)
        if references.isActive { try references.write(refs: try refsDatabase(), in: txn) }
        try StoredViewWrite(schema: resolver.schema, store: self, head: headBefore, in: txn)
            .write(objects, store: self, head: head, progress: viewProgress, in: txn)
        // A migration may remove views (or change them into views not stored): their rows go in its write.
        if migration != nil { try dropStoredViewsNotKept(in: txn) }
        if var checkpoints { try advanceCheckpoints(&checkpoints, head: head, changes: changeCount, in: txn) }
        // A schema's retention (DESIGN §13): bounded work in every write, only where checkpoints are kept.
        if let retention = resolver.schema.retention, checkpoints != nil { try retain(retention, head: head, now: time, in: txn) }
        try putMeta(txn, MetaKey.head, bigEndianBytes(head), format: format)
        return result
    }

    /// The refusal of change `change` of transaction `transaction` for `reason` — unless an insert before it was of
    /// an id that exists (its absence is checked only when rows are written): the first change refused is named.
    private func refusal(of objects: borrowing AppendedObjects, transaction: Int, change: Int, _ reason: String,
                         in txn: LMDBTransaction) throws -> StoreError {
        try existingInsert(of: objects, in: txn) ?? .invalidChange(transaction: transaction, change: change, reason: reason)
    }

    /// Writes the rows of the objects an append touched, in key order through one cursor (each put finds its page
    /// from the last one's when it can), each into the space LMDB reserves for it. An inserted object's row copies
    /// the insert's value bytes from its log entry; an object whose absence was assumed is put with
    /// `MDB_NOOVERWRITE`, which checks it.
    private func writeRows(of objects: borrowing AppendedObjects, entries: borrowing EntryWriter,
                           format: Int, in txn: LMDBTransaction) throws {
        let order = objects.keyOrder()
        // The values of a row whose last change is not an insert, encoded here (reused from row to row).
        var encoded = ByteWriter(capacity: 256)
        try txn.withSequentialPuts(objectsDB) { puts in
            for (position, slot) in order.enumerated() {
                // The object's fields are read in place (`objects[slot]`), not copied: a copy retains its values.
                let assumedAbsent = objects[slot].assumedAbsent != nil, seq = objects[slot].seq
                let inserted = objects[slot].insertedValues
                let written = try objects.withKey(of: slot) { key throws -> Bool in
                    guard objects[slot].values != nil else {
                        // Absent after the write: a row to remove — or, for an object inserted and then deleted
                        // within it, a row that must not exist (left as it is, to be named).
                        if assumedAbsent { return try txn.value(objectsDB, for: key) == nil }
                        try txn.delete(objectsDB, key: Array(key))
                        return true
                    }
                    let flags: PutFlags = assumedAbsent ? .noOverwrite : []
                    func put(_ valueBytes: UnsafeRawBufferPointer) throws {
                        let size = ObjectRecordCodec.recordBytes(valueBytes: valueBytes.count, format: format)
                        try puts.put(key: key, reserving: size, flags: flags) { out in
                            ObjectRecordCodec.write(into: out, valueBytes: valueBytes, seq: seq, key: key, format: format)
                        }
                    }
                    do {
                        if inserted.isEmpty {
                            encoded.truncate(to: 0)
                            if let values = objects[slot].values { encoded.objectValues(values) }
                            try encoded.withBytes(0..<encoded.count, put)
                        } else {
                            try entries.withBytes(inserted, put)
                        }
                    } catch let error as LMDBError where error == .keyExists && assumedAbsent {
                        return false
                    }
                    return true
                }
                guard !written else { continue }
                // An insert of an id that exists: name the write's first such insert (the rows not written yet
                // still hold the state before the write; those written were absent).
                throw try existingInsert(of: objects, among: order[position...], in: txn)
                    ?? StoreError.corrupt(seq: nil, reason: "an object row refused as present, then not found")
            }
        }
    }

    /// The refusal of the write's first insert (by transaction and change) of an object that exists in the store,
    /// among `slots` (all the write's objects when `nil`), or `nil` when there is none. Reads the `objects`
    /// database, so it holds only for rows the write has not written yet.
    private func existingInsert(of objects: borrowing AppendedObjects, among slots: ArraySlice<Int>? = nil,
                                in txn: LMDBTransaction) throws -> StoreError? {
        var first: (transaction: Int, change: Int, key: ObjectKey)?
        for slot in slots ?? ArraySlice(0..<objects.count) {
            guard let at = objects[slot].assumedAbsent else { continue }
            if let f = first, (f.transaction, f.change) < (at.transaction, at.change) { continue }
            let key: ObjectKey? = try objects.withKey(of: slot) { k in
                try txn.value(objectsDB, for: k) == nil ? nil : try ObjectRecordCodec.decodeKey(k)
            }
            if let key { first = (at.transaction, at.change, key) }
        }
        return first.map { .invalidChange(transaction: $0.transaction, change: $0.change,
                                          reason: ChangeResolver.existingIDRefusal($0.key).reason) }
    }

    /// The object's record at the head (`checkpoint` `nil`) or in the complete checkpoint at seq `checkpoint`:
    /// values and the seq that last changed it; `nil` when it has none there.
    package func objectRecord(_ key: ObjectKey, at checkpoint: UInt64? = nil, format: Int? = nil,
                      in txn: LMDBTransaction) throws -> (values: ObjectValues, seq: UInt64)? {
        let format = try format ?? self.format(in: txn)
        return try storedRow(key, at: checkpoint, in: txn) { bytes, k throws(CodecError) in
            try ObjectRecordCodec.decode(bytes, key: k, format: format)
        }
    }

    /// Reads the row of `key` at the head (`checkpoint` `nil`) or in the complete checkpoint at seq `checkpoint`
    /// into `fetched` (its attributes' values); `false` when the object has none there.
    func storedRecord(_ key: ObjectKey, at checkpoint: UInt64?, format: Int, into fetched: FetchedValues,
                      in txn: LMDBTransaction) throws -> Bool {
        try storedRow(key, at: checkpoint, in: txn) { bytes, k throws(CodecError) in
            try ObjectRecordCodec.decode(bytes, key: k, format: format, into: fetched)
        } != nil
    }

    /// `decode` of the row of `key` at the head or in a checkpoint (its bytes and LMDB key), `nil` when there is
    /// none; a ``CodecError`` is a ``StoreError/corrupt(seq:reason:)`` naming the object (and the checkpoint).
    private func storedRow<T>(_ key: ObjectKey, at checkpoint: UInt64?, in txn: LMDBTransaction,
                              _ decode: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(CodecError) -> T) throws -> T? {
        let (db, prefix) = storedRows(at: checkpoint)
        return try (prefix + ObjectRecordCodec.key(key)).withUnsafeBytes { k -> T? in
            guard let bytes = try txn.value(db, for: k) else { return nil }
            do { return try decode(bytes, k) } catch {
                throw StoreError.corrupt(seq: nil, reason: checkpoint.map { "object \(key) in the checkpoint at seq \($0): \(error)" + Self.checkpointRepairHint }
                                                           ?? "object \(key): \(error)")
            }
        }
    }

    /// The record stored under `k`, the LMDB key of `key` (``ObjectRecordCodec/key(_:)``).
    package func objectRecord(_ k: [UInt8], of key: ObjectKey, format: Int? = nil, in txn: LMDBTransaction) throws -> (values: ObjectValues, seq: UInt64)? {
        try k.withUnsafeBytes { kb in try objectRecord(kb, of: key, format: format, in: txn) }
    }

    /// The record stored under `k`, the LMDB key of `key`.
    package func objectRecord(_ k: UnsafeRawBufferPointer, of key: ObjectKey, format: Int? = nil, in txn: LMDBTransaction) throws -> (values: ObjectValues, seq: UInt64)? {
        let format = try format ?? self.format(in: txn)
        guard let bytes = try txn.value(objectsDB, for: k) else { return nil }
        do { return try ObjectRecordCodec.decode(bytes, key: k, format: format) } catch {
            throw StoreError.corrupt(seq: nil, reason: "object \(key): \(error)")
        }
    }
}
