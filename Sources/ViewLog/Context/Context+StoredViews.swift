@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// Results controllers made from the named views stored in the store (DESIGN §11): a window of a named view in
/// O(log n + offset + limit), kept exact as it moves by pulling rows from the stored view; a whole named view from
/// its stored rows' keys; the windows the CLI prints once (also of views over key paths).
extension Context {
    /// The named view of the schema that `request` shows (`request` is the view's own, but for its `limit` and
    /// `offset`), whose stored rows can open it; `nil` for any other request.
    func storedViewName(of request: FetchRequest) throws -> String? {
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

    /// The window, entity and schema of `request` when a window of its stored view could serve it: it has a `limit`,
    /// no key path (those rows need path values: see ``makeStoredPathRangeController(view:_:transactionsMax:)``), and
    /// the context no unsaved change of its entity (processed first). `nil` otherwise.
    private func storedWindowRequest(_ request: FetchRequest) throws -> (limit: Int, entity: EntityDescription, schema: Schema)? {
        try processPendingChanges()
        guard let limit = request.limit else { return nil }
        let entity = try self.entity(of: request)
        guard !unsavedChangesTouch(entity.name, overPaths: false) else { return nil }
        let schema = try self.schema
        guard try schema.viewEntity(of: request).entity == entity else { return nil }
        return (limit, entity, schema)
    }

    /// A controller of the whole named view `name` (`plan` is its own, with any `offset`) made from its stored rows'
    /// keys (DESIGN §11), in view order: no object read, no sort. `nil` unless the context is at the head with no
    /// unsaved change of the entity and the store holds the view's rows for its definition.
    func storedViewController(view name: String, _ plan: ViewPlan, _ entity: EntityDescription) throws
        -> ResultsController? {
        guard !unsavedChangesTouch(entity.name, overPaths: false) else { return nil }
        let schema = try self.schema
        let position = self.position
        return try store.perform(read: true) { txn -> ResultsController? in
            // At the head: the one check of a stored view near a position, with no transaction between.
            guard let (view, _) = try store.storedView(named: name, schema: schema, showing: plan.request, near: position,
                                                       transactionsMax: 0, in: txn) else { return nil }
            return try ResultsController(plan: plan, entity: entity, position: position) { stage in
                try store.forEachStoredRowKey(of: view, in: txn, stage)
            }
        }
    }

}

extension Context {
    /// The rows a controller holding the window of a flat stored view (``ViewSource/storedWindow(rowsBefore:)``) adds
    /// before it applies `delta`, a move this context is delivering, so that its window after the move is exact: the
    /// stored-view reader's rows at the move's end, the context's position
    /// (``storedRangeRows(view:_:_:entity:alsoTouched:low:values:transactionsMax:)``) — the first stored rows of objects
    /// untouched since, and the objects changed since up to the head — with the objects the move changes as they were
    /// at its start (the delta has them: the move's span is not read again), and those of the unsaved changes as the
    /// context shows them. Every other object is the same at both ends. `nil` when the stored view cannot serve the
    /// move (the caller takes the whole view).
    func storedRowsBefore(_ delta: Delta, view name: String, _ request: FetchRequest, entity: EntityDescription,
                          transactionsMax: UInt64) throws -> [(ObjectID, ObjectValues)]? {
        // The objects whose values at the move's start the store's rows do not give.
        var start = try processedValues(of: entity.name)
        for d in delta.objects where d.key.entity == entity.name { start[d.key.id] = .some(d.before) }
        guard let (_, rows, _) = try storedRangeRows(view: name, request, RelationalView(paths: [], quantified: []), entity: entity,
                                                     alsoTouched: Set(start.keys),
                                                     transactionsMax: transactionsMax) else { return nil }
        var out = rows.filter { start[$0.0] == nil }
        for case let (id, values?) in start { out.append((id, values)) }
        return out
    }
}

extension Context {
    /// Every object of `entity` as it was at the start of `delta`, a move this context is delivering: its objects now
    /// (position and processed changes), those the move changed as they were before it (in no particular order).
    func objectsBefore(_ delta: Delta, of entity: String) throws -> [(id: ObjectID, values: ObjectValues)] {
        let now = try objects(of: entity, staged: processed)
        guard delta.objects.contains(where: { $0.key.entity == entity }) else { return now }
        var byID = Dictionary(now.map { ($0.id, $0.values) }, uniquingKeysWith: { a, _ in a })
        for d in delta.objects where d.key.entity == entity { byID[d.key.id] = d.before }
        return byID.map { (id: $0.key, values: $0.value) }
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
    func makeStoredWindowSnapshot(view name: String, _ request: FetchRequest) throws
        -> (controller: ResultsController, rows: ViewRowRecords)? {
        guard let (limit, entity, schema) = try storedWindowRequest(request) else { return nil }
        let position = self.position
        var window = request
        window.offset = 0
        let plan = try ViewPlan(window, for: entity)
        return try store.perform(read: true) { txn -> (ResultsController, ViewRowRecords)? in
            guard let (view, _) = try store.storedView(named: name, schema: schema, showing: request, near: position,
                                                       transactionsMax: 0, in: txn) else { return nil }
            let ids = try store.storedRowIDs(of: view, offset: request.offset, limit: limit, in: txn)
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
    func makeStoredWindowController(view name: String, _ request: FetchRequest,
                                                         transactionsMax: UInt64 = Limits.storedViewCatchUpTransactionsMax, following: Bool = false) throws
        -> (controller: ResultsController, values: [ObjectID: ObjectValues])? {
        guard let (_, entity, _) = try storedWindowRequest(request) else { return nil }
        let plan = try ViewPlan(request, for: entity)
        // The reader of views over key paths, with no path: the rows touched since p and the window untouched.
        guard let (_, made, values) = try storedRangeRows(view: name, request, RelationalView(paths: [], quantified: []),
                                                          entity: entity, transactionsMax: transactionsMax) else { return nil }
        let controller = ResultsController(plan: plan, entity: entity, objects: made, position: position)
        if following {
            controller.source = .storedWindow { delta, context in
                try context.storedRowsBefore(delta, view: name, request, entity: entity, transactionsMax: transactionsMax)
            }
        }
        return (adopt(controller), values)
    }
}

extension Context {
    /// The window of a named view over key paths read from its stored rows (DESIGN §10, §11), for a caller that
    /// prints it once (the CLI's `query`): O(log n + offset + limit) entries, then the window's objects and their path
    /// values — to-one paths from the related objects, aggregates and quantifiers from their targets' stored state —
    /// not the entity, nor any inverse's members. The controller holds only the window's rows (with their path
    /// values, as a view over key paths does), so it is **not** kept up to date by the context: print it, do not move
    /// it. `request` must be the view's own (``FetchRequest/init(_:variables:)``) with any `limit` and `offset`.
    ///
    /// `nil` (nothing made) unless the context is at the head with no unsaved change, the request has a `limit`, and
    /// the store holds the view's rows for its definition; use ``makeResultsControllerAndObjects(_:)`` then.
    /// - Returns: the controller and the window's objects with their own values, in id order.
    func makeStoredPathWindowSnapshot(view name: String, _ request: FetchRequest) throws
        -> (controller: ResultsController, objects: [(id: ObjectID, values: ObjectValues)])? {
        guard let limit = request.limit,
              let read = try storedPathRows(view: name, request, from: request.offset, count: limit) else { return nil }
        var window = request
        window.offset = 0
        let controller = ResultsController(plan: try ViewPlan(window, for: read.entity), entity: read.entity,
                                           objects: read.rows, position: position)
        guard controller.numberOfRows == read.rows.count else {
            throw StoreError.corrupt(seq: nil, reason: "the stored view '\(name)' holds a row that the view does not: run 'viewlog verify'")
        }
        controller.relational = read.relational
        return (controller, read.objects.sorted { $0.id < $1.id })
    }

    /// At most `count` rows of the stored view `name` over key paths from rank `offset` on, read at the head in one
    /// transaction: their objects, and their values with path values added, which `relational` keeps. `nil` unless
    /// the context is at the head with no unsaved change (any may change a path value), `request` (the view's own,
    /// any window) is its named view's, and the store holds the view's rows for its definition.
    private func storedPathRows(view name: String, _ request: FetchRequest, from offset: Int, count: Int) throws
        -> (entity: EntityDescription, relational: RelationalView, objects: [(id: ObjectID, values: ObjectValues)],
            rows: [(ObjectID, ObjectValues)])? {
        try processPendingChanges()
        let schema = try self.schema
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        guard !unsavedChangesTouch(viewEntity.name, overPaths: true) else { return nil }
        guard !paths.isEmpty || !quantified.isEmpty else { return nil }
        let position = self.position
        return try store.perform(read: true) { txn in
            guard let db = store.viewsDB,
                  let (view, _) = try store.storedView(named: name, schema: schema, showing: request, near: position,
                                                       transactionsMax: 0, in: txn) else { return nil }
            let ids = try store.storedRowIDs(of: view, offset: offset, limit: count, in: txn)
            let what = "the stored view '\(name)'"
            let format = try store.format(in: txn)
            let lookup = try store.headPathLookup(viewEntity: view.entity.name, in: txn)
            let relational = RelationalView(paths: paths, quantified: quantified)
            // Aggregates and quantifiers read their targets' stored state, never the members.
            let aggregates = StoredAggregateReader(view.aggregates, db: db, txn: txn)
            var objects: [(id: ObjectID, values: ObjectValues)] = [], rows: [(ObjectID, ObjectValues)] = []
            for id in ids {
                let key = ObjectKey(entity: view.entity.name, id: id)
                guard let values = try store.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values else {
                    throw StoreError.corrupt(seq: nil, reason: "\(what) names \(key.entity) \(id.json.text), which does not exist: run 'viewlog verify'")
                }
                let pathValues = KeyPath.pathValues(paths: paths, quantified: quantified, of: values, id: id,
                                                           entity: key.entity, lookup: lookup, aggregates: aggregates)
                if let failure = lookup.failure() ?? aggregates.failure { throw failure }
                relational.pathValues[id] = pathValues
                objects.append((id, values))
                rows.append((id, relational.adding(pathValues, to: values)))
            }
            return (viewEntity, relational, objects, rows)
        }
    }
}
