/// One transaction to append: who makes it and what it changes.
public struct TransactionRequest: Sendable, Hashable {
    /// The author recorded in the log.
    public var author: String
    /// The changes, in order; must not be empty.
    public var changes: [ChangeRequest]

    /// Makes a request.
    public init(author: String, changes: [ChangeRequest]) {
        self.author = author
        self.changes = changes
    }
}
