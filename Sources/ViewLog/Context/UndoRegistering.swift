/// The part of Foundation's `UndoManager` that a context's undo bridge uses
/// (``Context/registerSavesForUndo(with:onFailure:)``): registering an action and removing a target's actions.
///
/// The requirements are `UndoManager`'s own declarations, so on Apple platforms `UndoManager` conforms as it is: this
/// package declares the conformance where Foundation has `UndoManager` (`#if canImport(Darwin)`). Foundation on Linux
/// has no `UndoManager`; there, the bridge works with any type that behaves like one, and is tested with such a type.
///
/// What the bridge relies on is `UndoManager`'s rule for redo: an action registered while an undo runs goes on the redo
/// stack, one registered while a redo runs goes on the undo stack, and one registered otherwise clears the redo stack.
@MainActor
public protocol UndoRegistering: AnyObject {
    /// Registers `handler` as an undo action of `target` (held unowned, as `UndoManager` holds it); registered while an
    /// undo runs, it is a redo action.
    func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @MainActor (Target) -> Void)

    /// Removes every undo and redo action registered with `target`.
    func removeAllActions(withTarget target: Any)
}
