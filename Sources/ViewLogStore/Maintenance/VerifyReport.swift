@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// What ``LogStore/verify(progress:)`` found.
public struct VerifyReport: Sendable, Hashable {
    /// Transactions read (the head verified).
    public var transactions: UInt64
    /// Objects at the head.
    public var objects: Int
    /// Checkpoints whose rows were compared with the replay of the log to their seq (the one being built too).
    public var checkpoints: Int = 0
    /// Everything wrong, each naming the seq or object; empty when the store is sound.
    public var problems: [String]

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }
}
