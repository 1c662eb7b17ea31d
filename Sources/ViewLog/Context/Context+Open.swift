@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// What a view is opened for: which sources (``ViewSource``) can serve it.
@_spi(Engine) public enum ViewPurpose: Sendable, Equatable {
    /// Printed once where it is opened (`query`, the server's reads), never moved: a window of a stored view is read
    /// as it is.
    case print
    /// Moved from `from` to `to` (`diff`, either direction), then dropped: a stored view's window and the rows changed
    /// since the lower of the two, when it is near the head.
    case range(from: UInt64, to: UInt64)
    /// Followed wherever its context moves (the library's controllers, a what-if).
    case follow
    /// Followed like ``follow`` by a watcher that shows only the window (`watch`, the server's watch): a window no
    /// stored view serves holds its first rows and a reserve, read again when moves used the reserve up
    /// (``ViewSource/firstRows(exact:)``), not the whole view.
    case watch
}

/// A view opened by ``Context/openView(_:for:keepingRows:)``: its controller, and the values of its rows when asked.
@_spi(Engine) public struct OpenedView {
    /// The values of a view's rows, as the source read them.
    public enum Rows {
        /// Every row's stored bytes (at the head) or its values as the fold made them.
        case records(ViewRowRecords)
        /// The rows' own values by id (with, for a partial source, those of the other rows it holds).
        case values([ObjectID: ObjectValues])
    }

    /// The controller, adopted by the context: every later move reaches it.
    public let controller: ResultsController
    /// `nil` unless asked for (`keepingRows`). Of a window, the window's rows (and, for a stored source, the others it
    /// holds): a row a later move brings into the window has none (read it then).
    public let rows: Rows?
}

extension Context {
    /// Opens a results controller of `request` for `purpose`: the one place that decides where a view's rows come from
    /// (DESIGN §11). A named view's own request (any `limit` and `offset`) opens from the view's stored rows when
    /// nothing unsaved touches the view and the store holds the view near the context's position; anything else is
    /// built in memory from the context's objects.
    ///
    /// | purpose | flat window | window over key paths | whole named view |
    /// | --- | --- | --- | --- |
    /// | print | the stored window, at the head | the stored window and its path values, at the head | in memory |
    /// | range | the stored window and the rows changed since the lower end | the same, path values from the stored state | in memory |
    /// | follow | the stored window, pulling rows as moves need them | at the head the stored window, below it the range | its stored order (without `keepingRows`) |
    /// | watch | as follow; a window no stored view serves holds its first rows and a reserve | as follow; a window no stored view serves holds its first rows, a reserve and their path values | as follow |
    ///
    /// For a range the context must have no controller and nothing unsaved: it is put where the source opens (the
    /// lower end for a stored one, `from` in memory); move it to `from`, then to `to`.
    /// - Parameter keepingRows: whether to return the rows' values (``OpenedView/rows``), read with the rows.
    @_spi(Engine) public func openView(_ request: FetchRequest, for purpose: ViewPurpose, keepingRows: Bool) throws -> OpenedView {
        try processPendingChanges()
        let entity = try self.entity(of: request)
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        let overPaths = !paths.isEmpty || !quantified.isEmpty
        if case .range(let from, let to) = purpose {
            precondition(observers.allSatisfy { $0.observer == nil } && staged.isEmpty, "a range opens on a context of its own")
            position = min(from, to)
        }
        if !unsavedChangesTouch(entity.name, overPaths: overPaths), let name = try storedViewName(of: request),
           let opened = try openStored(name, request, for: purpose == .watch ? .follow : purpose, keepingRows: keepingRows, viewEntity: viewEntity,
                                       paths: paths, quantified: quantified) {
            return opened
        }
        if case .range(let from, _) = purpose {
            position = from
        }
        if overPaths, purpose == .watch, request.limit != nil {
            let controller = adopt(try makeFirstRowsController(try ViewPlan(request, for: viewEntity), viewEntity,
                                                               relational: RelationalView(paths: paths, quantified: quantified)))
            return OpenedView(controller: controller, rows: keepingRows ? .values(try memberValues(of: controller)) : nil)
        }
        if overPaths {
            let (controller, rows) = try makeRelationalController(request, entity: viewEntity, paths: paths, quantified: quantified)
            // The rows' own values are their values without the path values added.
            let own = Set(entity.attributes.map(\.name))
            return OpenedView(controller: adopt(controller),
                              rows: keepingRows ? .values(shownValues(of: controller, among: rows) { $0.filter { own.contains($0.key) } }) : nil)
        }
        if purpose == .watch, request.limit != nil {
            let controller = adopt(try makeFirstRowsController(try ViewPlan(request, for: entity), entity))
            return OpenedView(controller: controller, rows: keepingRows ? .values(try memberValues(of: controller)) : nil)
        }
        if keepingRows, let (controller, records) = try makeResultsControllerKeepingRows(request) {
            return OpenedView(controller: controller, rows: .records(records))
        }
        let plan = try ViewPlan(request, for: entity)
        if !keepingRows, let streamed = try headController(plan, entity) {
            return OpenedView(controller: adopt(streamed), rows: nil)
        }
        let objects = try self.objects(of: entity.name, staged: processed, reading: keepingRows ? nil : plan.attributesRead(of: entity))
        let controller = ResultsController(plan: plan, entity: entity, objects: objects.lazy.map { ($0.id, $0.values) },
                                           position: position)
        return OpenedView(controller: adopt(controller),
                          rows: keepingRows ? .values(shownValues(of: controller, among: objects.lazy.map { ($0.id, $0.values) })) : nil)
    }

    /// The named view `name`'s stored rows opened for `purpose` (see ``openView(_:for:keepingRows:)``; a watcher's are
    /// opened as a follower's: `.watch` is not passed here), or `nil` when
    /// the store does not hold them near the context's position (each source checks that in its read).
    private func openStored(_ name: String, _ request: FetchRequest, for purpose: ViewPurpose, keepingRows: Bool,
                            viewEntity: EntityDescription, paths: [KeyPath], quantified: [QuantifiedPath]) throws -> OpenedView? {
        let overPaths = !paths.isEmpty || !quantified.isEmpty
        guard request.limit != nil else {
            // A whole named view comes in its stored order, rows without values: for a follower that needs none.
            guard purpose == .follow, !keepingRows else { return nil }
            guard let controller = try storedViewController(view: name, try ViewPlan(request, for: viewEntity), viewEntity) else {
                return nil
            }
            if overPaths {
                let relational = RelationalView(paths: paths, quantified: quantified)
                try relationalRows(of: viewEntity.name, relational, keepingRows: false)
                controller.relational = relational
            }
            return OpenedView(controller: adopt(controller), rows: nil)
        }
        switch (purpose, overPaths) {
        case (.print, false):
            guard let (controller, records) = try makeStoredWindowSnapshot(view: name, request) else { return nil }
            return OpenedView(controller: controller, rows: .records(records))
        case (.print, true):
            guard let (controller, objects) = try makeStoredPathWindowSnapshot(view: name, request) else { return nil }
            return OpenedView(controller: controller, rows: .values(Dictionary(uniqueKeysWithValues: objects.map { ($0.id, $0.values) })))
        case (.range, false), (.follow, false), (.watch, false):
            guard let (controller, values) = try makeStoredWindowController(view: name, request, following: purpose == .follow) else {
                return nil
            }
            return OpenedView(controller: controller, rows: keepingRows ? .values(values) : nil)
        case (.range, true):
            guard let (controller, values) = try makeStoredPathRangeController(view: name, request) else { return nil }
            return OpenedView(controller: controller, rows: keepingRows ? .values(values) : nil)
        case (.follow, true), (.watch, true):
            if let controller = try makeStoredPathWindowController(view: name, request) {
                return OpenedView(controller: adopt(controller), rows: keepingRows ? .values(try memberValues(of: controller)) : nil)
            }
            // Below the head: the window and the rows changed since, exact up to the head (the values of the window's
            // rows, as at the head).
            guard let (controller, _) = try makeStoredPathRangeController(view: name, request) else { return nil }
            return OpenedView(controller: controller, rows: keepingRows ? .values(try memberValues(of: controller)) : nil)
        }
    }

    /// Whether an unsaved change shown to the controllers may change a view of `entity` — any change when the view
    /// reads key paths (it may move a path value), a change of the entity otherwise. The store's rows (stored views,
    /// object rows at the head) hold no unsaved change, so they serve only views this is `false` for.
    func unsavedChangesTouch(_ entity: String, overPaths: Bool) -> Bool {
        overPaths ? !processed.isEmpty : processed.keys.contains { $0.entity == entity }
    }

    /// The own values of `controller`'s rows in this context, each read (a window's few rows).
    func memberValues(of controller: ResultsController) throws -> [ObjectID: ObjectValues] {
        var values: [ObjectID: ObjectValues] = [:]
        for id in controller.fetchedObjects { values[id] = try object(ObjectKey(entity: controller.fetchRequest.entity, id: id)) }
        return values
    }

    /// The values of `controller`'s rows among `objects`, the objects it was made from (`own`: a row's values as kept).
    private func shownValues(of controller: ResultsController, among objects: some Sequence<(ObjectID, ObjectValues)>,
                             own: (ObjectValues) -> ObjectValues = { $0 }) -> [ObjectID: ObjectValues] {
        let shown = Set(controller.fetchedObjects)
        var values: [ObjectID: ObjectValues] = [:]
        for (id, v) in objects where shown.contains(id) { values[id] = own(v) }
        return values
    }
}
