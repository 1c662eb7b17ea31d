@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// What a results controller reports on its ``ResultsController/changes`` sequence.
public enum ViewEvent: Sendable, Hashable {
    /// The view's definition changed or its context was reset: forget the old rows; this is the new view.
    case reload(ViewSnapshot)
    /// One batch of changes (never empty on the sequence).
    case changes(ChangeSet)
}
