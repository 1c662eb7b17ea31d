@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// What ``append(_:)-([TransactionRequest])`` would log for `requests` now, appending nothing (`append
    /// --dry-run`, DESIGN §14): the same checks, the same resolution of changes by predicate and delete rules, the
    /// same errors, in a write that is rolled back. The transactions carry the seqs they would get (seq 0 and no
    /// changes for one that would append nothing). On a replica it answers for the state it has caught up to.
    /// - Throws: the errors of ``append(_:)-([TransactionRequest])``.
    public func dryRun(_ requests: [TransactionRequest]) throws(StoreError) -> [Transaction] {
        guard !requests.isEmpty else { throw .emptyInput }
        try Self.checkShape(of: requests)
        struct RolledBack: Error {}
        let time = Timestamp.now
        var would: [Transaction]?
        do throws(StoreError) {
            try perform { txn in
                would = try self.appendInTransaction(txn, requests, time: time, replicated: true)
                throw RolledBack()  // abort the write: nothing is appended
            }
        } catch {
            guard let would else { throw error }
            return would
        }
        preconditionFailure("a dry run always rolls back")
    }
}
