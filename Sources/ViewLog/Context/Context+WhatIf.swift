@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore

/// What-if (DESIGN §14): a context's staged changes are a store as it would be after appending them, never appended.
extension Context {
    /// Stages every change of `requests` in order, as an append of them would apply them here: a view of this context
    /// then shows the state after appending them at its position. All or none: on an error nothing stays staged.
    /// - Returns: for an error, the index of the request refused and the error (the caller names its line).
    /// - Throws: the error of the first change refused (``StoreError/invalidStagedChange(_:operation:reason:)`` and
    ///   the like), with the index of its request.
    package func stage(_ requests: [TransactionRequest]) throws(StagingError) {
        let before = staged
        for (i, request) in requests.enumerated() {
            for change in request.changes {
                do { try stage(change) } catch {
                    staged = before
                    throw StagingError(request: i, error: error)
                }
            }
        }
    }

    /// A change of ``stage(_:)`` refused: which request, and why.
    package struct StagingError: Error {
        package let request: Int
        package let error: StoreError
    }

    /// Takes `other`'s unsaved changes as this context's (replacing its own): what a view here shows at its next move.
    /// - Precondition: both contexts are of the same store.
    package func adoptStagedChanges(of other: Context) {
        precondition(other.store === store, "staged changes of another store")
        staged = other.staged
    }
}
