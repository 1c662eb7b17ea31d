import Foundation
import LMDB
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews
import ViewLogTesting

/// Stored views (DESIGN §11): after every write — appends in batches, deletes, a schema change that adds a view,
/// replay and import — each stored view's rows equal the view recomputed from the objects (``LogStore/verify()``
/// and a plain model: filter and sort of a dictionary), and a window read from the stored rows equals the window
/// of the view built in memory. Seeded; rerun a failure with `VIEWLOG_SEED`.
@Suite("Stored views")
struct StoredViewTests {
    static let schemaText = """
        {"entities": {
          "Item": {"id": "int", "attributes": {
            "n": {"type": "int", "default": 0}, "label": {"type": "string", "optional": true},
            "score": {"type": "double", "optional": true}, "flag": {"type": "bool", "default": false}}},
          "Note": {"id": "string", "attributes": {"text": {"type": "string", "default": ""}}}},
         "views": {
          "byN": {"entity": "Item", "sort": "n, label desc"},
          "top": {"entity": "Item", "where": "flag == YES", "sort": "score desc, n", "limit": 3, "offset": 1},
          "sections": {"entity": "Item", "where": "n != 0", "sort": "label desc, score", "section": "label"},
          "notes": {"entity": "Note", "sort": "text desc"},
          "recent": {"entity": "Item", "where": "id > 3 AND flag == NO", "sort": "flag, id desc"},
          "withVariable": {"entity": "Item", "where": "n > $min", "sort": "n"}}}
        """
    /// The schema change made halfway: a view added (built in the same write as the change).
    static let schemaText2 = schemaText.replacingOccurrences(
        of: #""notes": {"#, with: #""late": {"entity": "Item", "where": "score > 0", "sort": "score, label", "section": "flag"}, "notes": {"#)

    static func value(_ attribute: Attribute, using g: inout SeededGenerator) -> Value {
        if attribute.isOptional, Int.random(in: 0..<4, using: &g) == 0 { return .null }
        switch attribute.type {
        case .bool: return .bool(Bool.random(using: &g))
        case .int: return .int(Int64.random(in: -3...3, using: &g))
        case .string: return .string(["a", "b", "", "cd", "a\u{0}b"].randomElement(using: &g)!)
        case .double: return .double([1.5, -2.0, 3.25, 0.0, -0.0].randomElement(using: &g)!)
        case .date: return .date(Timestamp(milliseconds: Int64.random(in: 0...1000, using: &g)))
        }
    }

    /// A random transaction of 1…6 changes valid against `state`.
    static func requests(_ state: inout [ObjectKey: ObjectValues], schema: Schema, using g: inout SeededGenerator) -> [ChangeRequest] {
        var out: [ChangeRequest] = [], taken: Set<ObjectKey> = []
        for _ in 0..<Int.random(in: 1...6, using: &g) {
            let entity = Int.random(in: 0..<5, using: &g) == 0 ? "Note" : "Item"
            let id: ObjectID = entity == "Item" ? .int(Int64.random(in: -5...30, using: &g)) : .string("n\(Int.random(in: 0...6, using: &g))")
            let key = ObjectKey(entity: entity, id: id)
            guard taken.insert(key).inserted else { continue }
            let attributes = schema.entities[entity]!.attributes
            var values: ObjectValues = [:]
            for a in attributes where Bool.random(using: &g) { values[a.name] = value(a, using: &g) }
            let description = schema.entities[entity]!
            if state[key] == nil {
                out.append(.insert(entity: entity, id: id, values: values))
                var full: ObjectValues = [:]
                for a in description.attributes { full[a.name] = values[a.name] ?? a.defaultValue ?? .null }
                state[key] = full
            } else if Int.random(in: 0..<4, using: &g) == 0 {
                out.append(.delete(entity: entity, id: id))
                state[key] = nil
            } else {
                if values.isEmpty, let a = attributes.randomElement(using: &g) { values[a.name] = value(a, using: &g) }
                out.append(.update(entity: entity, id: id, values: values))
                state[key]!.merge(values) { _, new in new }
            }
        }
        return out
    }

    /// The ids of the named view `name` (without its window) over `state`, computed in memory.
    static func modelRows(_ name: String, schema: Schema, state: [ObjectKey: ObjectValues]) throws -> [ObjectID] {
        var request = try FetchRequest(schema.views[name]!)
        request.limit = nil
        request.offset = 0
        let entity = schema.entities[request.entity]!
        let objects = state.filter { $0.key.entity == entity.name }.map { ($0.key.id, $0.value) }
        return try ResultsController(fetchRequest: request, entity: entity, objects: objects, position: 0).fetchedObjects
    }

    /// The ids of the stored rows of `name`, in stored order; `nil` when the view is not stored.
    static func storedRows(_ store: LogStore, _ name: String) throws -> [ObjectID]? {
        try store.perform(read: true) { txn -> [ObjectID]? in
            guard let view = try store.storedView(named: name, schema: try store.schema(at: UInt64.max, in: txn), in: txn) else { return nil }
            var ids: [ObjectID] = []
            try store.forEachStoredRow(of: view, from: 0, in: txn) { ids.append($0); return true }
            return ids
        }
    }

    /// The rows of a window of the named view `name` as the CLI's `query` prints them: sections and ids, read from
    /// the stored rows (`stored`) or built in memory.
    static func window(_ store: LogStore, _ name: String, limit: Int?, offset: Int, stored: Bool) throws -> [[String]]? {
        let context = try Context(store: store, name: "test")
        var request = try FetchRequest(try store.schema.views[name]!)
        if let limit { request.limit = limit }
        request.offset = offset
        let controller: ResultsController
        if stored {
            guard let made = try context.makeStoredWindowSnapshot(view: name, request) else { return nil }
            controller = made.controller
        } else {
            controller = try context.makeResultsController(request)
        }
        var out: [[String]] = [], row = 0
        for s in controller.sections {
            out.append([s.name ?? "(null)"] + controller.fetchedObjects[row..<(row + s.numberOfObjects)].map(\.json.text))
            row += s.numberOfObjects
        }
        return out
    }

    static func check(_ store: LogStore, _ state: [ObjectKey: ObjectValues], seed: UInt64, step: Int,
                      using g: inout SeededGenerator) throws {
        let schema = try store.schema
        let problems = try store.storedViewProblems(limit: 5)
        #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
        for name in schema.views.keys.sorted() {
            let stored = try storedRows(store, name)
            if name == "withVariable" {
                #expect(stored == nil, "a view with variables is not stored")
                continue
            }
            let expected = try modelRows(name, schema: schema, state: state)
            #expect(stored == expected, "seed \(seed) step \(step) view \(name)")
            for _ in 0..<2 {
                let limit = Int.random(in: 0...6, using: &g), offset = Int.random(in: 0...5, using: &g)
                let a = try window(store, name, limit: limit, offset: offset, stored: true)
                let b = try window(store, name, limit: limit, offset: offset, stored: false)
                #expect(a != nil && a == b, "seed \(seed) step \(step) view \(name) limit \(limit) offset \(offset)")
            }
        }
    }

    @Test func storedViewsMatchTheModelAfterEveryWrite() throws {
        let seed = SeededGenerator.seed(default: 28)
        var g = SeededGenerator(seed: seed)
        let path = TestScratch.newPath()
        var schema = try Schema(jsonText: Self.schemaText)
        let store = try LogStore.create(at: path, schema: schema)
        var state: [ObjectKey: ObjectValues] = [:]
        for step in 0..<60 {
            if step == 30 {
                schema = try Schema(jsonText: Self.schemaText2)
                try store.updateSchema(schema, author: "test")
                #expect(try Self.storedRows(store, "late") != nil, "a view added by a schema change is built in its write")
            } else {
                let batches = Int.random(in: 1...3, using: &g)
                var requests: [TransactionRequest] = []
                for _ in 0..<batches { requests.append(TransactionRequest(author: "t", changes: Self.requests(&state, schema: schema, using: &g))) }
                requests.removeAll { $0.changes.isEmpty }
                if requests.isEmpty { continue }
                try store.append(requests)
            }
            try Self.check(store, state, seed: seed, step: step, using: &g)
        }
        #expect(try store.verify().isOK)
        // Replay (by slot and as appends) and import build the same stored views.
        for bySlot in [true, false] {
            let replayed = try store.replay(into: TestScratch.newPath(), through: nil, options: StoreOptions(), bySlot: bySlot,
                                            chunk: 7, progress: nil)
            try Self.check(replayed, state, seed: seed, step: -1, using: &g)
            for name in try store.schema.views.keys.sorted() {
                #expect(try Self.storedRows(replayed, name) == Self.storedRows(store, name))
            }
        }
    }

    @Test func verifyNamesAStoredViewThatDiffersFromTheObjects() throws {
        let schema = try Schema(jsonText: Self.schemaText)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        try store.append([.insert(entity: "Item", id: .int(1), values: ["n": .int(2)]),
                          .insert(entity: "Item", id: .int(2), values: ["n": .int(1)])], author: "t")
        #expect(try store.verify().isOK)
        // A row removed behind the store's back, and one added for an object that is not in the view.
        try store.perform { txn in
            let view = StoredView(name: "byN", schema: schema)!
            var first: [UInt8]?
            try txn.scan(store.viewsDB!, from: .after(view.prefix)) { e in first = Array(e.key); return .stop }
            _ = try txn.delete(store.viewsDB!, key: first!)
            var key = view.prefix
            _ = view.plan.order.encode(id: .int(9), values: ["n": Value.int(0)] as ObjectValues, into: &key)
            try txn.put(store.viewsDB!, key: key, value: key.withUnsafeBytes { StoredView.rowValue(of: $0) })
        }
        let problems = try store.verify().problems
        #expect(problems.contains("stored view 'byN': no row for Item 2, which the view has"), "\(problems)")
        #expect(problems.contains("stored view 'byN': a row for Item 9 that the view does not have there"), "\(problems)")
        // A window that reads the row of an object that does not exist is refused, never printed.
        #expect(throws: StoreError.self) { try Self.window(store, "byN", limit: 5, offset: 0, stored: true) }
    }

    @Test func aStoreWithoutStoredViewsGetsThemWhenOpenedForWriting() throws {
        let schema = try Schema(jsonText: Self.schemaText)
        let path = TestScratch.newPath()
        do {
            let store = try LogStore.create(at: path, schema: schema)
            try store.append([.insert(entity: "Item", id: .int(1), values: ["n": .int(2), "flag": .bool(true)])], author: "t")
            // As a store made before stored views: no rows, no headers.
            try store.perform { txn in
                for prefix in try store.storedViewPrefixes(in: txn) { try store.dropStoredView(prefix: prefix, in: txn) }
            }
            #expect(try Self.storedRows(store, "byN") == nil)
            #expect(try Self.window(store, "byN", limit: 1, offset: 0, stored: true) == nil, "an unbuilt view is read in memory")
            try store.buildStoredViews()
            #expect(try Self.storedRows(store, "byN") == [.int(1)])
            #expect(try store.storedViewStatistics().map(\.rows) == [1, 0, 0, 1, 1, 0])
            #expect(try store.storedViewStatistics().map(\.isStored) == [true, true, true, true, true, false])
        }
    }

    /// The change sets of moving a window from `from` to `to`: from a controller made from the stored rows at the
    /// lower position, and from one built in memory at `from`.
    static func moves(_ store: LogStore, _ name: String, limit: Int, offset: Int, from: UInt64, to: UInt64) throws -> (stored: ChangeSet?, memory: ChangeSet?, made: Bool) {
        var request = try FetchRequest(try store.schema.views[name]!)
        request.limit = limit
        request.offset = offset
        let memoryContext = try Context(store: store, name: "m", at: from)
        let memory = try memoryContext.makeResultsController(request)
        var memorySet: ChangeSet?
        let o1 = memory.observe { if case .changes(let c) = $0 { memorySet = c } }
        try memoryContext.move(to: to)
        let storedContext = try Context(store: store, name: "s", at: min(from, to))
        guard let (stored, _) = try storedContext.makeStoredWindowController(view: name, request) else { return (nil, memorySet, false) }
        if from > to { try storedContext.move(to: from) }
        var storedSet: ChangeSet?
        let o2 = stored.observe { if case .changes(let c) = $0 { storedSet = c } }
        try storedContext.move(to: to)
        #expect(stored.fetchedObjects == memory.fetchedObjects)
        _ = (o1, o2)
        return (storedSet, memorySet, true)
    }

    @Test func aWindowMovedNearTheHeadFromStoredRowsEqualsTheViewInMemory() throws {
        let schema = try Schema(jsonText: Self.schemaText)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        for i in 1...6 { try store.append([.insert(entity: "Item", id: .int(Int64(i)), values: ["n": .int(Int64(i))])], author: "t") }
        // Item 6 enters the window of the two smallest n, then leaves it again: at the head it is where it was.
        try store.append([.update(entity: "Item", id: .int(6), values: ["n": .int(-1)])], author: "t")
        try store.append([.update(entity: "Item", id: .int(6), values: ["n": .int(6)])], author: "t")
        try store.append([.delete(entity: "Item", id: .int(1)), .update(entity: "Item", id: .int(5), values: ["n": .int(0)])], author: "t")
        let head = try store.head
        for from in (head - 4)...head {
            for to in (head - 4)...head where to != from {
                for (limit, offset) in [(2, 0), (1, 1), (3, 2)] {
                    let m = try Self.moves(store, "byN", limit: limit, offset: offset, from: from, to: to)
                    #expect(m.made)
                    #expect(m.stored == m.memory, "\(from)→\(to) limit \(limit) offset \(offset)")
                }
            }
        }
    }

    /// Delete rules change objects the request does not name (DESIGN §10): nullify and cascade move their rows too.
    @Test func deleteRulesMoveTheRowsOfTheObjectsTheyChange() throws {
        var schema = try graphSchema()
        schema.views = [
            "byDepartment": ViewDefinition(entity: "Employee", sort: "department, name", sectionKey: "department"),
            "projects": ViewDefinition(entity: "Project", sort: "title desc"),
            "overDepartment": ViewDefinition(entity: "Employee", sort: "department.name"),  // over a to-one key path
        ]
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "A"]),
                          .insert(entity: "Department", id: .int(2), values: ["name": "B"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "Ann", "department": .int(1)]),
                          .insert(entity: "Employee", id: "e2", values: ["name": "Bob", "department": .int(2)]),
                          .insert(entity: "Project", id: .int(1), values: ["title": "x", "owner": .int(1)]),
                          .insert(entity: "Project", id: .int(2), values: ["title": "y", "owner": .int(2)])], author: "t")
        #expect(try Self.storedRows(store, "byDepartment") == ["e1", "e2"])
        #expect(try Self.storedRows(store, "overDepartment") == ["e1", "e2"], "a view over to-one key paths is stored")
        // Department 1 deleted: e1's department nullified (its row moves to the null section), project 1 cascaded.
        try store.append([.delete(entity: "Department", id: .int(1))], author: "t")
        #expect(try Self.storedRows(store, "byDepartment") == ["e1", "e2"])
        #expect(try Self.storedRows(store, "overDepartment") == ["e1", "e2"], "a null department.name sorts first")
        #expect(try Self.storedRows(store, "projects") == [.int(2)])
        let problems = try store.verify().problems
        #expect(problems.isEmpty, "\(problems)")
        var state: [ObjectKey: ObjectValues] = [:]
        for entity in ["Employee", "Project"] {
            for (id, values) in try store.objects(of: entity) { state[ObjectKey(entity: entity, id: id)] = values }
        }
        #expect(try Self.storedRows(store, "byDepartment") == Self.modelRows("byDepartment", schema: schema, state: state))
    }

    /// A controller that follows the store from a stored view's window (`watch`): before each move it pulls the rows
    /// the move needs from the stored view, so its window and change sets equal those of the view built in memory,
    /// also when a row leaving the window brings the next one in, and when it moves to a position below a head that
    /// has moved on.
    @Test func aFollowingWindowStaysExactPastTheHead() throws {
        let seed = SeededGenerator.seed(default: 2812)
        var g = SeededGenerator(seed: seed)
        let schema = try Schema(jsonText: Self.schemaText)
        for (name, limit, offset) in [("byN", 2, 0), ("sections", 3, 1), ("top", 1, 4), ("notes", 2, 1)] {
            let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
            var state: [ObjectKey: ObjectValues] = [:]
            for _ in 0..<6 { try store.append(Self.requests(&state, schema: schema, using: &g), author: "t") }
            var request = try FetchRequest(schema.views[name]!)
            request.limit = limit
            request.offset = offset
            let memoryContext = try Context(store: store, name: "m")
            let memory = try memoryContext.makeResultsController(request)
            let storedContext = try Context(store: store, name: "s")
            let stored = try #require(try storedContext.makeStoredWindowController(view: name, request, following: true)).controller
            var memorySets: [ChangeSet] = [], storedSets: [ChangeSet] = []
            let o1 = memory.observe { if case .changes(let c) = $0 { memorySets.append(c) } }
            let o2 = stored.observe { if case .changes(let c) = $0 { storedSets.append(c) } }
            for step in 0..<40 {
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    let changes = Self.requests(&state, schema: schema, using: &g)
                    if !changes.isEmpty { try store.append(changes, author: "t") }
                }
                let head = try store.head
                // Sometimes to a position below the head: the rows pulled must be those of that position.
                let to = Bool.random(using: &g) ? head : UInt64.random(in: memory.position...head, using: &g)
                try memoryContext.move(to: to)
                try storedContext.move(to: to)
                #expect(storedSets == memorySets, "seed \(seed) view \(name) step \(step)")
                #expect(stored.fetchedObjects == memory.fetchedObjects, "seed \(seed) view \(name) step \(step)")
                #expect(stored.sections.map(\.name) == memory.sections.map(\.name))
            }
            _ = (o1, o2)
        }
    }

    /// A write by code that keeps no stored views (simulated: rows left stale and the maintained record behind the
    /// head) makes them stale: they are never read, verify does not serve them, and the next write builds them again.
    @Test func viewsLeftBehindTheHeadAreNeverReadAndAreBuiltAgain() throws {
        let schema = try Schema(jsonText: Self.schemaText)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        try store.append([.insert(entity: "Item", id: .int(1), values: ["n": .int(2), "flag": .bool(true)]),
                          .insert(entity: "Item", id: .int(2), values: ["n": .int(1), "flag": .bool(true)])], author: "t")
        let head = try store.head
        try store.perform { txn in
            let view = StoredView(name: "byN", schema: schema)!
            var first: [UInt8]?
            try txn.scan(store.viewsDB!, from: .after(view.prefix)) { e in first = Array(e.key); return .stop }
            _ = try txn.delete(store.viewsDB!, key: first!)
            try txn.put(store.viewsDB!, key: StoredView.maintainedKey, value: StoredView.maintainedValue(head - 1))
        }
        #expect(try Self.storedRows(store, "byN") == nil, "stale views are not read")
        #expect(try Self.window(store, "byN", limit: 2, offset: 0, stored: true) == nil)
        #expect(try store.verify().isOK)
        try store.append([.update(entity: "Item", id: .int(1), values: ["n": .int(0)])], author: "t")
        #expect(try Self.storedRows(store, "byN") == [.int(1), .int(2)])
        #expect(try store.verify().isOK)
        // And an open for writing builds them too.
        try store.perform { txn in try txn.put(store.viewsDB!, key: StoredView.maintainedKey, value: StoredView.maintainedValue(0)) }
        #expect(try Self.storedRows(store, "top") == nil)
        _ = try LogStore.open(at: store.path)
        var state: [ObjectKey: ObjectValues] = [:]
        for (id, values) in try store.objects(of: "Item") { state[ObjectKey(entity: "Item", id: id)] = values }
        #expect(try Self.storedRows(store, "top") == Self.modelRows("top", schema: schema, state: state))
    }
}

/// A library controller of a windowed named view (DESIGN §11) opens from the view's stored rows, holding the window,
/// not the view, and stays exact whatever its context does: unsaved changes shown and rolled back, saves, merges of a
/// sibling's saves, moves back and forth, moves too far for the stored rows (it then takes the whole view). Compared
/// at every step with a controller of the same request built in memory in the same context, and with the view
/// recomputed from the context's objects; every change set checked by the UITableView rules.
@Suite("Stored views: library controllers")
struct StoredWindowControllerTests {
    /// The state of `context` (its position plus unsaved changes) for every entity of the schema.
    static func state(of context: Context, schema: Schema) throws -> [ObjectKey: ObjectValues] {
        var state: [ObjectKey: ObjectValues] = [:]
        for entity in schema.entities.keys {
            for (id, values) in try context.objects(of: entity) { state[ObjectKey(entity: entity, id: id)] = values }
        }
        return state
    }

    @Test func aWindowedNamedViewOpensFromItsStoredRows() throws {
        let schema = try Schema(jsonText: StoredViewTests.schemaText)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        for chunk in stride(from: 0, to: 1_000, by: 250) {
            var changes: [ChangeRequest] = []
            for i in chunk..<chunk + 250 {
                let values: ObjectValues = ["n": .int(Int64(i % 97)), "flag": .bool(i % 3 == 0), "score": .double(Double(i % 89))]
                changes.append(.insert(entity: "Item", id: .int(Int64(i)), values: values))
            }
            try store.append(changes, author: "t")
        }
        let context = try Context(store: store, name: "ui")
        let top = try context.makeResultsController(view: "top")  // limit 3, offset 1
        #expect(top.holdsStoredWindow, "opened from the stored rows")
        let viewRows = try StoredViewTests.modelRows("top", schema: schema, state: try Self.state(of: context, schema: schema))
        #expect(viewRows.count > 300)
        #expect(top.rows.count <= 4, "holds the window's rows, not the view's \(viewRows.count)")
        #expect(top.fetchedObjects == Array(viewRows[1..<4]))
        var request = try FetchRequest(schema.views["byN"]!)
        request.limit = 5
        let byN = try context.makeResultsController(request)
        #expect(byN.holdsStoredWindow && byN.rows.count <= 5)
        let memory = try context.makeResultsControllerAndObjects(request).controller
        #expect(byN.fetchedObjects == memory.fetchedObjects)
        // Not the view's own request, a view with variables, no limit: built in memory.
        request.predicate = try ViewPredicate("n > 3")
        #expect(!(try context.makeResultsController(request).holdsStoredWindow))
        let withVariable = try context.makeResultsController(view: "withVariable", variables: ["min": .int(1)])
        #expect(!withVariable.holdsStoredWindow)
        // The whole view (no limit) is made from the stored rows' keys: a row taken out of the stored view (as
        // damage would) is missing from it, and from no controller built from the objects.
        let byNStored = StoredView(name: "byN", schema: schema)!
        try store.perform { txn in
            var first: [UInt8]?
            try txn.scan(store.viewsDB!, from: .after(byNStored.prefix)) { e in first = Array(e.key); return .stop }
            _ = try txn.delete(store.viewsDB!, key: first!)
        }
        let whole = try context.makeResultsController(view: "byN")
        #expect(!whole.holdsStoredWindow)
        let byNRows = try StoredViewTests.modelRows("byN", schema: schema, state: try Self.state(of: context, schema: schema))
        #expect(whole.fetchedObjects == Array(byNRows.dropFirst()))
        #expect(try context.makeResultsControllerAndObjects(FetchRequest(schema.views["byN"]!)).controller.fetchedObjects == byNRows)
        // An unsaved change of the entity: built in memory (the stored rows are the head's).
        try context.update("Item", id: .int(3), values: ["n": .int(-7)])
        let unsaved = try context.makeResultsController(view: "top")
        #expect(!unsaved.holdsStoredWindow)
    }

    @Test(arguments: [("byN", 2, 0), ("sections", 3, 1), ("top", 1, 4), ("notes", 2, 1), ("byN", 0, 3)])
    func aWindowedControllerStaysExactThroughEveryContextOperation(_ name: String, _ limit: Int, _ offset: Int) throws {
        let seed = SeededGenerator.seed(default: 2815)
        var g = SeededGenerator(seed: seed)
        let schema = try Schema(jsonText: StoredViewTests.schemaText)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: schema)
        var headState: [ObjectKey: ObjectValues] = [:]
        for _ in 0..<8 { try store.append(StoredViewTests.requests(&headState, schema: schema, using: &g), author: "t") }
        var request = try FetchRequest(schema.views[name]!)
        request.limit = limit
        request.offset = offset
        let context = try Context(store: store, name: "ui")
        // Some runs let a move reach at most 2 transactions below the head from the stored rows: farther moves take
        // the whole view.
        let near: UInt64 = (limit + offset) % 2 == 0 ? 2 : Limits.storedViewCatchUpTransactionsMax
        let stored = try #require(try context.makeStoredWindowController(view: name, request, transactionsMax: near, following: true)).controller
        #expect(stored.holdsStoredWindow)
        let memory = try context.makeResultsControllerAndObjects(request).controller
        // The whole view, made from the stored rows' keys, and built in memory.
        var wholeRequest = request
        wholeRequest.limit = nil
        wholeRequest.offset = 0
        let whole = try context.makeResultsController(wholeRequest)
        let wholeInMemory = try context.makeResultsControllerAndObjects(wholeRequest).controller
        #expect(whole.fetchedObjects == wholeInMemory.fetchedObjects)
        let sibling = try Context(store: store, name: "sibling")
        var storedSets: [ChangeSet] = [], memorySets: [ChangeSet] = [], before = stored.snapshot
        var problems: [ChangeSetProblem] = []
        let o1 = stored.observe { event in
            guard case .changes(let c) = event else { return }
            storedSets.append(c)
            problems += ChangeSetValidator.validate(c, from: before, to: stored.snapshot)
            before = stored.snapshot
        }
        let o2 = memory.observe { if case .changes(let c) = $0 { memorySets.append(c) } }
        var wholeSets: [ChangeSet] = [], wholeInMemorySets: [ChangeSet] = []
        let o3 = whole.observe { if case .changes(let c) = $0 { wholeSets.append(c) } }
        let o4 = wholeInMemory.observe { if case .changes(let c) = $0 { wholeInMemorySets.append(c) } }
        for step in 0..<60 {
            let what = Int.random(in: 0..<8, using: &g)
            switch what {
            case 0, 1:  // unsaved changes, shown
                var state = try Self.state(of: context, schema: schema)
                for r in StoredViewTests.requests(&state, schema: schema, using: &g) { try context.stage(r) }
                try context.processPendingChanges()
            case 2:
                do { try context.save() } catch { try context.rollback() }  // a conflict with the sibling
            case 3:
                try context.rollback()
            case 4, 5:  // a sibling's save, merged or not
                var state = try Self.state(of: sibling, schema: schema)
                try sibling.refresh()
                state = try Self.state(of: sibling, schema: schema)
                let changes = StoredViewTests.requests(&state, schema: schema, using: &g)
                for r in changes { try sibling.stage(r) }
                try sibling.save()
                if what == 4 { try context.refresh() }
            default:  // a move, back or forth, unsaved changes kept
                let head = try store.head
                try context.move(to: UInt64.random(in: (head > 6 ? head - 6 : 0)...head, using: &g))
            }
            let label = "seed \(seed) view \(name) step \(step) op \(what) near \(near)"
            #expect(storedSets == memorySets, "\(label)")
            #expect(stored.fetchedObjects == memory.fetchedObjects, "\(label)")
            #expect(stored.sections.map(\.name) == memory.sections.map(\.name), "\(label)")
            #expect(stored.sections.map(\.numberOfObjects) == memory.sections.map(\.numberOfObjects), "\(label)")
            let recomputed = try ResultsController(fetchRequest: request, entity: schema.entities[request.entity]!,
                                                   objects: context.objects(of: request.entity), position: 0)
            #expect(stored.fetchedObjects == recomputed.fetchedObjects, "\(label)")
            stored.checkInvariants()
            #expect(wholeSets == wholeInMemorySets, "\(label)")
            #expect(whole.fetchedObjects == wholeInMemory.fetchedObjects, "\(label)")
            #expect(whole.sections.map(\.numberOfObjects) == wholeInMemory.sections.map(\.numberOfObjects), "\(label)")
            whole.checkInvariants(deep: true)
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect((!stored.holdsStoredWindow) == (near == 2), "a move far below the head took the whole view; near ones did not")
        _ = (o1, o2, o3, o4)
    }
}
