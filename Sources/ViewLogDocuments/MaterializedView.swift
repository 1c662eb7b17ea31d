@_spi(Engine) import ViewLog

/// A view followed through a ``Context`` — the library's one way to drive a view: the context computes each
/// move's delta and its results controller applies it — and the values of the view's rows, for printing.
/// `query` prints it; `diff` and `watch` move it; the server serves the same documents.
package final class MaterializedView: ContextObserver {
    package let context: Context
    package let controller: ResultsController
    package let entity: EntityDescription
    /// The values of the view's rows, and of every object of the entity a move touched since, by id; empty while
    /// `records` holds the rows' values instead (a view not moved yet).
    package private(set) var values: [ObjectID: ObjectValues]
    /// The rows' values kept by the fetch (their stored bytes at the head, the fold's values behind it): printed
    /// straight from them, made into `values` only before a move.
    private var records: ViewRowRecords?
    /// The change set of the move under way (the controller reports only non-empty ones).
    private var reported: ChangeSet?
    private var observation: ViewObservation?

    package init(store: LogStore, selection: ViewSelection, at position: UInt64) throws {
        let schema = try store.schema(at: position)
        let (request, entity) = try selection.fetchRequest(schema: schema)
        context = try Context(store: store, name: "viewlog", at: position)
        self.entity = entity
        if let (controller, records) = try context.makeResultsControllerKeepingRows(request) {
            self.controller = controller
            self.records = records
            values = [:]
        } else {
            let (controller, objects) = try context.makeResultsControllerAndObjects(request)
            self.controller = controller
            var values: [ObjectID: ObjectValues] = [:]
            let members = Set(controller.fetchedObjects)
            for o in objects where members.contains(o.id) { values[o.id] = o.values }
            self.values = values
        }
        // After the controller: each move reaches it first.
        context.addObserver(self)
        observation = controller.observe { [weak self] event in
            if case .changes(let changes) = event { self?.reported = changes }
        }
    }

    package var observedEntity: String? { entity.name }

    package func context(_ context: Context, didMoveWith delta: Delta) {
        for d in delta.objects { values[d.key.id] = d.after }
    }

    /// The values of the row `id` of the view (empty when it has none).
    package func rowValues(of id: ObjectID) throws -> ObjectValues {
        try records?.values(of: id) ?? values[id] ?? [:]
    }

    /// Moves the view to `position` (either direction) as one batch: its change set, and the values before.
    package func move(to position: UInt64) throws -> (changes: ChangeSet, before: [ObjectID: ObjectValues]) {
        if let records {
            for id in controller.fetchedObjects { values[id] = try records.values(of: id) }
            self.records = nil
        }
        let from = controller.position
        let before = values
        reported = nil
        try context.move(to: position)
        let changes = reported ?? ChangeSet(from: from, to: position, isSectioned: controller.isSectioned,
                                            sectionChanges: [], rowChanges: [])
        return (changes, before)
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
        if let records {
            writeValues = { id, w in try records.writeJSONMembers(of: id, into: &w) }
            prefetch = { k in records.prefetch(after: k, in: ids) }
        } else {
            let values = self.values
            writeValues = { id, w in
                let v = values[id] ?? [:]
                for (i, a) in attributes.enumerated() {
                    w.key(a.name, first: i == 0)
                    w.value(v[a.name] ?? .null)
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
                w.raw("}}")
                if w.bytes.count >= pieceBytes { drain(&w) }
            }
            row += info.numberOfObjects
            w.raw("]}")
        }
        w.raw("]}")
    }
}
