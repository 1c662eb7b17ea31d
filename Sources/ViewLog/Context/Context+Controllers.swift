@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
extension Context {
    /// Makes a results controller of `request` showing this context — its position plus the unsaved changes
    /// already processed — and keeps it up to date: every later move, save or ``processPendingChanges()``
    /// is one batch for it. Pending changes are processed first (as Core Data's fetch does).
    ///
    /// The context holds its controllers weakly and each controller holds its context (``ResultsController/context``):
    /// keep a reference to the controller while you use it, and the context lives as long as it does.
    ///
    /// The fetch reads only the attributes the request's predicate, section key and sort keys name: at the head,
    /// with no unsaved change of the entity, straight from the stored rows without making an object per row.
    ///
    /// A request that shows a named view of the schema (the view's own request, with any `limit` and `offset`) opens
    /// from the view's rows stored in the store (DESIGN §11) when the context is at the head, or close below it, with
    /// no unsaved change of the entity: with a `limit`, the controller reads and holds only the window — O(log n +
    /// offset + limit), however big the view — and before each later batch pulls from the stored view the rows the
    /// batch brings into the window, so it stays exact through unsaved changes, saves, merges and moves (a move far
    /// below the head makes it take the whole view then, still reported as one batch); without a `limit`, the whole
    /// view comes from the stored rows' keys, already in view order, with no object read. A named view over key paths
    /// opens from its stored rows too (with no unsaved change): with a `limit`, at the head from its window (the
    /// window's rows and their path values), taking the whole view, unreported, at the start of its first move that
    /// changes something; close below the head from the window and the rows changed since, their path values read
    /// from the stored state, exact for moves up to the head (a move out of that range takes the whole view then);
    /// without a `limit`, at the head in the stored order (its path values computed from the objects, no sort).
    /// Not stored: views with `$variables`.
    /// - Throws: ``StoreError/schema(_:)`` for an unknown entity; a ``QueryError`` naming an unknown attribute
    ///   or a type mismatch of the request.
    public func makeResultsController(_ request: FetchRequest) throws -> ResultsController {
        try openView(request, for: .follow, keepingRows: false).controller
    }

    /// Keeps `controller` up to date with this context from now on (see ``makeResultsController(_:)``).
    func adopt(_ controller: ResultsController) -> ResultsController {
        addObserver(controller)
        controller.context = self
        return controller
    }

    /// A controller of `request` built straight from the object rows, each decoded into one reused
    /// ``FetchedValues`` (no object materialized), when the context is at the head and has no processed change
    /// of the entity; `nil` otherwise.
    /// `member`, when given, is called with each object that belongs to the view and its whole values' stored bytes
    /// (valid only during the call).
    func headController(_ plan: ViewPlan, _ entity: EntityDescription,
                                reserve: ((_ rows: Int, _ bytes: Int) -> Void)? = nil,
                                member: ((ObjectID, UnsafeRawBufferPointer) -> Void)? = nil) throws -> ResultsController? {
        guard !unsavedChangesTouch(entity.name, overPaths: false) else { return nil }
        let position = self.position
        let attributes = plan.attributesRead(of: entity)
        return try store.perform(read: true) { txn -> ResultsController? in
            guard try store.head(in: txn) == position else { return nil }
            if let reserve {
                let objects = try txn.statistics(store.objectsDB)
                reserve(objects.entries, objects.bytes)
            }
            return try ResultsController(plan: plan, entity: entity, position: position) { visit in
                try store.forEachHeadObject(of: entity.name, reading: attributes, in: txn) { id, fetched, values in
                    if visit(id, fetched), let member { member(id, values) }
                }
            }
        }
    }

    /// The entity of `request` in this context's schema.
    func entity(of request: FetchRequest) throws -> EntityDescription {
        let schema = try self.schema
        do { return try schema.entity(named: request.entity) } catch { throw StoreError.schema(error) }
    }

    /// ``makeResultsController(_:)``, and the values of its rows, kept from the same read: for a caller that prints
    /// the view (the CLI's `query`). At the head, the rows' stored bytes from the scan of the object rows; at an
    /// older position, the values the fold computed, every object fed to the controller from its slots. `nil`
    /// (nothing made) when the context has an unsaved change of the entity, or when the log needs the fold by name;
    /// use ``makeResultsControllerAndObjects(_:)`` then.
    func makeResultsControllerKeepingRows(_ request: FetchRequest) throws
        -> (controller: ResultsController, rows: ViewRowRecords)? {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        guard !unsavedChangesTouch(entity.name, overPaths: false) else { return nil }
        guard try schema.viewEntity(of: request).entity.attributes.count == entity.attributes.count else {
            return nil  // rows with path values: by objects
        }
        let plan = try ViewPlan(request, for: entity)
        var rows = ViewRowRecords(entity: entity)
        // Room for every object row (an upper bound, reserved, not touched): the rows kept are never copied to grow.
        let reserve = { (count: Int, bytes: Int) in rows.reserve(rows: count, bytes: bytes) }
        if let controller = try headController(plan, entity, reserve: reserve, member: { id, values in rows.append(id, values: values) }) {
            return (adopt(controller), rows)
        }
        let position = self.position
        let attributes = plan.attributesRead(of: entity)
        let controller = try store.perform(read: true) { txn -> ResultsController? in
            var complete = true
            let controller = try ResultsController(plan: plan, entity: entity, position: position) { visit in
                complete = try store.forEachObject(of: entity, at: position, reading: attributes, in: txn,
                                                   visit: visit, member: { id, all in rows.append(id, slots: all) })
            }
            return complete ? controller : nil
        }
        guard let controller else { return nil }
        return (adopt(controller), rows)
    }

    /// ``makeResultsController(_:)``, and the objects it was made from: every object of the request's entity
    /// in this context, in id order (for a caller that prints the rows' values, as the CLI does).
    func makeResultsControllerAndObjects(_ request: FetchRequest) throws
        -> (controller: ResultsController, objects: [(id: ObjectID, values: ObjectValues)]) {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        let objects = try self.objects(of: entity.name, staged: processed)
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        if !paths.isEmpty || !quantified.isEmpty {
            return (adopt(try makeRelationalController(request, entity: viewEntity, paths: paths, quantified: quantified).controller), objects)
        }
        let controller = try ResultsController(fetchRequest: request, entity: entity,
                                               objects: objects.lazy.map { ($0.id, $0.values) }, position: position)
        return (adopt(controller), objects)
    }

    /// The view of `request` at this context's position with its processed changes, for a controller's refetch.
    func refetch(_ controller: ResultsController, _ request: FetchRequest) throws {
        try processPendingChanges()
        controller.source = .whole
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        if !paths.isEmpty || !quantified.isEmpty {
            let relational = RelationalView(paths: paths, quantified: quantified)
            let rows = try relationalRows(of: viewEntity.name, relational)
            controller.relational = relational
            controller.reload(objects: rows, position: position, plan: try ViewPlan(request, for: viewEntity))
            return
        }
        controller.relational = nil
        let plan = try ViewPlan(request, for: controller.entity)
        // A controller that filters with a closure may read any attribute.
        let read: [Attribute]?
        if case .predicate = controller.membership { read = plan.attributesRead(of: controller.entity) } else { read = nil }
        let objects = try self.objects(of: controller.entity.name, staged: processed, reading: read)
        controller.reload(objects: objects.lazy.map { ($0.id, $0.values) }, position: position, plan: plan)
    }

    /// Makes a results controller of the schema's named view `name`, from its stored rows where it can (see
    /// ``makeResultsController(_:)``): a view with a `limit` opens in O(log n + offset + limit).
    public func makeResultsController(view name: String, variables: [String: Value] = [:]) throws -> ResultsController {
        guard let view = try schema.views[name] else {
            throw StoreError.schema(.invalidView(view: name, reason: "no such view in the schema"))
        }
        return try makeResultsController(try FetchRequest(view, variables: variables))
    }

    /// Discards unsaved changes and moves to `position` (default: the head), reloading every controller
    /// from scratch: reported to each as one ``ViewEvent/reload(_:)``, never as silence.
    public func reset(to target: UInt64? = nil) throws {
        let p = try store.checkedPosition(target)
        staged.removeAll()
        processed.removeAll()
        position = p
        observers.removeAll { $0.observer == nil }
        for case let controller as ResultsController in observers.map(\.observer) {
            controller.source = .whole
            if controller.relational != nil {  // with its path values, from the new position
                try refetch(controller, controller.fetchRequest)
                continue
            }
            let objects = try store.objects(of: controller.entity.name, at: p)
            try controller.reload(objects: objects.lazy.map { ($0.id, $0.values) }, position: p)
        }
    }

    /// Follows the store: moves to the head after every save of any context of this process (immediately)
    /// and of other processes (as soon as the kernel tells of the write), one batch per move for every
    /// controller. Returns when the calling task is cancelled. Shares the store's one head monitor with every
    /// other follower of this process (``LogStore/headUpdates()``): an idle follower costs no CPU.
    ///
    /// Runs on the caller's isolation (the context's), so the context is never touched concurrently. It returns
    /// only when its task is cancelled: give it a task of its own,
    /// `Task { @MainActor in try await context.mergeChangesAutomatically() }`, never `await` it inline. For Core
    /// Data's `automaticallyMergesChangesFromParent = true`, the switch that returns at once, use
    /// ``startMergingChangesAutomatically(isolation:)``.
    /// - Throws: ``StoreError/notAStore(path:reason:)`` when the store's files are removed while it follows;
    ///   an error of ``refresh()``.
    public func mergeChangesAutomatically(isolation: isolated (any Actor)? = #isolation) async throws {
        try await Self.merge(heads: store, isolation: isolation) { self }
    }

    /// The merge loop of ``mergeChangesAutomatically(isolation:)`` and ``startMergingChangesAutomatically(isolation:)``:
    /// moves the context `context` gives to every new head of `store`, until the task is cancelled or `context`
    /// gives none (released).
    private static func merge(heads store: LogStore, isolation: isolated (any Actor)?, _ context: () -> Context?) async throws {
        for try await head in store.headUpdates() {  // bounded by the task: it ends when the task is cancelled
            guard let context = context(), !Task.isCancelled else { return }
            if head > context.position { try context.refresh() }
        }
    }

    /// Whether the context follows the store on its own, as started by
    /// ``startMergingChangesAutomatically(isolation:)`` — Core Data's `automaticallyMergesChangesFromParent`.
    public var automaticallyMergesChanges: Bool { automaticMerge != nil }

    /// Turns automatic merging on and returns at once: from now on the context moves to the head after every save
    /// of any context of this process and of other processes, one batch per move for every controller, as
    /// ``mergeChangesAutomatically(isolation:)`` does — in a task on the caller's isolation (the context's actor:
    /// the main actor for a UI). It stops when you call ``stopMergingChangesAutomatically()``, when the context
    /// is released (the follower does not keep it alive), or on an error, kept in ``automaticMergeError``.
    /// Calling it while it runs does nothing.
    ///
    /// ```swift
    /// main.startMergingChangesAutomatically()   // returns at once; `tall` now follows every save
    /// ```
    ///
    /// - Precondition: the caller is isolated to an actor (the context's): a context used without an actor follows
    ///   by awaiting ``mergeChangesAutomatically(isolation:)`` in a task of its own.
    public func startMergingChangesAutomatically(isolation: isolated (any Actor)? = #isolation) {
        precondition(isolation != nil, "startMergingChangesAutomatically() needs the context's actor (e.g. the main actor): "
                     + "without one, await mergeChangesAutomatically() in a task of its own")
        guard automaticMerge == nil else { return }
        automaticMergeGenerations += 1
        let generation = automaticMergeGenerations
        automaticMergeError = nil
        let store = self.store
        // The task runs on `isolation` (it captures it), so it touches the context only where the caller does. It
        // holds the context weakly, strongly only while it refreshes: releasing the context cancels it (`deinit`).
        let task = Task { [weak self] in
            _ = isolation
            var failure: (any Error)?
            do {
                try await Self.merge(heads: store, isolation: isolation) { [weak self] in self }
            } catch {
                failure = error
            }
            guard let self, self.automaticMerge?.generation == generation else { return }  // not stopped or restarted since
            self.automaticMergeError = failure
            self.automaticMerge = nil
        }
        automaticMerge = (task, generation)
    }

    /// Turns automatic merging off: the context no longer moves on its own (a move already delivered stays).
    public func stopMergingChangesAutomatically() {
        automaticMerge?.task.cancel()
        automaticMerge = nil
    }
}

@_spi(Engine) extension ResultsController: ContextObserver {
    /// The controller's entity: a context's delta needs no other.
    @_spi(Engine) public var observedEntity: String? { relational == nil ? entity.name : nil }

    /// Applies the move as one batch, after its source's transition (``prepare(for:context:)``); a view over key paths
    /// adds the rows whose path values the move changed.
    ///
    /// One error policy for every source: when the move cannot be followed (a damaged store), the error is recorded
    /// (``followError``) and the view starts again at the new position from what the context holds — no rows if even
    /// that cannot be read — reported as a reload, never as silence. (Nothing is delivered from here: the context is
    /// delivering this move.)
    @_spi(Engine) public func context(_ context: Context, didMoveWith delta: Delta) {
        followError = nil
        do {
            try carry(delta, context: context)
            if let served = try prepare(for: delta, context: context) {
                _ = apply(served)
            } else if let relational {
                _ = apply(try relational.augmented(delta, entity: entity.name, context: context))
            } else {
                _ = apply(delta)
            }
        } catch {
            followError = error
            source = .whole
            if let relational {
                _ = reload(objects: (try? context.relationalRows(of: entity.name, relational)) ?? [], position: delta.to, plan: nil)
            } else {
                let objects = (try? context.objects(of: entity.name, staged: context.processed)) ?? []
                _ = reload(objects: objects.lazy.map { ($0.id, $0.values) }, position: delta.to, plan: nil)
            }
        }
    }
}
