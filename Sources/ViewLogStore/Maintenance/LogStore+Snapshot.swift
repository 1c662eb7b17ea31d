@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// What a compacted store holds in place of its log up to its horizon (DESIGN §13): the schema and the objects at
/// the horizon. `export` writes it as its first line, `import` into an empty store and `replay --into` start from it.
public struct Snapshot: Sendable, Hashable {
    /// The horizon: the position the objects are at.
    public var position: UInt64
    /// The schema in force at the position.
    public var schema: Schema
    /// Every object at the position, as inserts (in entity order, then id order).
    public var objects: [ChangeRequest]

    /// Makes a snapshot.
    public init(position: UInt64, schema: Schema, objects: [ChangeRequest]) {
        self.position = position
        self.schema = schema
        self.objects = objects
    }

    /// The first line of `export` of a compacted store: `{"snapshot": h, "schema": {…}, "changes": [inserts …]}`,
    /// each insert as `log --json` writes it.
    @_spi(Engine) public var json: JSONValue {
        .object([
            ("snapshot", .int(Int64(clamping: position))), ("schema", schema.json),
            ("changes", .array(objects.map { request in
                guard case let .insert(entity, id, values) = request else { preconditionFailure("a snapshot holds inserts") }
                return Change.insert(ObjectKey(entity: entity, id: id), values: values).json(schema: schema)
            })),
        ])
    }

    /// Whether `json` (a line of an export) is a snapshot document rather than a transaction.
    @_spi(Engine) public static func isSnapshot(_ json: JSONValue) -> Bool { json["snapshot"] != nil }

    /// Reads a snapshot document, checking its shape and its inserts' values against its own schema.
    /// - Throws: ``InputError`` naming `line` and what is wrong.
    @_spi(Engine) public init(json: JSONValue, line: Int = 0) throws(InputError) {
        let members = try InputValues.members(json, what: "a snapshot", line: line, context: "")
        try InputValues.checkKeys(members, allowed: ["snapshot", "schema", "changes"], line: line, context: "")
        guard case .int(let h)? = json["snapshot"], h >= 1 else {
            throw InputError(line: line, message: "\"snapshot\" must be a position of at least 1")
        }
        let context = "snapshot \(h)"
        guard let schemaJSON = json["schema"] else {
            throw InputValues.error("a snapshot needs its \"schema\"", line: line, context: context)
        }
        let schema: Schema
        do { schema = try Schema(json: schemaJSON) } catch {
            throw InputValues.error("\"schema\": \(error)", line: line, context: context, code: error.code)
        }
        guard case .array(let documents)? = json["changes"] else {
            throw InputValues.error("\"changes\" must be an array of inserts", line: line, context: context)
        }
        var objects: [ChangeRequest] = []
        objects.reserveCapacity(documents.count)
        for (i, document) in documents.enumerated() {
            let change = try Change(json: document, schema: schema, line: line, context: "\(context), change \(i + 1)")
            guard case let .insert(key, values) = change else {
                throw InputValues.error("a snapshot holds only inserts", line: line, context: "\(context), change \(i + 1)")
            }
            objects.append(.insert(entity: key.entity, id: key.id, values: values))
        }
        self.init(position: UInt64(h), schema: schema, objects: objects)
    }
}

extension LogStore {
    /// The store's snapshot at its horizon, `nil` for a store never compacted (its log starts at 1).
    public func snapshot() throws(StoreError) -> Snapshot? {
        let horizon = try self.horizon
        guard horizon > 0 else { return nil }
        let schema = try self.schema(at: horizon)
        var objects: [ChangeRequest] = []
        for entity in schema.entityNames {
            for (id, values) in try self.objects(of: entity, at: horizon) {
                objects.append(.insert(entity: entity, id: id, values: values))
            }
        }
        return Snapshot(position: horizon, schema: schema, objects: objects)
    }

    /// Makes this empty store (nothing appended, never compacted) start at `snapshot` (DESIGN §13, `import`): its
    /// schema becomes the snapshot's, its objects the snapshot's, its head and horizon the snapshot's position; then
    /// appends `transactions` as ``appendVerbatim(_:)`` does (the first must be the seq after the position). One
    /// write: on any error nothing is changed. The inserts are checked as an append checks them (values, ids,
    /// relationships).
    /// - Throws: ``StoreError/invalidChange(transaction:change:reason:)`` for a store that is not empty, an insert
    ///   that is refused (transaction 0 is the snapshot), or a transaction that does not follow.
    public func start(from snapshot: Snapshot, then transactions: [Transaction] = []) throws(StoreError) {
        do { try snapshot.schema.validate() } catch { throw .schema(error) }
        try Self.checkSchemaSize(snapshot.schema)
        try Self.checkSchemas(of: transactions)
        let now = Timestamp.now
        let last: UInt64 = try perform { txn in
            guard try self.head(in: txn) == 0, try self.horizon(in: txn) == 0 else {
                throw StoreError.invalidChange(transaction: 0, change: 0,
                                               reason: "a snapshot starts only an empty store, and this one has transactions")
            }
            let format = try self.format(in: txn)
            guard format >= 2, let checkpoints = self.checkpointsDB else {
                throw StoreError.storage("\(self.path) has log format 1: `viewlog upgrade` it before importing a snapshot")
            }
            let h = snapshot.position
            try self.putMeta(txn, MetaKey.schema(at: 0), Array(snapshot.schema.json.text.utf8), format: format)
            try self.recordFeatures(of: snapshot.schema, in: txn, format: format)
            // The objects are appended as one transaction at the snapshot's position, so that the append checks
            // them and writes every index; the entry is then removed (the horizon is its seq).
            if !snapshot.objects.isEmpty {
                try self.putMeta(txn, MetaKey.head, bigEndianBytes(h - 1), format: format)
                do {
                    _ = try self.appendInTransaction(txn, [TransactionRequest(author: "snapshot", changes: snapshot.objects, time: now)], time: now)
                } catch let StoreError.invalidChange(_, change, reason) {
                    throw StoreError.invalidChange(transaction: 0, change: change, reason: "the snapshot: \(reason)")
                }
                _ = try txn.delete(self.logDB, key: bigEndianBytes(h))
            }
            try self.putMeta(txn, MetaKey.head, bigEndianBytes(h), format: format)
            // The objects at the horizon, as its checkpoint; no other checkpoint.
            try txn.clear(checkpoints)
            var rows = CheckpointRowBatch(seq: h)
            try txn.scan(self.objectsDB) { e in
                try rows.add(key: e.key, record: e.value)
                return .next
            }
            try rows.write(into: checkpoints, txn)
            var directory = CheckpointDirectory()
            directory.complete = [h]
            directory.maintained = h
            try self.putCheckpointDirectory(directory, in: txn)
            try self.putMeta(txn, MetaKey.horizon, bigEndianBytes(h), format: format)
            do {
                return try self.appendVerbatim(transactions, time: now, in: txn).last?.seq ?? h
            } catch let StoreError.invalidChange(t, change, reason) {
                throw StoreError.invalidChange(transaction: t + 1, change: change, reason: reason)
            }
        }
        // Stored views whose rows the append kept under the snapshot's schema are current; any other is built.
        try buildStoredViews()
        notifyHead(last)
    }
}
