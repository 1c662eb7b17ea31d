@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews

/// The first rows of a window no stored view serves, for a watcher (``ViewPurpose/watch``, ``ViewSource/firstRows(exact:)``):
/// the window and a reserve below it, read by one scan of the entity that keeps only them, and read again when moves
/// have used the reserve up. A watcher of a 100-row window of 100,000 rows holds a few hundred rows, not the view.
extension Context {
    /// Rows a watcher's window keeps past its end (`end`: its offset plus its limit): as many again, at least
    /// ``firstRowsReserveMinimum``.
    func firstRowsReserve(windowEnd end: Int) -> Int { max(firstRowsReserveMinimum, end) }

    /// A controller of `plan`'s window (its request has a `limit`) holding the first rows of the view at this
    /// context's position: the window and its reserve. For a view over key paths, `relational` says which (`entity`
    /// is the view's, ``Schema/viewEntity(of:requiresVariables:)``): the rows held keep their path values, no other.
    func makeFirstRowsController(_ plan: ViewPlan, _ entity: EntityDescription,
                                 relational: RelationalView? = nil) throws -> ResultsController {
        guard let limit = plan.request.limit else { preconditionFailure("a window has a limit") }
        let controller = ResultsController(plan: plan, entity: entity, objects: [(ObjectID, ObjectValues)](), position: position)
        controller.relational = relational
        let end = plan.request.offset.addingSaturating(limit)
        let count = end.addingSaturating(firstRowsReserve(windowEnd: end))
        let complete = try holdFirstRows(of: controller, count: count, before: nil)
        controller.source = .firstRows(exact: complete ? .max : count)
        return controller
    }

    /// Replaces `controller`'s rows, unreported, with the first `count` rows of its view at the start of `delta`, a
    /// move this context is delivering (at this context's position when `delta` is `nil`): one scan of the entity, the
    /// objects at the head streamed with only the attributes the view reads when this context is at the head with no
    /// unsaved change of the entity, its objects otherwise.
    /// - Returns: whether the rows held are every row of the view.
    func holdFirstRows(of controller: ResultsController, count: Int, before delta: Delta?) throws -> Bool {
        guard case .predicate(let predicate) = controller.membership else {
            preconditionFailure("a controller of first rows filters with its predicate")
        }
        let entity = controller.entity
        let rows = OrderedRows(order: controller.rows.order, capacity: controller.rows.capacity)
        var key = ByteWriter(capacity: rows.order.inlineKeyBytes)
        var complete = true
        @discardableResult
        func offer<V: AttributeValues>(_ id: ObjectID, _ values: V) -> Bool {
            guard predicate.evaluate(values, id: id) else { return false }
            key.truncate(to: 0)
            let idStart = rows.order.encode(id: id, values: values, into: &key)
            if key.withBytes(0..<key.count, { rows.insert($0, idStart: idStart, keepingFirst: count) }) { complete = false }
            return true
        }
        if let relational = controller.relational {
            // A view over key paths: every object with its path values (a fresh view of the paths: its aggregate
            // tables filled from the objects), keeping the path values of the rows held only.
            let fresh = RelationalView(paths: relational.paths, quantified: relational.quantified)
            let (own, lookup) = try relationalObjects(of: entity.name, fresh, before: delta)
            var held: [ObjectID: [Value]] = [:]
            for (id, values) in own {
                let pathValues = fresh.pathValues(of: values, id: id, entity: entity.name, lookup: lookup)
                guard offer(id, fresh.adding(pathValues, to: values)) else { continue }
                held[id] = pathValues
                if held.count > 2 * count { held = held.filter { rows.contains($0.key) } }
            }
            fresh.pathValues = held.filter { rows.contains($0.key) }
            controller.relational = fresh
            controller.rows = rows
            return complete
        }
        // The objects the move changed, as they were at its start: the delta has them.
        var touched: [ObjectID: ObjectValues?] = [:]
        for d in delta?.objects ?? [] where d.key.entity == entity.name { touched[d.key.id] = .some(d.before) }
        let attributes = ViewPlan.attributesRead(predicate: predicate, order: rows.order, of: entity)
        let position = self.position
        let streamed = try !unsavedChangesTouch(entity.name, overPaths: false) && store.perform(read: true) { txn -> Bool in
            guard try store.head(in: txn) == position else { return false }
            try store.forEachHeadObject(of: entity.name, reading: attributes, in: txn) {
                id, fetched in
                if touched[id] == nil { offer(id, fetched) }
            }
            return true
        }
        if streamed {
            for case let (id, values?) in touched { offer(id, values) }
        } else {
            let objects = try delta.map { try objectsBefore($0, of: entity.name) } ?? objects(of: entity.name, staged: processed)
            for (id, values) in objects { offer(id, values) }
        }
        controller.rows = rows
        return complete
    }
}

extension ResultsController {
    /// What a move of a watcher's window over key paths needs before it is applied (``prepareFirstPathRows(exact:end:reserve:for:context:)``).
    private enum FirstPathRows {
        /// The move with path values, and the prefix of rows held that is exact after it.
        case served(Delta, exact: Int)
        /// The rows held leave less than the window exact: read the first rows again at the move's start, with room for
        /// the `touched` rows.
        case refill(touched: Int)
        /// The relationships index cannot say which rows the move reaches (not at the head, unsaved changes).
        case whole
    }

    /// ``ViewSource/firstRows(exact:)`` of a view over key paths: the rows the move touches are its objects of the
    /// view's entity and the rows whose path values it may change, found through the relationships index at the head
    /// as the whole view finds them (``RelationalView/rowsReached(by:entity:store:refs:in:)``); those not held are
    /// added as they were at the move's start (their path values from the head with the move's objects as they were
    /// before it), so the batch meets every row it touches, as the whole view's does. Where the index cannot answer,
    /// the whole view at the move's start is taken, unreported (held whole until it grows past its reserve again).
    /// `exact`: the exact prefix of the rows held, past which nothing is held.
    /// - Returns: the move with path values (apply it as it is), or `nil` when the whole view was taken.
    func prepareFirstPathRows(exact: Int, end: Int, reserve: Int, for delta: Delta, context: Context) throws -> Delta? {
        guard let relational else { preconditionFailure("a view over key paths") }
        // Path values of rows no longer held (past the reserve, or touched by the last move and left out) go.
        if relational.pathValues.count > rows.count { relational.pathValues = relational.pathValues.filter { rows.contains($0.key) } }
        let own = delta.objects.filter { $0.key.entity == entity.name }
        guard own.isEmpty, !delta.objects.contains(where: { relational.entitiesRead.contains($0.key.entity) }) else {
            return try prepareTouchedPathRows(exact: exact, end: end, reserve: reserve, own: own, for: delta, context: context)
        }
        source = .firstRows(exact: exact)
        return Delta(from: delta.from, to: delta.to, objects: [], schemaChange: delta.schemaChange)
    }

    private func prepareTouchedPathRows(exact: Int, end: Int, reserve: Int, own: [ObjectDelta], for delta: Delta,
                                        context: Context) throws -> Delta? {
        var exact = exact
        let store = context.store
        attempts: for _ in 0..<2 {  // bounded: a refill leaves room for every touched row
            let next: FirstPathRows
            if !context.unsavedChangesTouch(entity.name, overPaths: true), let refs = store.refsDB, let relational {
                next = try store.perform(read: true) { txn -> FirstPathRows in
                    guard try store.head(in: txn) == delta.to else { return .whole }
                    let touchesPaths = delta.objects.contains { relational.entitiesRead.contains($0.key.entity) }
                    let reached = touchesPaths
                        ? try relational.rowsReached(by: delta, entity: entity.name, store: store, refs: refs, in: txn) : []
                    let touched = reached.union(own.map(\.key.id))
                    var after = exact
                    if exact != .max {
                        // Each touched row held may leave the prefix; untouched rows past it cannot move into it.
                        let leaving = touched.reduce(0) { $0 + (rows.contains($1) ? 1 : 0) }
                        if exact - leaving < end { return .refill(touched: touched.count) }
                        after -= leaving
                    }
                    let head = try store.headPathLookup(viewEntity: entity.name, in: txn)
                    var before: [ObjectKey: ObjectValues?] = [:]
                    for d in delta.objects { before[d.key] = .some(d.before) }
                    let start = PathLookup(object: { key in before[key] ?? head.object(key) }, failure: head.failure)
                    // The touched rows not held, as at the move's start (the aggregate tables not moved yet).
                    var past: [(ObjectID, ObjectValues)] = []
                    for id in touched.sorted() where !rows.contains(id) {
                        guard let values = start.object(ObjectKey(entity: entity.name, id: id)) else { continue }
                        let pathValues = relational.pathValues(of: values, id: id, entity: entity.name, lookup: start)
                        relational.pathValues[id] = pathValues
                        past.append((id, relational.adding(pathValues, to: values)))
                    }
                    if let failure = head.failure() { throw failure }
                    precondition(addRowsPastWindow(past), "a row past the first rows held is in the window")
                    relational.moveTables(by: delta)
                    let moved = relational.augmented(delta, own: own, reached: reached, entity: entity.name, lookup: head,
                                                     aggregates: TableAggregates(tables: relational.tables))
                    if let failure = head.failure() { throw failure }
                    return .served(moved, exact: after)
                }
            } else {
                next = .whole
            }
            switch next {
            case .served(let moved, let after):
                source = .firstRows(exact: after)
                return moved
            case .refill(let touched):
                let count = end.addingSaturating(touched).addingSaturating(reserve)
                exact = try context.holdFirstRows(of: self, count: count, before: delta) ? .max : count
            case .whole:
                break attempts
            }
        }
        // The whole view at the move's start, unreported: the rows held are its first rows.
        guard let relational else { preconditionFailure("a view over key paths") }
        let whole = RelationalView(paths: relational.paths, quantified: relational.quantified)
        guard addRowsPastWindow(try context.relationalRows(of: entity.name, whole, before: delta)) else {
            throw StoreError.corrupt(seq: nil, reason: "the first rows held of a view over key paths are not the view's")
        }
        self.relational = whole
        source = .firstRows(exact: .max)
        return nil
    }
}
