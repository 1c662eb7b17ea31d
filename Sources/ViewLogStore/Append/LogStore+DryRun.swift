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
        let time = Timestamp.now
        return try inRolledBackWrite { txn in try self.appendInTransaction(txn, requests, time: time, replicated: true) }
    }

    /// `body`'s result in a write that is then rolled back: what an append would do, nothing appended (a dry run, a
    /// replica's prepared entry).
    func inRolledBackWrite<T>(_ body: (LMDBTransaction) throws -> T) throws(StoreError) -> T {
        var result: T?
        do throws(StoreError) {
            try perform { txn in
                result = try body(txn)
                throw RolledBack()  // abort the write: nothing is written
            }
        } catch {
            guard let result else { throw error }
            return result
        }
        preconditionFailure("a rolled-back write always throws")
    }
}

/// Thrown inside ``LogStore/inRolledBackWrite(_:)``'s write to roll it back.
private struct RolledBack: Error {}
