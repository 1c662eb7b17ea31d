@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogStore

/// A bridge from a context's saves to an undo manager, so that an app's Edit menu undoes and redoes them (DESIGN §14):
/// each save that appends a transaction registers one undo action; that action calls ``undo()`` and registers a redo
/// action, which calls ``redo()`` and registers an undo action again. What an action undoes is read from the log, as
/// ``undo()`` reads it: the newest step of the context's author.
extension Context {
    /// Registers every later save of this context that appends a transaction as one undo action of `undoManager`,
    /// with this context as its target. Name the action as usual after the save (`setActionName`); two saves in one
    /// undo group are undone and redone together.
    ///
    /// An undo or redo the store refuses — a later change of what it would set back under ``MergePolicy/error``
    /// (``StoreError/revertConflict(_:attribute:seq:)``), unsaved changes in the context — is passed to `onFailure`
    /// and registers nothing: the undo manager drops that step, and nothing is appended. One the merge policy leaves
    /// with nothing to append registers nothing either.
    ///
    /// Undo and redo through the undo manager once it is bridged: a direct ``undo()`` takes a step the undo manager
    /// still lists. The undo manager holds the context unowned: call ``stopRegisteringSavesForUndo()`` before the
    /// context goes away. Saves of a bridged context must run on the main actor (a save elsewhere traps).
    /// - Parameters:
    ///   - undoManager: Foundation's `UndoManager` on Apple platforms (held weakly), or another ``UndoRegistering``.
    ///   - onFailure: called on the main actor with the error of a refused undo or redo.
    @MainActor
    public func registerSavesForUndo(with undoManager: some UndoRegistering,
                                     onFailure: @escaping @MainActor (StoreError) -> Void) {
        undoRegistration?.manager?.removeAllActions(withTarget: self)
        undoRegistration = UndoRegistration(manager: undoManager, onFailure: onFailure)
    }

    /// Stops registering saves, and removes this context's actions from the undo manager.
    @MainActor
    public func stopRegisteringSavesForUndo() {
        undoRegistration?.manager?.removeAllActions(withTarget: self)
        undoRegistration = nil
    }

    /// Registers the save just made as one undo action, when the context is bridged (``save()`` calls it).
    func registerSaveForUndo() {
        guard undoRegistration != nil else { return }
        // A bridged context lives on the main actor (it was bridged there, and a context stays in its isolation domain);
        // `assumeIsolated` traps a save made elsewhere.
        nonisolated(unsafe) let context = self
        MainActor.assumeIsolated { context.registerStep(redo: false) }
    }

    /// Registers an action that undoes (or, `redo`, redoes) the newest step when the undo manager runs it.
    @MainActor
    private func registerStep(redo: Bool) {
        undoRegistration?.manager?.registerUndo(withTarget: self) { context in context.runStep(redo: redo) }
    }

    /// Undoes or redoes the newest step, and registers the action that takes it back.
    @MainActor
    private func runStep(redo: Bool) {
        guard let registration = undoRegistration else { return }
        do {
            guard try (redo ? self.redo() : undo()) != nil else { return }
        } catch {
            registration.onFailure(error)
            return
        }
        registerStep(redo: !redo)
    }
}

/// The undo manager a context's saves register with (``Context/registerSavesForUndo(with:onFailure:)``).
struct UndoRegistration {
    weak var manager: (any UndoRegistering)?
    let onFailure: @MainActor (StoreError) -> Void
}
