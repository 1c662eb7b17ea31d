@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Changes the schema, additively (``Schema/checkAdditive(over:)``), as one transaction of the log: a
    /// schema change, followed by an update giving every existing object the default of each new defaulted
    /// attribute. Replaying to any position therefore uses the schema of that position.
    /// A named view the change adds is stored (DESIGN §11): its rows are built in the same write, `progress` called
    /// with (view, objects read, objects of its entity) as they are.
    /// - Returns: the transaction, or `nil` when `schema` equals the current one (nothing appended).
    @discardableResult
    public func updateSchema(_ schema: Schema, author: String, time: Timestamp? = nil,
                             progress: ((String, Int, Int) -> Void)? = nil) throws(StoreError) -> Transaction? {
        do { try schema.validate() } catch { throw .schema(error) }
        try Self.checkSchemaSize(schema)
        let now = time ?? Timestamp.now
        let appended: Transaction? = try perform { txn -> Transaction? in
            try self.updateSchemaInTransaction(txn, schema, author: author, time: now, progress: progress)
        }
        if let appended { notifyHead(appended.seq) }
        return appended
    }

    /// The schema change of ``updateSchema(_:author:time:)`` inside `txn`; `nil` when nothing changes.
    func updateSchemaInTransaction(_ txn: LMDBTransaction, _ schema: Schema, author: String,
                                   time now: Timestamp, progress: ((String, Int, Int) -> Void)? = nil) throws -> Transaction? {
        let current = try self.schema(at: UInt64.max, in: txn)
        guard current != schema else { return nil }
        do { try schema.checkAdditive(over: current) } catch { throw StoreError.schema(error) }
        var updates: [ChangeRequest] = []
        let defaults = schema.addedDefaults(over: current)
        for entity in Set(defaults.map(\.entity)).sorted() {
            let values = ObjectValues(uniqueKeysWithValues: defaults.filter { $0.entity == entity }.map { ($0.attribute, $0.value) })
            for (id, _) in try self.headObjects(of: entity, in: txn) {
                updates.append(.update(entity: entity, id: id, values: values))
            }
        }
        let request = TransactionRequest(author: author, changes: updates, time: now)
        return try self.appendInTransaction(txn, [request], time: now, newSchema: schema, viewProgress: progress)[0]
    }

    /// Applies `migration` (DESIGN §13) as one transaction of the log: the migration (steps, new and previous
    /// schema), then for every object the steps change a delete of it as it was and an insert of it as it becomes —
    /// so that every position reads in its own schema and replays exactly. Stored views the new schema changes are
    /// built again, and those it removes dropped, in the same write. Refused as a whole, nothing appended, when a
    /// step names what the schema lacks, the result would break a view or the schema, or a value does not convert
    /// (naming the first such object in id order).
    @discardableResult
    public func migrate(_ migration: Migration, author: String, time: Timestamp? = nil,
                        progress: ((String, Int, Int) -> Void)? = nil) throws(StoreError) -> Transaction {
        let now = time ?? Timestamp.now
        let appended: Transaction = try perform { txn -> Transaction in
            try self.migrateInTransaction(txn, migration, author: author, time: now, progress: progress)
        }
        notifyHead(appended.seq)
        return appended
    }

    /// The migration of ``migrate(_:author:time:progress:)`` inside `txn`.
    func migrateInTransaction(_ txn: LMDBTransaction, _ migration: Migration, author: String, time now: Timestamp,
                              progress: ((String, Int, Int) -> Void)? = nil) throws -> Transaction {
        let current = try self.schema(at: UInt64.max, in: txn)
        let stages: [Schema]
        do { stages = try current.stages(of: migration) } catch { throw StoreError.schema(error) }
        let schema = stages.last ?? current
        try Self.checkSchemaSize(schema)
        var rewrite: [ChangeRequest] = []
        for entity in current.entityNames {
            for (id, values) in try self.headObjects(of: entity, in: txn) {
                let after: (entity: String, values: ObjectValues)
                do { after = try migration.rewrite(entity: entity, id: id, values: values, stages: stages) } catch {
                    throw StoreError.schema(error)
                }
                guard after.entity != entity || after.values != values else { continue }
                rewrite.append(.delete(entity: entity, id: id))
                rewrite.append(.insert(entity: after.entity, id: id, values: after.values))
            }
        }
        guard rewrite.count <= Limits.transactionChangesMax else {
            throw StoreError.schema(.migrationRefused("it rewrites \(rewrite.count / 2) objects, more than one transaction holds (\(Limits.transactionChangesMax) changes)"))
        }
        let request = TransactionRequest(author: author, changes: rewrite, time: now)
        return try self.appendInTransaction(txn, [request], time: now, newSchema: schema, migration: migration,
                                            viewProgress: progress)[0]
    }
}

extension LogStore {
    /// The migrations of the log after position `from` through `to` (`from` < `to`), oldest first, with their seqs:
    /// found from the schema records of the metadata (one per schema change), not by reading the log between. Positions
    /// below the horizon are not looked at (their entries are compacted away; a read there is refused as compacted).
    public func migrations(after from: UInt64, through to: UInt64) throws(StoreError) -> [(seq: UInt64, migration: Migration)] {
        try perform(read: true) { txn in try self.migrations(after: from, through: to, in: txn) }
    }

    /// The carry of a move from `from` to `to` (either direction) over the migrations between (DESIGN §13), `nil` when
    /// it passes none: what ``delta(from:to:entities:)`` hands controllers, and what a reader of a span needs to name
    /// things as at either end.
    @_spi(Engine) public func migrationCarry(from: UInt64, to: UInt64) throws(StoreError) -> MigrationCarry? {
        try perform(read: true) { txn in try self.migrationCarry(from: from, to: to, in: txn) }
    }

    /// ``migrationCarry(from:to:)`` in `txn`.
    func migrationCarry(from: UInt64, to: UInt64, in txn: LMDBTransaction) throws -> MigrationCarry? {
        let migrations = try self.migrations(after: min(from, to), through: max(from, to), in: txn)
        guard !migrations.isEmpty else { return nil }
        return MigrationCarry(migrations: migrations.map { MigrationCarry.Logged(seq: $0.seq, migration: $0.migration) },
                              backward: to < from)
    }

    /// ``migrations(after:through:)`` in `txn`.
    func migrations(after from: UInt64, through to: UInt64, in txn: LMDBTransaction) throws -> [(seq: UInt64, migration: Migration)] {
        guard from < to else { return [] }
        var seqs: [UInt64] = []
        let start = max(from, try self.horizon(in: txn)) + 1
        try txn.scan(self.metaDB, from: .atLeast(MetaKey.schema(at: start))) { e in
            guard e.key.hasPrefix(MetaKey.schemaPrefix),
                  let seq = uint64FromBigEndian(e.key.dropFirst(MetaKey.schemaPrefix.count)), seq <= to else { return .stop }
            seqs.append(seq)
            return .next
        }
        return try seqs.compactMap { seq -> (seq: UInt64, migration: Migration)? in
            try withUnsafeBytes(of: seq.bigEndian) { key -> (seq: UInt64, migration: Migration)? in
                guard let bytes = try txn.value(self.logDB, for: key) else {
                    throw StoreError.corrupt(seq: seq, reason: "the metadata holds a schema for seq \(seq), which the log lacks")
                }
                do { return try TransactionCodec.openingMigration(bytes, expectedSeq: seq).map { (seq, $0) } } catch {
                    throw StoreError.corrupt(seq: seq, reason: "\(error)")
                }
            }
        }
    }
}
