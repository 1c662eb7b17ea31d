@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore

/// Undo and redo in a context (DESIGN §14): one save is one step of the context's author (its ``name``), the history
/// read from the log — so it survives restarts and works across processes and replicas — and the context's
/// ``mergePolicy`` deciding what happens when a later transaction changed what the step would set back:
///
/// | policy | a later change of what the undo sets back |
/// | --- | --- |
/// | ``MergePolicy/error`` | the undo throws ``StoreError/revertConflict(_:attribute:seq:)`` |
/// | ``MergePolicy/rollback`` | nothing is appended (`nil`) |
/// | ``MergePolicy/mergeByPropertyStoreTrump``, ``MergePolicy/mergeDisjointProperties`` | the later change stays; the undo sets back the rest |
/// | ``MergePolicy/mergeByPropertyObjectTrump``, ``MergePolicy/overwrite`` | the undo sets back what it would, whatever came later |
///
/// After an undo or redo the context is at the head, and its controllers got one batch.
extension Context {
    /// Whether ``undo()`` has a step to undo now.
    public var canUndo: Bool {
        observationRegistrar.access(self, keyPath: \.canUndo)
        return ((try? store.undoTarget(author: name)) ?? nil) != nil
    }

    /// Whether ``redo()`` has an undo to redo now.
    public var canRedo: Bool {
        observationRegistrar.access(self, keyPath: \.canRedo)
        return ((try? store.redoTarget(author: name)) ?? nil) != nil
    }

    /// Reverts the newest save of this context's author that is not an undo (or is a redo) and that nothing
    /// reverts yet, as one logged transaction.
    /// - Returns: the transaction appended; `nil` when the merge policy left nothing to append.
    /// - Throws: ``StoreError/cannotRevert(seq:reason:)`` with unsaved changes (save or roll them back first), or with
    ///   nothing to undo; ``StoreError/revertConflict(_:attribute:seq:)`` under ``MergePolicy/error``.
    @discardableResult
    public func undo() throws(StoreError) -> Transaction? {
        try step(redo: false)
    }

    /// Reverts the newest undo of this context's author that nothing reverts yet.
    /// - Returns: as ``undo()``.
    /// - Throws: as ``undo()``.
    @discardableResult
    public func redo() throws(StoreError) -> Transaction? {
        try step(redo: true)
    }

    private func step(redo: Bool) throws(StoreError) -> Transaction? {
        let what = redo ? "redo" : "undo"
        guard staged.isEmpty else {
            throw .cannotRevert(seq: nil, reason: "the context has unsaved changes: save or roll them back before an \(what)")
        }
        let target = try store.stepTarget(author: name, redo: redo)
        let conflicts: LogStore.RevertConflicts
        switch mergePolicy {
        case .error, .rollback: conflicts = .refuse
        case .mergeByPropertyStoreTrump, .mergeDisjointProperties: conflicts = .keepLater
        case .mergeByPropertyObjectTrump, .overwrite: conflicts = .force
        }
        let appended: Transaction?
        do {
            appended = try store.revert([target], author: name, conflicts: conflicts)
        } catch {
            if case .revertConflict = error, mergePolicy == .rollback { return nil }
            throw error
        }
        try refresh()
        return appended
    }
}
