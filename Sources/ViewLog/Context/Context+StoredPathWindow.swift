extension Context {
    /// The window of a named view over to-one key paths read from its stored rows (DESIGN §10, §11), for a caller
    /// that prints it once (the CLI's `query`): O(log n + offset + limit) entries, then the window's objects and their
    /// path values, not the entity. The controller holds only the window's rows (with their path values, as a view
    /// over key paths does), so it is **not** kept up to date by the context: print it, do not move it.
    /// `request` must be the view's own (``FetchRequest/init(_:variables:)``) with any `limit` and `offset`.
    ///
    /// `nil` (nothing made) unless the context is at the head with no unsaved change, the request has a `limit`, and
    /// the store holds the view's rows for its definition; use ``makeResultsControllerAndObjects(_:)`` then.
    /// - Returns: the controller and the window's objects with their own values, in id order.
    @_spi(Engine) public func makeStoredPathWindowSnapshot(view name: String, _ request: FetchRequest) throws
        -> (controller: ResultsController, objects: [(id: ObjectID, values: ObjectValues)])? {
        try processPendingChanges()
        // Any unsaved change may change a path value: the stored rows are the head's.
        guard let limit = request.limit, request.includes.isEmpty, processed.isEmpty else { return nil }
        let schema = try self.schema
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        guard !paths.isEmpty, quantified.isEmpty else { return nil }
        let position = self.position
        var window = request
        window.offset = 0
        let plan = try ViewPlan(window, for: viewEntity)
        var whole = request
        whole.limit = nil
        whole.offset = 0
        return try store.perform(read: true) { txn -> (ResultsController, [(id: ObjectID, values: ObjectValues)])? in
            guard try store.head(in: txn) == position,
                  let view = try store.storedView(named: name, schema: schema, in: txn), view.plan.request == whole,
                  view.paths == paths else { return nil }
            var ids: [ObjectID] = []
            ids.reserveCapacity(min(limit, 65_536))
            if limit > 0 {
                try store.forEachStoredRow(of: view, from: request.offset, in: txn) { id in
                    ids.append(id)
                    return ids.count < limit
                }
            }
            let what = "the stored view '\(name)'"
            let format = try store.format(in: txn)
            let lookup = try store.headPathLookup(viewEntity: view.entity.name, in: txn)
            let relational = RelationalView(paths: paths, quantified: [])
            var objects: [(id: ObjectID, values: ObjectValues)] = [], rows: [(ObjectID, ObjectValues)] = []
            for id in ids {
                let key = ObjectKey(entity: view.entity.name, id: id)
                guard let values = try store.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values else {
                    throw StoreError.corrupt(seq: nil, reason: "\(what) names \(key.entity) \(id.json.text), which does not exist: run 'viewlog verify'")
                }
                let pathValues = relational.pathValues(of: values, id: id, entity: key.entity, lookup: lookup)
                if let failure = lookup.failure() { throw failure }
                relational.pathValues[id] = pathValues
                objects.append((id, values))
                rows.append((id, relational.adding(pathValues, to: values)))
            }
            let controller = ResultsController(plan: plan, entity: viewEntity, objects: rows, position: position)
            guard controller.numberOfRows == ids.count else {
                throw StoreError.corrupt(seq: nil, reason: "\(what) holds a row that the view does not: run 'viewlog verify'")
            }
            controller.relational = relational
            objects.sort { $0.id < $1.id }
            return (controller, objects)
        }
    }
}
