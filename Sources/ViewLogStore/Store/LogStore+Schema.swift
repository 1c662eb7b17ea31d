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
}
