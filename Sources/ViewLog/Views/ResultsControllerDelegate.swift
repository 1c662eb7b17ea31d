/// Told by a ``ResultsController`` about each batch, in this order: ``controllerWillChangeContent(_:)``, every
/// section change, every row change, ``controllerDidChangeContent(_:)``; and about reloads.
///
/// Calls are synchronous on the controller's isolation. Every method has an empty default. A main-actor
/// type conforms with an isolated conformance (`extension ViewModel: @MainActor ResultsControllerDelegate`)
/// and owns a controller confined to the main actor.
public protocol ResultsControllerDelegate: AnyObject {
    /// A non-empty batch begins.
    func controllerWillChangeContent(_ controller: ResultsController)
    /// A section appeared (index after) or vanished (index before).
    func controller(_ controller: ResultsController, didChange section: SectionChange)
    /// A row was inserted, deleted, moved or updated.
    func controller(_ controller: ResultsController, didChange row: RowChange)
    /// The batch ended; the controller now shows the view after it.
    func controllerDidChangeContent(_ controller: ResultsController)
    /// The view was replaced (definition change or context reset): forget the old rows.
    func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot)
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: ResultsController) {}
    public func controller(_ controller: ResultsController, didChange section: SectionChange) {}
    public func controller(_ controller: ResultsController, didChange row: RowChange) {}
    public func controllerDidChangeContent(_ controller: ResultsController) {}
    public func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {}
}
