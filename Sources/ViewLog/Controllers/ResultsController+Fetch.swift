@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
extension ResultsController {
    /// Fetches the view again from its ``context`` — with `request` when given (a new predicate, sort,
    /// sections, window or variables of the same entity), else with the current ``fetchRequest`` — at the
    /// context's position, its pending changes processed first (as Core Data's `performFetch()`). Reported as
    /// one ``ViewEvent/reload(_:)`` to the delegate, observers and ``changes``.
    ///
    /// - Throws: a ``QueryError`` naming what is wrong with `request` (another entity, an unknown attribute,
    ///   a type mismatch); the view is unchanged then. A ``StoreError`` when the store cannot be read.
    /// - Precondition: the controller was made by a context (``Context/makeResultsController(_:)``).
    public func performFetch(_ request: FetchRequest? = nil) throws {
        guard let context else {
            preconditionFailure("performFetch() needs a controller made by a context (Context.makeResultsController)")
        }
        try context.refetch(self, request ?? fetchRequest)
    }
}
