#if canImport(Darwin)
import Foundation

/// Foundation's undo manager, as ``Context/registerSavesForUndo(with:onFailure:)`` uses it. Compiled only on Apple
/// platforms (Foundation on Linux has no `UndoManager`), against SDKs whose `UndoManager` is main-actor isolated.
extension UndoManager: UndoRegistering {}
#endif
