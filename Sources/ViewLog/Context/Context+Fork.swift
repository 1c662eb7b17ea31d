@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore

/// Forks (DESIGN §14): a child context on a parent's position and unsaved changes, for a what-if the user may keep or
/// drop. Making one copies no object — the parent's staged changes are shared until either side changes them — so it
/// costs O(1) whatever the store holds; its controllers show the fork's changes on top of the parent's, and the
/// parent sees none of them until ``merge()``.
extension Context {
    /// A child context at this context's position with its unsaved changes, named `name` (default: this context's).
    /// - Throws: what ``Context/init(store:name:at:)`` throws.
    public func fork(name: String? = nil) throws(StoreError) -> Context {
        let child = try Context(store: store, name: name ?? self.name, at: position)
        child.mergePolicy = mergePolicy
        child.staged = staged
        child.processed = staged
        child.fork = (self, staged, [])
        return child
    }

    /// Whether this context is a fork (``fork(name:)``) whose changes ``merge()`` or ``discard()`` may still take.
    public var isFork: Bool { fork != nil }

    /// Stages this fork's own changes in its parent, in the order they were staged here — checked against the
    /// parent's state as it is now, all or none — and starts the fork again on the parent's state (its controllers get
    /// one batch if that differs). The parent's save decides conflicts with other transactions under its merge policy.
    /// - Throws: ``StoreError/invalidStagedChange(_:operation:reason:)`` naming the first change the parent refuses
    ///   (nothing is staged in the parent; the fork keeps its changes).
    /// - Precondition: this context is a fork.
    public func merge() throws(StoreError) {
        guard let fork else { preconditionFailure("merge() of a context that is not a fork") }
        let before = fork.parent.staged
        let parentFork = fork.parent.fork
        do {
            for request in fork.own { try fork.parent.stage(request) }
        } catch {
            fork.parent.staged = before
            fork.parent.fork = parentFork
            throw error
        }
        try restart(on: fork.parent)
    }

    /// Drops this fork's own changes: it shows its parent's state again (its controllers get one batch).
    /// - Precondition: this context is a fork.
    public func discard() throws(StoreError) {
        guard let fork else { preconditionFailure("discard() of a context that is not a fork") }
        try restart(on: fork.parent)
    }

    /// Starts the fork again at `parent`'s position with its unsaved changes and none of its own.
    private func restart(on parent: Context) throws(StoreError) {
        staged = parent.staged
        fork = (parent, parent.staged, [])
        if position != parent.position {
            try move(to: parent.position)
        } else {
            try processPendingChanges()
        }
    }
}
