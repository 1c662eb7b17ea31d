@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// One entry of the log: the atomic unit of change. One save is one transaction.
public struct Transaction: Sendable, Hashable {
    /// Position after this transaction: 1, 2, 3, … with no gaps.
    public var seq: UInt64
    /// When it was committed.
    public var time: Timestamp
    /// Who made it: a context's name, or `--author` in the CLI.
    public var author: String
    /// Its changes, in order; never empty in the log (an append returns a request whose changes by predicate all
    /// matched nothing as seq 0 with no changes: it appended nothing).
    public var changes: [Change]

    /// The transactions it reverts (DESIGN §14), descending: its changes are their changes' inverses, newest
    /// first. Empty for an ordinary transaction.
    public var reverts: [UInt64]

    /// Makes a transaction.
    public init(seq: UInt64, time: Timestamp, author: String, changes: [Change], reverts: [UInt64] = []) {
        self.seq = seq
        self.time = time
        self.author = author
        self.changes = changes
        self.reverts = reverts
    }
}
