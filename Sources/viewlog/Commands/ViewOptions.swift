import ArgumentParser
@_spi(Engine) import ViewLog

/// Which view: a named view of the schema, or `--entity` with its parts.
struct ViewOptions: ParsableArguments {
    @Argument(help: "A named view of the schema (see 'viewlog views').") var view: String?
    @Option(help: "The entity (instead of a named view).") var entity: String?
    @Option(name: .customLong("where"), help: "A predicate, e.g. \"height > 170 AND name BEGINSWITH[c] 'a'\".") var predicate: String?
    @Option(help: "Sort descriptors, e.g. \"sectionName, height desc, name\".") var sort: String?
    @Option(help: "The attribute that groups rows into sections.") var section: String?
    @Option(help: "Key paths to show and follow without filtering or sorting by them, e.g. \"department.name, manager.name\".")
    var include: String?
    @Option(parsing: .unconditional, help: "At most this many rows.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many rows first.") var offset: Int?
    @Option(name: .customLong("var"), help: "A value for $NAME in the predicate: NAME=VALUE (a JSON literal or text).")
    var variables: [String] = []

    func validate() throws {
        if view != nil, entity != nil || predicate != nil || sort != nil || section != nil {
            throw ValidationError("give either a view name or --entity/--where/--sort/--section, not both")
        }
        if view == nil, entity == nil { throw ValidationError("give a view name or --entity") }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let offset, offset < 0 { throw ValidationError("--offset must not be negative") }
    }

    /// The fetch request, checked against `schema`.
    func fetchRequest(schema: Schema) throws -> (FetchRequest, EntityDescription) {
        var definition: ViewDefinition
        if let view {
            guard let named = schema.views[view] else {
                let known = schema.views.keys.sorted().joined(separator: ", ")
                throw CLIError("unknown view '\(view)'" + (known.isEmpty ? " (the schema has no views)" : " (views: \(known))"))
            }
            definition = named
        } else {
            definition = ViewDefinition(entity: entity!, predicate: predicate, sort: sort, sectionKey: section)
        }
        if let include { definition.include = include }
        if let limit { definition.limit = limit }
        if let offset { definition.offset = offset }
        let entityDescription = try schema.entity(named: definition.entity)
        var request = try FetchRequest(definition)
        request.variables = try parsedVariables()
        return (request, entityDescription)
    }

    /// `--var NAME=VALUE`: the value read as a JSON literal when it is one (`42`, `true`, `"x"`, `null`),
    /// otherwise as text.
    func parsedVariables() throws -> [String: Value] {
        var out: [String: Value] = [:]
        for assignment in variables {
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
                throw CLIError("--var expects NAME=VALUE, got '\(assignment)'")
            }
            let name = String(assignment[..<eq]), text = String(assignment[assignment.index(after: eq)...])
            let value: Value
            switch try? JSONValue.parse(text) {
            case .int(let i)?: value = .int(i)
            case .double(let d)?: value = .double(d)
            case .bool(let b)?: value = .bool(b)
            case .string(let s)?: value = Timestamp(iso8601: s).map(Value.date) ?? .string(s)
            case .null?: value = .null
            default: value = Timestamp(iso8601: text).map(Value.date) ?? .string(text)
            }
            out[name.hasPrefix("$") ? String(name.dropFirst()) : name] = value
        }
        return out
    }
}

/// A view followed through a ``Context`` — the library's one way to drive a view: the context computes each
/// move's delta and its results controller applies it — and the values of the view's rows, for printing.
/// `query` prints it; `diff` and `watch` move it.
final class MaterializedView: ContextObserver {
    let context: Context
    let controller: ResultsController
    let entity: EntityDescription
    /// The values of the view's rows, and of every object of the entity a move touched since, by id; empty while
    /// `records` holds the rows' values instead (a view not moved yet).
    private(set) var values: [ObjectID: ObjectValues]
    /// The rows' values kept by the fetch (their stored bytes at the head, the fold's values behind it): printed
    /// straight from them, made into `values` only before a move.
    private var records: ViewRowRecords?
    /// The change set of the move under way (the controller reports only non-empty ones).
    private var reported: ChangeSet?
    private var observation: ViewObservation?
    /// Whether the controller holds only the head of a stored view (``init(storedWindowOf:options:at:following:)``):
    /// `values` then lacks the rows that a move brings into the window from past it, until the move reads them.
    private var holdsWindowOnly = false

    /// With `printOnly`, a window of a named view at the head is read from the view's stored rows
    /// (``Context/makeStoredWindowSnapshot(view:_:)``): the view can then be printed, not moved.
    init(store: LogStore, options: ViewOptions, at position: UInt64, printOnly: Bool = false) throws {
        let schema = try store.schema(at: position)
        let (request, entity) = try options.fetchRequest(schema: schema)
        context = try Context(store: store, name: "viewlog", at: position)
        self.entity = entity
        if printOnly, let name = options.view, let (controller, records) = try context.makeStoredWindowSnapshot(view: name, request) {
            self.controller = controller
            self.records = records
            values = [:]
        } else if let (controller, records) = try context.makeResultsControllerKeepingRows(request) {
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

    /// A windowed named view at `position`, made from its stored rows at the head and the objects changed after
    /// `position` (``Context/makeStoredWindowController(view:_:transactionsMax:following:)``): exact when moved to any
    /// position from `position` to the head, and with `following` past it too. `nil` when that does not apply (then
    /// use the other initializer).
    init?(storedWindowOf store: LogStore, options: ViewOptions, at position: UInt64, following: Bool = false) throws {
        guard let name = options.view, try store.head >= position else { return nil }
        let schema = try store.schema(at: position)
        let (request, entity) = try options.fetchRequest(schema: schema)
        guard request.limit != nil else { return nil }
        context = try Context(store: store, name: "viewlog", at: position)
        self.entity = entity
        guard let (controller, values) = try context.makeStoredWindowController(view: name, request, following: following) else { return nil }
        self.controller = controller
        self.values = values
        records = nil
        holdsWindowOnly = true
        context.addObserver(self)
        observation = controller.observe { [weak self] event in
            if case .changes(let changes) = event { self?.reported = changes }
        }
    }

    var observedEntity: String? { entity.name }

    func context(_ context: Context, didMoveWith delta: Delta) {
        // A view over key paths has its context deliver every entity's objects: keep only the rows' entity.
        for d in delta.objects where d.key.entity == entity.name { values[d.key.id] = d.after }
    }

    /// Moves the view to `position` (either direction) as one batch: its change set, and the values before.
    func move(to position: UInt64) throws -> (changes: ChangeSet, before: [ObjectID: ObjectValues]) {
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
        if holdsWindowOnly {
            // A row that entered the window from past it, untouched by the move: its values, for printing.
            for change in changes.rowChanges where values[change.id] == nil {
                values[change.id] = try context.store.object(ObjectKey(entity: entity.name, id: change.id), at: position)
            }
        }
        return (changes, before)
    }

    /// Prints the `query` document as one line (``writeJSON(into:every:_:)``), in pieces: a view of many rows is
    /// never held whole in memory.
    func printJSON() throws {
        try Output.standard.line(streaming: { bytes, drain in
            var w = JSONWriter()
            swap(&w.bytes, &bytes)
            defer { swap(&w.bytes, &bytes) }
            try writeJSON(into: &w, every: Output.standard.pieceBytes) { drain(&$0.bytes) }
        })
    }

    /// Writes the `query` document, `{"position": 9, "sections": [{"name": "A", "rows": [{"id": "e1", "values":
    /// {…}}]}]}`, into `w` straight from the values (no ``JSONValue`` tree) or from the rows' stored bytes,
    /// calling `drain` after a row whenever `w` holds `pieceBytes` or more (`drain` may take the bytes so far).
    func writeJSON(into w: inout JSONWriter, every pieceBytes: Int, _ drain: (inout JSONWriter) -> Void) throws {
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
                w.raw("}")
                if let paths = controller.pathValues(of: id) {
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

    /// Aligned text: one table whose columns line up across sections; when sectioned, a heading per section
    /// (`name (n rows)`) above its rows, each section with the column header.
    func textLines() throws -> [String] {
        let ids = controller.fetchedObjects
        if ids.isEmpty { return ["(no rows at position \(controller.position))"] }
        let columns = entity.attributes
        let rightAligned = Set(columns.indices.filter { Value.alignsRight(columns[$0].type) }.map { $0 + 1 })
            .union(entity.idType == .int ? [0] : [])
        let cells = try ids.map { id -> [String] in
            let v = try records?.values(of: id) ?? values[id] ?? [:]
            return [id.displayText] + columns.map { (v[$0.name] ?? .null).displayText }
        }
        let indent = controller.isSectioned ? "  " : ""
        let table = TextTable(header: ["id"] + columns.map(\.name), rows: cells, indent: indent, rightAligned: rightAligned)
        let widths = table.widths
        guard controller.isSectioned else { return table.lines(widths: widths) }
        var out: [String] = []
        var row = 0
        for info in controller.sections {
            let n = info.numberOfObjects
            out.append("\(info.name.map { Value.string($0).displayText } ?? "(null)") (\(n) \(n == 1 ? "row" : "rows"))")
            let section = TextTable(header: table.header, rows: Array(cells[row..<(row + n)]), indent: indent,
                                    rightAligned: rightAligned)
            out += section.lines(widths: widths)
            row += n
        }
        return out
    }
}
