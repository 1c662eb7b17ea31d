@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Appends `requests` as one transaction on behalf of a context at `position`, asking `resolve` what to do
    /// with every request whose object a transaction after `position` changed — all inside one write, so the
    /// check and the append are atomic. Returns `nil` when `resolve` dropped every change (nothing appended);
    /// throws ``StoreError/conflict(_:)`` with every conflict it reported (nothing appended).
    package func save(_ requests: [ChangeRequest], author: String, basedOn position: UInt64,
              resolve: (ChangeRequest, ConcurrentChange, ObjectValues?) -> MergeOutcome) throws(StoreError) -> Transaction? {
        guard !requests.isEmpty else { return nil }
        let time = Timestamp.now
        let saved = try perform { txn -> Transaction? in
            let head = try self.head(in: txn)
            precondition(position <= head, "a context cannot be ahead of the head")
            // Staged changes name the schema of `position`: a migration after it would have them read in other names.
            if position < head, let carry = try self.migrationCarry(from: position, to: head, in: txn) {
                throw StoreError.acrossMigration(position: position, seq: carry.passed[0].seq)
            }
            var adjusted: [ChangeRequest] = []
            var conflicts: [Conflict] = []
            // What others changed after `position`, per object: read lazily, only when a conflict exists.
            var theirs: [ObjectKey: ConcurrentChange]?
            for request in requests {
                let key = request.key
                let record = try self.objectRecord(key, in: txn)
                let changedAfter = record.map { $0.seq > position } ?? false
                var deletedAfter = false
                if record == nil, position < head {
                    if theirs == nil { theirs = try self.changedAttributes(after: position, in: txn) }
                    deletedAfter = theirs?[key] != nil
                }
                guard changedAfter || deletedAfter else { adjusted.append(request); continue }
                if theirs == nil { theirs = try self.changedAttributes(after: position, in: txn) }
                guard let their = theirs?[key] else { adjusted.append(request); continue }
                switch resolve(request, their, record?.values) {
                case .requests(let replacement): adjusted.append(contentsOf: replacement)
                case .conflict(let conflict): conflicts.append(conflict)
                }
            }
            if !conflicts.isEmpty { throw StoreError.conflict(conflicts) }
            guard !adjusted.isEmpty else { return nil }
            return try self.appendInTransaction(txn, [TransactionRequest(author: author, changes: adjusted)], time: time)[0]
        }
        if let saved { notifyHead(saved.seq) }
        return saved
    }

    /// Per object changed after `position`: the attributes updates set, whether it was inserted or deleted,
    /// and the last seq that changed it.
    func changedAttributes(after position: UInt64, in txn: LMDBTransaction) throws -> [ObjectKey: ConcurrentChange] {
        var out: [ObjectKey: ConcurrentChange] = [:]
        let head = try self.head(in: txn)
        for t in try readTransactions(txn, from: position + 1, through: head) {
            for change in t.changes {
                guard let key = change.key else { continue }
                var entry = out[key] ?? ConcurrentChange(attributes: [], structural: false, seq: t.seq)
                entry.seq = t.seq
                switch change {
                case .update(_, let values, _): entry.attributes.formUnion(values.keys)
                default: entry.structural = true
                }
                out[key] = entry
            }
        }
        return out
    }
}
