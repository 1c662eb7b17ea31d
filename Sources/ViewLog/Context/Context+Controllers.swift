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
    /// view comes from the stored rows' keys, already in view order, with no object read. Not stored: views over key
    /// paths or with `$variables`.
    /// - Throws: ``StoreError/schema(_:)`` for an unknown entity; a ``QueryError`` naming an unknown attribute
    ///   or a type mismatch of the request.
    public func makeResultsController(_ request: FetchRequest) throws -> ResultsController {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        if !paths.isEmpty || !quantified.isEmpty {
            return adopt(try makeRelationalController(request, entity: viewEntity, paths: paths, quantified: quantified))
        }
        let plan = try ViewPlan(request, for: entity)
        if let name = try storedViewName(of: request) {
            if request.limit != nil, let (controller, _) = try makeStoredWindowController(view: name, request, following: true) {
                return controller
            }
            if request.limit == nil, let controller = try storedViewController(view: name, plan, entity) {
                return adopt(controller)
            }
        }
        let controller: ResultsController
        if let streamed = try headController(plan, entity) {
            controller = streamed
        } else {
            let objects = try self.objects(of: entity.name, staged: processed, reading: plan.attributesRead(of: entity))
            controller = ResultsController(plan: plan, entity: entity, objects: objects.lazy.map { ($0.id, $0.values) },
                                           position: position)
        }
        return adopt(controller)
    }

    /// The named view of the schema that `request` shows (`request` is the view's own, but for its `limit` and
    /// `offset`), whose stored rows can open it; `nil` for any other request.
    private func storedViewName(of request: FetchRequest) throws -> String? {
        guard request.includes.isEmpty else { return nil }
        var whole = request
        whole.limit = nil
        whole.offset = 0
        for (name, view) in try schema.views.sorted(by: { $0.key < $1.key }) where view.entity == request.entity {
            guard var own = try? FetchRequest(view) else { continue }  // a view with `$variables`: not stored
            own.limit = nil
            own.offset = 0
            if own == whole { return name }
        }
        return nil
    }

    /// A controller of the whole named view `name` (`plan` is its own, with any `offset`) made from its stored rows'
    /// keys (DESIGN §11), in view order: no object read, no sort. `nil` unless the context is at the head with no
    /// unsaved change of the entity and the store holds the view's rows for its definition.
    private func storedViewController(view name: String, _ plan: ViewPlan, _ entity: EntityDescription) throws
        -> ResultsController? {
        guard !processed.keys.contains(where: { $0.entity == entity.name }) else { return nil }
        let schema = try self.schema
        let position = self.position
        return try store.perform(read: true) { txn -> ResultsController? in
            guard try store.head(in: txn) == position,
                  let view = try store.storedView(named: name, schema: schema, showing: plan.request, in: txn) else { return nil }
            return try ResultsController(plan: plan, entity: entity, position: position) { stage in
                try store.forEachStoredRowKey(of: view, in: txn, stage)
            }
        }
    }

    /// Keeps `controller` up to date with this context from now on (see ``makeResultsController(_:)``).
    private func adopt(_ controller: ResultsController) -> ResultsController {
        addObserver(controller)
        controller.context = self
        return controller
    }

    /// A controller of `request` built straight from the object rows, each decoded into one reused
    /// ``FetchedValues`` (no object materialized), when the context is at the head and has no processed change
    /// of the entity; `nil` otherwise.
    /// `member`, when given, is called with each object that belongs to the view and its whole values' stored bytes
    /// (valid only during the call).
    private func headController(_ plan: ViewPlan, _ entity: EntityDescription,
                                reserve: ((_ rows: Int, _ bytes: Int) -> Void)? = nil,
                                member: ((ObjectID, UnsafeRawBufferPointer) -> Void)? = nil) throws -> ResultsController? {
        guard !processed.keys.contains(where: { $0.entity == entity.name }) else { return nil }
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
    private func entity(of request: FetchRequest) throws -> EntityDescription {
        let schema = try self.schema
        do { return try schema.entity(named: request.entity) } catch { throw StoreError.schema(error) }
    }

    /// ``makeResultsController(_:)``, and the values of its rows, kept from the same read: for a caller that prints
    /// the view (the CLI's `query`). At the head, the rows' stored bytes from the scan of the object rows; at an
    /// older position, the values the fold computed, every object fed to the controller from its slots. `nil`
    /// (nothing made) when the context has an unsaved change of the entity, or when the log needs the fold by name;
    /// use ``makeResultsControllerAndObjects(_:)`` then.
    @_spi(Engine) public func makeResultsControllerKeepingRows(_ request: FetchRequest) throws
        -> (controller: ResultsController, rows: ViewRowRecords)? {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        guard !processed.keys.contains(where: { $0.entity == entity.name }) else { return nil }
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
    @_spi(Engine) public func makeResultsControllerAndObjects(_ request: FetchRequest) throws
        -> (controller: ResultsController, objects: [(id: ObjectID, values: ObjectValues)]) {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        let objects = try self.objects(of: entity.name, staged: processed)
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        if !paths.isEmpty || !quantified.isEmpty {
            return (adopt(try makeRelationalController(request, entity: viewEntity, paths: paths, quantified: quantified)), objects)
        }
        let controller = try ResultsController(fetchRequest: request, entity: entity,
                                               objects: objects.lazy.map { ($0.id, $0.values) }, position: position)
        return (adopt(controller), objects)
    }

    /// The view of `request` at this context's position with its processed changes, for a controller's refetch.
    func refetch(_ controller: ResultsController, _ request: FetchRequest) throws {
        try processPendingChanges()
        controller.refill = nil  // the whole view from now on
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
        let head = try store.head
        let p = target ?? head
        guard p <= head else { throw StoreError.positionPastHead(position: p, head: head) }
        staged.removeAll()
        processed.removeAll()
        position = p
        observers.removeAll { $0.observer == nil }
        for case let controller as ResultsController in observers.map(\.observer) {
            controller.refill = nil  // the whole view from now on
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
    /// Runs on the caller's isolation (the context's), so the context is never touched concurrently:
    /// `Task { @MainActor in try await context.mergeChangesAutomatically() }`.
    /// - Throws: ``StoreError/notAStore(path:reason:)`` when the store's files are removed while it follows;
    ///   an error of ``refresh()``.
    public func mergeChangesAutomatically(isolation: isolated (any Actor)? = #isolation) async throws {
        for try await head in store.headUpdates() {
            if Task.isCancelled { return }
            if head > position { try refresh() }
        }
    }
}

@_spi(Engine) extension ResultsController: ContextObserver {
    /// The controller's entity: a context's delta needs no other.
    @_spi(Engine) public var observedEntity: String? { relational == nil ? entity.name : nil }

    /// Applies the move as one batch; a view over key paths adds the rows whose path values the move changed.
    @_spi(Engine) public func context(_ context: Context, didMoveWith delta: Delta) {
        guard let relational else {
            if let refill, !addRowsBefore(delta, refill, context: context) {
                // The store disagrees with itself (a damaged view): the whole view, built in memory from here on,
                // reported as a reload, never as silence.
                self.refill = nil
                try? context.refetch(self, fetchRequest)
                return
            }
            _ = apply(delta)
            return
        }
        do {
            _ = apply(try relational.augmented(delta, entity: entity.name, context: context))
        } catch {
            // The context could not read the related objects (a damaged store): the view starts again at the new
            // position from what the context holds — no rows if even that cannot be read — reported as a reload,
            // never as silence. (Nothing is delivered from here: the context is delivering this move.)
            followError = error
            let rows = (try? context.relationalRows(of: entity.name, relational)) ?? []
            _ = reload(objects: rows, position: delta.to, plan: nil)
        }
    }
}

extension ResultsController {
    /// Adds, unreported, the rows a controller holding only a stored view's head needs before it applies `delta`
    /// (``refill``). When the stored view cannot serve the move (too far below the head, a schema change, a view
    /// changed or damaged), the controller takes the whole view at the move's start instead and holds it from then
    /// on: the move is still reported as its change set. Returns `false` when even that failed.
    fileprivate func addRowsBefore(_ delta: Delta, _ refill: (Delta, Context) throws -> [(ObjectID, ObjectValues)],
                                   context: Context) -> Bool {
        if let rows = try? refill(delta, context), addRowsPastWindow(rows) { return true }
        self.refill = nil
        guard let whole = try? context.objectsBefore(delta, of: entity.name) else { return false }
        return addRowsPastWindow(whole)
    }
}

extension Context {
    /// Every object of `entity` as it was at the start of `delta`, a move this context is delivering: its objects now
    /// (position and processed changes), those the move changed as they were before it.
    fileprivate func objectsBefore(_ delta: Delta, of entity: String) throws -> [(ObjectID, ObjectValues)] {
        var byID: [ObjectID: ObjectValues] = [:]
        for (id, values) in try objects(of: entity, staged: processed) { byID[id] = values }
        for d in delta.objects where d.key.entity == entity { byID[d.key.id] = d.before }
        return Array(byID)
    }

    /// The values in this context of the objects of `entity` its processed unsaved changes touch (`nil`: deleted).
    fileprivate func processedValues(of entity: String) throws -> [ObjectID: ObjectValues?] {
        var out: [ObjectID: ObjectValues?] = [:]
        for key in processed.keys where key.entity == entity {
            out[key.id] = .some(processed.values(of: key, base: try store.object(key, at: position)))
        }
        return out
    }
}

extension Context {
    /// The window of a named view read from its stored rows (DESIGN §11), for a caller that prints it once (the
    /// CLI's `query`): O(log n + offset + limit) entries, then the window's objects — not the entity. The controller
    /// holds only the window's rows, so it is **not** kept up to date by the context: print it, do not move it.
    /// `request` must be the view's own (``FetchRequest/init(_:variables:)``) with any `limit` and `offset`.
    ///
    /// `nil` (nothing made) unless the context is at the head with no unsaved change of the entity, the request has
    /// a `limit`, and the store holds the view's rows for its definition (not a view over key paths, nor one with
    /// `$variables`); use ``makeResultsControllerKeepingRows(_:)`` then.
    @_spi(Engine) public func makeStoredWindowSnapshot(view name: String, _ request: FetchRequest) throws
        -> (controller: ResultsController, rows: ViewRowRecords)? {
        try processPendingChanges()
        guard let limit = request.limit, request.includes.isEmpty else { return nil }
        let entity = try self.entity(of: request)
        guard !processed.keys.contains(where: { $0.entity == entity.name }) else { return nil }
        let schema = try self.schema
        guard try schema.viewEntity(of: request).entity == entity else { return nil }  // over key paths: not here
        let position = self.position
        var window = request
        window.offset = 0
        let plan = try ViewPlan(window, for: entity)
        return try store.perform(read: true) { txn -> (ResultsController, ViewRowRecords)? in
            guard try store.head(in: txn) == position,
                  let view = try store.storedView(named: name, schema: schema, showing: request, in: txn) else { return nil }
            var ids: [ObjectID] = []
            ids.reserveCapacity(min(limit, 65_536))
            if limit > 0 {
                try store.forEachStoredRow(of: view, from: request.offset, in: txn) { id in
                    ids.append(id)
                    return ids.count < limit
                }
            }
            var rows = ViewRowRecords(entity: entity)
            let what = "the stored view '\(name)'"
            let controller = try ResultsController(plan: plan, entity: entity, position: position) { visit in
                try store.forEachHeadObject(of: entity.name, ids: ids, reading: plan.attributesRead(of: entity), named: what,
                                            in: txn) { id, fetched, values in
                    guard visit(id, fetched) else {
                        throw StoreError.corrupt(seq: nil, reason: "\(what) holds \(entity.name) \(id.json.text), which the view does not: run 'viewlog verify'")
                    }
                    rows.append(id, values: values)
                }
            }
            return (controller, rows)
        }
    }
}

extension Context {
    /// A live controller of a windowed named view at this context's position p, made from the view's stored rows at
    /// the head (DESIGN §11) and the objects that the transactions after p changed: the first `offset + limit` stored
    /// rows of objects those transactions did not touch, and every object they touched, with its values at p. Each
    /// row of the window at any position from p to the head is among them, with every row before it, so the
    /// controller is exact at every position in that range — a `diff` between positions near the head reads the
    /// window and the changed rows, not the whole view. Past the head it is not: use it only to move within the
    /// range, never to follow the store.
    ///
    /// With `following`, the controller stays exact past the head too: before each move it adds, without reporting
    /// them, the rows the move needs from the stored view — the first `offset + limit` rows of objects untouched
    /// since the move's start, and the objects changed since then, as they were there — so a row leaving the
    /// window pulls the next one in (`watch` starts so: O(log n + offset + limit), not the whole view).
    ///
    /// `nil` (nothing made) unless the context is at or below the head by at most `transactionsMax` transactions,
    /// with no unsaved change of the entity and no schema change after it, the request has a `limit`, and the store
    /// holds the view's rows.
    /// - Returns: the controller (adopted by this context: every move reaches it) and the values of its rows at p.
    @_spi(Engine) public func makeStoredWindowController(view name: String, _ request: FetchRequest,
                                                         transactionsMax: UInt64 = 65_536, following: Bool = false) throws
        -> (controller: ResultsController, values: [ObjectID: ObjectValues])? {
        try processPendingChanges()
        guard let limit = request.limit, request.includes.isEmpty else { return nil }
        let entity = try self.entity(of: request)
        guard !processed.keys.contains(where: { $0.entity == entity.name }) else { return nil }
        let schema = try self.schema
        guard try schema.viewEntity(of: request).entity == entity else { return nil }  // over key paths: in memory
        let position = self.position
        let plan = try ViewPlan(request, for: entity)
        let made = try store.perform(read: true) { txn -> [(ObjectID, ObjectValues)]? in
            let head = try store.head(in: txn)
            guard head >= position, head - position <= transactionsMax,
                  try store.schema(at: UInt64.max, in: txn) == schema,
                  let view = try store.storedView(named: name, schema: schema, showing: request, in: txn) else { return nil }
            // Every object of the entity a transaction after p touched (also one changed and changed back).
            var touched = Set<ObjectID>()
            for t in try store.readTransactions(txn, from: position + 1, through: head) {
                for change in t.changes {
                    guard let key = change.key else { return nil }  // a schema change: the view may differ
                    if key.entity == entity.name { touched.insert(key.id) }
                }
            }
            let delta = try store.delta(from: head, to: position, entities: [entity.name], in: txn)
            var atPosition: [ObjectID: ObjectValues?] = [:]
            for d in delta.objects where d.key.entity == entity.name { atPosition[d.key.id] = d.after }
            var ids: [ObjectID] = []
            let wanted = request.offset + limit
            if wanted > 0 {
                try store.forEachStoredRow(of: view, from: 0, in: txn) { id in
                    if !touched.contains(id) { ids.append(id) }
                    return ids.count < wanted
                }
            }
            var rows: [(ObjectID, ObjectValues)] = []
            rows.reserveCapacity(ids.count + touched.count)
            let format = try store.format(in: txn)
            // Touched objects the delta does not name are as they are at the head.
            let atHead = touched.filter { atPosition[$0] == nil }
            for id in ids + atHead.sorted() {
                let k = ObjectRecordCodec.key(ObjectKey(entity: entity.name, id: id))
                let values: ObjectValues? = try k.withUnsafeBytes { kb in
                    guard let bytes = try txn.value(store.objectsDB, for: kb) else { return nil }
                    do { return try ObjectRecordCodec.decode(bytes, key: kb, format: format, canonicalFor: entity.attributes) } catch {
                        throw StoreError.corrupt(seq: nil, reason: "object \(entity.name) \(id.json.text): \(error)")
                    }
                }
                if let values { rows.append((id, values)) }
                else if !touched.contains(id) {
                    throw StoreError.corrupt(seq: nil, reason: "the stored view '\(name)' names \(entity.name) \(id.json.text), which does not exist: run 'viewlog verify'")
                }
            }
            for case let (id, values?) in atPosition { rows.append((id, values)) }
            return rows
        }
        guard let made else { return nil }
        let controller = ResultsController(plan: plan, entity: entity, objects: made, position: position)
        if following {
            let store = self.store, wanted = request.offset + limit
            controller.refill = { delta, context in
                try store.rowsBefore(delta, ofStoredView: name, request: request, entity: entity, wanted: wanted,
                                     unsaved: try context.processedValues(of: entity.name), transactionsMax: transactionsMax)
            }
        }
        return (adopt(controller), Dictionary(made, uniquingKeysWith: { a, _ in a }))
    }
}
