@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// One transaction to append: who makes it and what it changes.
public struct TransactionRequest: Sendable, Hashable {
    /// The author recorded in the log.
    public var author: String
    /// The changes, in order; must not be empty.
    public var changes: [ChangeRequest]
    /// The commit time to record (an import or replay keeps the original); `nil`: now.
    public var time: Timestamp?
    /// The changes as they must be logged (an import gives the exported ones): when the store resolves a
    /// request to anything else — because its state differs from the one the changes were made on — the
    /// append is refused.
    public var expected: [Change]?
    /// The transactions it reverts, descending (DESIGN §14; ``LogStore/revert(_:author:)`` makes such requests):
    /// logged with it, and its deletes apply no delete rule of their own (the rules' consequences in the reverted
    /// transactions are undone by its own changes).
    public var reverts: [UInt64]

    /// Makes a request.
    public init(author: String, changes: [ChangeRequest], time: Timestamp? = nil, expected: [Change]? = nil,
                reverts: [UInt64] = []) {
        precondition(expected.map { $0.count == changes.count } ?? true, "expected changes must match the requests one to one")
        self.author = author
        self.changes = changes
        self.time = time
        self.expected = expected
        self.reverts = reverts
    }

    /// The request that appends `transaction` again, as it was logged (for import and replay).
    public init(replaying transaction: Transaction) {
        self.init(author: transaction.author, changes: transaction.changes.compactMap(\.request),
                  time: transaction.time, expected: transaction.changes.filter { $0.key != nil },
                  reverts: transaction.reverts)
    }
}
