@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// When appends start a checkpoint, and how fast they build it (``StoreOptions/checkpoints``).
///
/// A checkpoint costs a copy of every object row, spread over the appends that follow it; it saves a view at an
/// older position from folding more than half an interval of the log. The default spaces checkpoints at least
/// twice the store's rows apart, so that their rows together stay below half the log's entries, and a position
/// between two of them folds at most as many entries as the store has rows.
public struct CheckpointPolicy: Sendable, Hashable {
    /// The fewest log entries from one checkpoint to the next.
    public var minimumEntries: UInt64
    /// Log entries from one checkpoint to the next per object row in the store, when that is more than
    /// ``minimumEntries``.
    public var entriesPerRow: UInt64
    /// Object rows an append copies into the checkpoint being built, per change it makes (and
    /// ``rowsCopiedPerWrite`` more per write): bounds what one append pays, and finishes a build well within the
    /// interval.
    public var rowsCopiedPerChange: Int
    /// Object rows an append copies into the checkpoint being built, besides ``rowsCopiedPerChange``.
    public var rowsCopiedPerWrite: Int

    /// Checkpoints at least 65,536 entries and twice the store's rows apart, each append copying 2 rows per change
    /// and 8 more.
    public static let standard = CheckpointPolicy(minimumEntries: 65_536, entriesPerRow: 2,
                                                  rowsCopiedPerChange: 2, rowsCopiedPerWrite: 8)
    /// No checkpoints are started (the ones a store has are still read).
    public static let never = CheckpointPolicy(minimumEntries: UInt64(Int64.max), entriesPerRow: 0,
                                               rowsCopiedPerChange: 0, rowsCopiedPerWrite: 0)

    /// A policy; see the properties.
    public init(minimumEntries: UInt64, entriesPerRow: UInt64, rowsCopiedPerChange: Int, rowsCopiedPerWrite: Int) {
        precondition(minimumEntries >= 1, "checkpoints must be at least one entry apart")
        precondition(rowsCopiedPerChange >= 0 && rowsCopiedPerWrite >= 0, "a negative number of rows to copy")
        self.minimumEntries = minimumEntries
        self.entriesPerRow = entriesPerRow
        self.rowsCopiedPerChange = rowsCopiedPerChange
        self.rowsCopiedPerWrite = rowsCopiedPerWrite
    }

    /// Whether this policy starts checkpoints.
    var startsCheckpoints: Bool { minimumEntries < UInt64(Int64.max) && rowsCopiedPerChange + rowsCopiedPerWrite > 0 }

    /// Log entries from one checkpoint to the next in a store of `rows` object rows.
    func interval(rows: Int) -> UInt64 {
        let (scaled, overflow) = UInt64(rows).multipliedReportingOverflow(by: entriesPerRow)
        return max(minimumEntries, overflow ? UInt64(Int64.max) : min(scaled, UInt64(Int64.max)))
    }

    /// Rows a write of `changes` changes copies into the checkpoint being built.
    func rowsCopied(changes: Int) -> Int {
        let (scaled, overflowed) = changes.multipliedReportingOverflow(by: rowsCopiedPerChange)
        let (total, overflowedAgain) = scaled.addingReportingOverflow(rowsCopiedPerWrite)
        return overflowed || overflowedAgain ? .max : total
    }
}
