@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// Told by a ``ResultsController`` about each batch, in this order: ``controllerWillChangeContent(_:)``, every
/// section change, every row change, ``controllerDidChangeContent(_:)``; and about reloads
/// (``controllerDidReload(_:snapshot:)``).
///
/// Calls are synchronous on the controller's isolation. A main-actor type conforms with an isolated conformance
/// (`extension ViewModel: @MainActor ResultsControllerDelegate`) and owns a controller confined to the main actor.
///
/// The batch methods have empty defaults: implement the ones you use, with exactly these signatures (a misspelt one
/// is a new method the controller never calls). A reload is never silent: unless you implement
/// ``controllerDidReload(_:snapshot:)`` (to reload your table at once), its default reports the reload through
/// your batch methods, as a batch deleting every row and section of the view before and a batch inserting every
/// row and section of the view after.
///
/// ```swift
/// extension EmployeeTable: @MainActor ResultsControllerDelegate {
///     func controllerWillChangeContent(_ controller: ResultsController) { pending = [] }
///     func controller(_ controller: ResultsController, didChange section: SectionChange) { pending.append(.section(section)) }
///     func controller(_ controller: ResultsController, didChange row: RowChange) { pending.append(.row(row)) }
///     func controllerDidChangeContent(_ controller: ResultsController) { apply(pending) }
///     func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) { reloadData(snapshot) }
/// }
/// ```
public protocol ResultsControllerDelegate: AnyObject {
    /// A non-empty batch begins.
    func controllerWillChangeContent(_ controller: ResultsController)
    /// A section appeared (index after) or vanished (index before).
    func controller(_ controller: ResultsController, didChange section: SectionChange)
    /// A row was inserted, deleted, moved or updated.
    func controller(_ controller: ResultsController, didChange row: RowChange)
    /// The batch ended; the controller now shows the view after it.
    func controllerDidChangeContent(_ controller: ResultsController)
    /// The view was replaced (definition change or context reset): forget the old rows. The default reports the
    /// reload through the batch methods (see the protocol's overview); implement it to reload at once instead.
    func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot)
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: ResultsController) {}
    public func controller(_ controller: ResultsController, didChange section: SectionChange) {}
    public func controller(_ controller: ResultsController, didChange row: RowChange) {}
    public func controllerDidChangeContent(_ controller: ResultsController) {}
    /// Reports the reload through ``controllerWillChangeContent(_:)``, the section and row methods and
    /// ``controllerDidChangeContent(_:)``: a batch deleting every
    /// row (and section) of the view before, then a batch inserting every row (and section) of `snapshot`; an empty
    /// one is skipped. The controller already shows the new view during both.
    public func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {
        controller.reportReload(to: self, snapshot: snapshot)
    }
}
