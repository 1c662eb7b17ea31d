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
    /// context's position: the window and its reserve.
    func makeFirstRowsController(_ plan: ViewPlan, _ entity: EntityDescription) throws -> ResultsController {
        guard let limit = plan.request.limit else { preconditionFailure("a window has a limit") }
        let controller = ResultsController(plan: plan, entity: entity, objects: [(ObjectID, ObjectValues)](), position: position)
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
        func offer<V: AttributeValues>(_ id: ObjectID, _ values: V) {
            guard predicate.evaluate(values, id: id) else { return }
            key.truncate(to: 0)
            let idStart = rows.order.encode(id: id, values: values, into: &key)
            if key.withBytes(0..<key.count, { rows.insert($0, idStart: idStart, keepingFirst: count) }) { complete = false }
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
