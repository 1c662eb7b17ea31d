@_spi(Engine) import ViewLog

/// A view followed through a ``Context`` — the library's one way to drive a view: the context computes each
/// move's delta and its results controller applies it — and the values of the view's rows, for printing.
/// `query` prints it; `diff` and `watch` move it; the server serves the same documents.
package final class MaterializedView: ContextObserver {
    package let context: Context
    package let controller: ResultsController
    /// The view's entity, named as at its position: a move across migrations carries it with the controller's.
    package private(set) var entity: EntityDescription
    /// The values of the view's rows, and of every object of the entity a move touched since, by id; empty while
    /// `records` holds the rows' values instead (a view not moved yet).
    package private(set) var values: [ObjectID: ObjectValues]
    /// The rows' values kept by the fetch (their stored bytes at the head, the fold's values behind it): printed
    /// straight from them, made into `values` only before a move.
    private var records: ViewRowRecords?
    /// The change set of the move under way (the controller reports only non-empty ones).
    private var reported: ChangeSet?
    private var observation: ViewObservation?
    /// The migrations the last move passed (DESIGN §13), `nil` when it passed none.
    package private(set) var lastCarry: MigrationCarry?

    /// `selection` at `position`, opened for `purpose` (``Context/openView(_:for:keepingRows:)`` decides where its rows
    /// come from: a named view's stored rows, or the objects). A view opened to be printed (`.print`) may hold only its
    /// window as stored: print it, do not move it; for a range, position is `from` (the view may open at `to` when that
    /// is lower: ``diff(store:selection:from:to:)`` moves it).
    package convenience init(store: LogStore, selection: ViewSelection, at position: UInt64, for purpose: ViewPurpose = .follow) throws {
        let (request, entity) = try selection.fetchRequest(schema: try store.schema(at: position))
        try self.init(store: store, request: request, entity: entity, at: position, for: purpose)
    }

    /// `request` of `entity` (named as at `position`) at `position`, opened for `purpose` as
    /// ``init(store:selection:at:for:)`` opens a selection.
    package init(store: LogStore, request: FetchRequest, entity: EntityDescription, at position: UInt64,
                 for purpose: ViewPurpose = .follow) throws {
        context = try Context(store: store, name: "viewlog", at: position)
        self.entity = entity
        let opened = try context.openView(request, for: purpose, keepingRows: true)
        controller = opened.controller
        switch opened.rows {
        case .records(let r)?:
            records = r
            values = [:]
        case .values(let v)?:
            values = v
        case nil:
            values = [:]
        }
        // After the controller: each move reaches it first.
        context.addObserver(self)
        observation = controller.observe { [weak self] event in
            if case .changes(let changes) = event { self?.reported = changes }
        }
    }

    /// `diff`'s view and change set (the CLI's and the server's): the change set that takes `selection` at `from` to
    /// `to` (either direction), the values of its rows before, and the view at `to`. A windowed named view near the
    /// head is made from its stored window and the rows changed since the lower position, not built whole.
    package static func diff(store: LogStore, selection: ViewSelection, from: UInt64, to: UInt64) throws
        -> (view: MaterializedView, changes: ChangeSet, before: [ObjectID: ObjectValues]) {
        _ = try store.checkedPosition(from)
        _ = try store.checkedPosition(to)
        let purpose = ViewPurpose.range(from: from, to: to)
        let view = try redefined(store: store, selection: selection, from: from, to: to).map {
            try MaterializedView(store: store, request: $0.request, entity: $0.entity, at: from, for: purpose)
        } ?? MaterializedView(store: store, selection: selection, at: from, for: purpose)
        if view.controller.position != from { _ = try view.move(to: from) }
        let (changes, before) = try view.move(to: to)
        return (view, changes, before)
    }

    /// A named view that a migration between `from` and `to` sets: its definition at `to`, named as at `from`, so that
    /// the move's carry (which renames a request, never redefines it) ends at the view's definition there (DESIGN §13:
    /// `diff` across a `setView`). `nil` for any other view, or a definition that reads an attribute absent at `from`.
    /// - Throws: ``RequestError`` when the view is unknown at `to` (a migration removed it).
    private static func redefined(store: LogStore, selection: ViewSelection, from: UInt64, to: UInt64) throws
        -> (request: FetchRequest, entity: EntityDescription)? {
        guard let name = selection.view else { return nil }
        // The carry from `to` back to `from`.
        guard let back = try store.migrationCarry(from: to, to: from), back.seqChanging(view: name) != nil else { return nil }
        guard let request = back.request(try selection.fetchRequest(schema: try store.schema(at: to)).0) else { return nil }
        return (request, try store.schema(at: from).entity(named: request.entity))
    }

    /// What-if (DESIGN §14, `query --with`, `diff --with`): `selection` as it would be after appending `requests` at
    /// `position`, nothing appended. The changes are staged in a context at `position` (checked and resolved there, as
    /// an append would: changes by predicate against the state so far, delete rules shown); the view is then moved
    /// to them — from `from` when given (the change set from the view at `from`), else from `position` itself.
    /// - Throws: ``WhatIfError`` naming the request refused (its index in `requests`); what a view's move throws.
    package static func whatIf(store: LogStore, selection: ViewSelection, at position: UInt64,
                               with requests: [TransactionRequest], from: UInt64? = nil) throws
        -> (view: MaterializedView, changes: ChangeSet, before: [ObjectID: ObjectValues]) {
        _ = try store.checkedPosition(position)
        let staging = try Context(store: store, name: "viewlog", at: position)
        do { try staging.stage(requests) } catch { throw WhatIfError(request: error.request, error: error.error) }
        let start = try from.map { try store.checkedPosition($0) } ?? position
        // Opened to follow (a range source serves moves within the log only, never unsaved changes): its source gives
        // way to the whole view if the staged changes need it.
        let view = try MaterializedView(store: store, selection: selection, at: start, for: .follow)
        view.context.adoptStagedChanges(of: staging)
        let (changes, before) = try view.move(to: position)
        return (view, changes, before)
    }

    /// A what-if's request refused: its index among the requests, and the store's error.
    package struct WhatIfError: Error, CustomStringConvertible {
        package let request: Int
        package let error: StoreError
        package var description: String { error.description }
    }

    package var observedEntity: String? { entity.name }

    package func context(_ context: Context, didMoveWith delta: Delta) {
        lastCarry = delta.carry
        if let carry = delta.carry {
            // The controller carried its request first: the values kept take the names of the move's end as well.
            let from = entity.name
            entity = controller.entity
            values = values.mapValues { carry.values($0, of: from) }
        }
        // A view over key paths has its context deliver every entity's objects: keep only the rows' entity.
        for d in delta.objects where d.key.entity == entity.name { values[d.key.id] = d.after }
    }

    /// The rows' values with their path values added (a view over key paths: `department.name` and the like), for
    /// text that shows a changed path's values.
    package var valuesWithPaths: [ObjectID: ObjectValues] {
        guard !controller.keyPaths.isEmpty else { return values }
        var out = values
        for (id, v) in values {
            if let paths = controller.pathValues(of: id) { out[id] = v.merging(paths) { own, _ in own } }
        }
        return out
    }

    /// The values of the row `id` of the view (empty when it has none).
    package func rowValues(of id: ObjectID) throws -> ObjectValues {
        try records?.values(of: id) ?? values[id] ?? [:]
    }

    /// Moves the view to `position` (either direction) as one batch: its change set, and the values before.
    package func move(to position: UInt64) throws -> (changes: ChangeSet, before: [ObjectID: ObjectValues]) {
        try holdValues()
        let from = controller.position, entityBefore = entity.name
        var before = valuesWithPaths
        reported = nil
        lastCarry = nil
        try context.move(to: position)
        if let error = controller.followError { throw error }
        // Across migrations the values before are named as the change set names its rows' attributes.
        if let carry = lastCarry { before = before.mapValues { carry.values($0, of: entityBefore) } }
        let changes = reported ?? ChangeSet(from: from, to: position, isSectioned: controller.isSectioned,
                                            sectionChanges: [], rowChanges: [])
        if controller.fetchRequest.limit != nil {
            // A row that entered the window from past it, untouched by the move: its values, for printing (the values
            // kept are those of the rows shown, and of the objects moves touched; a stored source holds only a window).
            for change in changes.rowChanges where values[change.id] == nil {
                values[change.id] = try context.store.object(ObjectKey(entity: entity.name, id: change.id), at: position)
            }
            // Only the window's rows are printed, or needed as the values before the next move: a watch that kept
            // every object its moves touched would end up holding the entity.
            let shown = Set(controller.fetchedObjects)
            if values.count > shown.count { values = values.filter { shown.contains($0.key) } }
        }
        return (changes, before)
    }

    /// Makes the rows' values kept by the fetch into ``values`` (before a move, or to print a change set's rows).
    private func holdValues() throws {
        guard let records else { return }
        for id in controller.fetchedObjects { values[id] = try records.values(of: id) }
        self.records = nil
    }

    /// The `query` document as one text (for documents of a bounded size: the server's windows, watch's
    /// first document).
    package func jsonText() throws -> String {
        var w = JSONWriter()
        try writeJSON(into: &w, every: Int.max) { _ in }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Writes the `query` document, `{"position": 9, "sections": [{"name": "A", "rows": [{"id": "e1", "values":
    /// {…}}]}]}`, into `w` straight from the values (no ``JSONValue`` tree) or from the rows' stored bytes,
    /// calling `drain` after a row whenever `w` holds `pieceBytes` or more (`drain` may take the bytes so far).
    package func writeJSON(into w: inout JSONWriter, every pieceBytes: Int, _ drain: (inout JSONWriter) -> Void) throws {
        w.raw("{\"position\": ")
        w.int(Int64(controller.position))
        w.raw(", \"sections\": [")
        var row = 0
        let ids = controller.fetchedObjects
        let attributes = entity.attributes
        // Chosen once: `records` read from the class per row would copy the whole struct (its arrays retained).
        let writeValues: (ObjectID, inout JSONWriter) throws -> Void
        // Rows kept as bytes are found in cache when written (``ViewRowRecords/prefetch(after:in:)``).
        var prefetch: (Int) -> Void = { _ in }
        let derived = entity.derived
        let controller = self.controller
        if !derived.isEmpty {
            // Derived values among the row's own, every name in code-point order (DESIGN §10).
            let names = entity.valueNames
            let values = self.values, records = self.records
            writeValues = { id, w in
                let own = try records?.values(of: id) ?? values[id] ?? [:]
                let paths = controller.pathValues(of: id) ?? [:]
                for (i, name) in names.enumerated() {
                    w.key(name, first: i == 0)
                    w.value((derived[name] == nil ? own[name] : paths[name]) ?? .null)
                }
            }
        } else if let records {
            writeValues = { id, w in try records.writeJSONMembers(of: id, into: &w) }
            prefetch = { k in records.prefetch(after: k, in: ids) }
        } else {
            let values = self.values
            writeValues = { id, w in
                let v = values[id] ?? [:]
                for (i, a) in attributes.enumerated() {
                    w.key(a.name, first: i == 0)
                    w.value(v[a.name] ?? a.absentValue)
                }
            }
        }
        for (s, info) in controller.sections.enumerated() {
            if s > 0 { w.raw(", ") }
            w.raw("{\"name\": ")
            if let name = info.name { w.string(name) } else { w.null() }
            w.raw(", \"rows\": [")
            for k in row..<(row + info.numberOfObjects) {
                prefetch(k)
                let id = ids[k]
                if k > row { w.raw(", ") }
                w.raw("{\"id\": ")
                w.id(id)
                w.raw(", \"values\": {")
                try writeValues(id, &w)
                w.raw("}")
                if let paths = controller.pathValues(of: id)?.filter({ derived[$0.key] == nil }), !paths.isEmpty {
                    w.raw(", \"paths\": {")
                    for (i, name) in paths.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                        w.key(name, first: i == 0)
                        w.value(paths[name]!)
                    }
                    w.raw("}")
                }
                w.raw("}")
                if w.bytes.count >= pieceBytes { drain(&w) }
            }
            row += info.numberOfObjects
            w.raw("]}")
        }
        w.raw("]}")
    }
}
