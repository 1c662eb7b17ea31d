import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews
import ViewLogTesting

/// Stored views over key paths (DESIGN §10, §11): a write moves the rows of the objects it touches and of every object
/// whose path reaches one it touches (through the relationships index), and keeps the per-target state of the
/// aggregates and quantifiers of to-many inverses, so that after every write — related objects renamed, members
/// joining, leaving and changing, relationships re-pointed, deletes with their nullify and cascade consequences, a
/// schema change adding such a view — each stored view's rows are exactly the view built in memory from the objects by
/// a context, and its state exactly the one its members make (`verify`).
@Suite("Stored views over key paths")
struct StoredPathViewTests {
    static let views: [String: String] = [
        "byDepartment": #"{"entity": "Employee", "sort": "department.name, name", "section": "department.name"}"#,
        "managed": #"{"entity": "Employee", "where": "department.floor > 1 OR manager.department.name == 'd1'", "sort": "manager.name desc"}"#,
        "projects": #"{"entity": "Project", "where": "owner.name != 'd0'", "sort": "reviewer.department.floor", "section": "owner.floor"}"#,
        "counted": #"{"entity": "Department", "sort": "employees.@count"}"#,
        // Aggregates and quantifiers of to-many inverses: their targets' state is stored.
        "heights": #"{"entity": "Department", "where": "ANY employees.height > 180 OR NONE employees.salary < 10.5", "sort": "employees.@max.height desc, employees.@min.name", "section": "employees.@count"}"#,
        "pay": #"{"entity": "Department", "where": "ALL employees.height >= 150", "sort": "employees.@avg.salary, employees.@sum.salary, employees.@sum.height, employees.@avg.height, name"}"#,
        "colleagues": #"{"entity": "Employee", "sort": "department.employees.@count desc, department.employees.@max.salary, name", "include": "department.name, department.employees.@avg.height, reports.@count"}"#,
        "reports": #"{"entity": "Employee", "where": "reports.@count > 0 OR manager.reports.@min.height > 160", "sort": "reports.@avg.height, name"}"#,
        "rich": #"{"entity": "Department", "where": "ANY employees.salary > 5000", "sort": "name"}"#,
    ]

    /// The relationships test's graph, with a double `salary` of employees (for the ordered sums of `@sum`, `@avg`).
    static let schemaText = graphSchemaText.replacingOccurrences(
        of: #""height": {"type": "int", "optional": true}"#,
        with: #""height": {"type": "int", "optional": true}, "salary": {"type": "double", "optional": true}"#)

    static func schema(_ names: [String]) throws -> Schema {
        let views = names.sorted().map { "\"\($0)\": \(Self.views[$0]!)" }.joined(separator: ", ")
        return try Schema(jsonText: String(schemaText.dropLast()) + ", \"views\": {\(views)}}")
    }

    /// The ids of the view `name` built in memory from the objects at the head.
    static func inMemory(_ store: LogStore, _ name: String) throws -> [ObjectID] {
        let context = try Context(store: store, name: "memory")
        let controller = try context.makeResultsController(FetchRequest(try store.schema.views[name]!))
        return controller.fetchedObjects
    }

    /// A batch of 1–3 random changes of the graph that mostly applies: ids chosen among the objects `existing` names
    /// (or not, for inserts), kept up to date through the batch; a few are still refused (a deny, a cascade's order).
    static func randomBatch(_ existing: (String) throws -> [ObjectID], using g: inout SeededGenerator) throws -> [ChangeRequest] {
        let ids = (0..<6).map { "e\($0)" }
        func value<T>(_ xs: [T]) -> T { xs.randomElement(using: &g)! }
        // Salaries whose sum depends on the order they are added in (0.1 + 1e16 …): a stored ordered sum must match.
        let heights: [Value] = [.null, .int(150), .int(170), .int(185), .int(140)]
        let salaries: [Value] = [.null, .double(0.1), .double(1e16), .double(10.25), .double(-3.5), .double(0.2)]
        var departments = Set(try existing("Department"))
        var employees = Set(try existing("Employee"))
        var projects = Set(try existing("Project"))
        func some(_ xs: Set<ObjectID>) -> Value { xs.isEmpty || Int.random(in: 0..<5, using: &g) == 0 ? .null : xs.sorted()[Int.random(in: 0..<xs.count, using: &g)].value }
        var batch: [ChangeRequest] = []
        for _ in 0..<Int.random(in: 1...3, using: &g) {
            let absentDepartments = Set([1, 2, 3, 4].map { ObjectID.int($0) }).subtracting(departments)
            let absentEmployees = Set(ids.map { ObjectID.string($0) }).subtracting(employees)
            let absentProjects = Set([1, 2].map { ObjectID.int($0) }).subtracting(projects)
            switch Int.random(in: 0..<10, using: &g) {
            case 0 where !absentDepartments.isEmpty:
                let id = absentDepartments.sorted()[0]
                departments.insert(id)
                batch.append(.insert(entity: "Department", id: id, values: ["name": .string("d\(value([0, 1, 2]))"), "floor": value([.null, .int(1), .int(2)])]))
            case 1 where !departments.isEmpty:
                batch.append(.update(entity: "Department", id: value(departments.sorted()), values: Bool.random(using: &g) ? ["name": .string("d\(value([0, 1, 2]))")] : ["floor": value([.null, .int(1), .int(3)])]))
            case 2...3 where !absentEmployees.isEmpty:
                let id = value(absentEmployees.sorted())
                batch.append(.insert(entity: "Employee", id: id, values: ["name": .string("n\(value([0, 1, 2]))"), "department": some(departments), "manager": some(employees), "height": value(heights), "salary": value(salaries)]))
                employees.insert(id)
            case 4...6 where !employees.isEmpty:
                batch.append(.update(entity: "Employee", id: value(employees.sorted()), values: value([["department": some(departments)], ["manager": some(employees)], ["name": .string("n\(value([0, 1, 2]))")], ["height": value(heights)], ["salary": value(salaries)], ["height": value(heights), "department": some(departments)]])))
            case 7 where !absentProjects.isEmpty && !departments.isEmpty:
                let id = absentProjects.sorted()[0]
                projects.insert(id)
                batch.append(.insert(entity: "Project", id: id, values: ["title": .string("p"), "owner": some(departments).isNull ? departments.sorted()[0].value : some(departments), "reviewer": some(employees)]))
            case 8 where !projects.isEmpty:
                batch.append(.update(entity: "Project", id: value(projects.sorted()), values: ["reviewer": some(employees)]))
            case 9 where !employees.isEmpty && Bool.random(using: &g):
                let id = value(employees.sorted())
                employees.remove(id)
                batch.append(.delete(entity: "Employee", id: id))
            case 9 where !departments.isEmpty:
                let id = value(departments.sorted())
                departments.remove(id)
                batch.append(.delete(entity: "Department", id: id))
            default: break
            }
        }
        return batch
    }

    /// A library controller of a windowed named view over key paths opens from the stored rows (the window's rows
    /// and path values, not the entity), and stays exact through every context operation, reporting exactly what the
    /// controller built in memory reports: moves through the log (a sibling's save merged, a move back) read what they
    /// need from the stored view, unsaved changes take the whole view, unreported, at their start.
    @Test(arguments: [("byDepartment", 2, 1), ("heights", 2, 0), ("colleagues", 3, 2), ("reports", 1, 1), ("pay", 1, 0)])
    func aWindowedControllerOverKeyPathsOpensFromStoredRowsAndStaysExact(_ name: String, _ limit: Int, _ offset: Int) throws {
        var g = SeededGenerator(stream: 2860 + UInt64(10 * limit + offset))
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(Array(Self.views.keys)))
        for _ in 0..<30 { _ = try? store.append(try Self.randomBatch({ try store.objects(of: $0).map(\.id) }, using: &g), author: "t") }
        var request = try FetchRequest(try store.schema.views[name]!)
        request.limit = limit
        request.offset = offset
        let context = try Context(store: store, name: "ui")
        let windowed = try context.makeResultsController(request)
        #expect(windowed.holdsStoredPathRange, "opened from the stored rows")
        #expect(windowed.rows.count <= offset + limit, "holds the window's rows")
        let memory = try context.makeResultsControllerAndObjects(request).controller
        #expect(!memory.holdsStoredPathRange)
        #expect(windowed.holdsStoredPathRange, "a move that changes nothing (the new controller's processPendingChanges) keeps the window")
        let sibling = try Context(store: store, name: "sibling")
        var windowedSets: [ChangeSet] = [], memorySets: [ChangeSet] = [], before = windowed.snapshot
        var problems: [ChangeSetProblem] = []
        let o1 = windowed.observe { event in
            guard case .changes(let c) = event else { return }
            windowedSets.append(c)
            problems += ChangeSetValidator.validate(c, from: before, to: windowed.snapshot)
            before = windowed.snapshot
        }
        let o2 = memory.observe { if case .changes(let c) = $0 { memorySets.append(c) } }
        // The whole view (no limit): in its stored order, then followed as any view over key paths.
        var wholeRequest = request
        wholeRequest.limit = nil
        wholeRequest.offset = 0
        let whole = try context.makeResultsController(wholeRequest)
        let wholeMemory = try context.makeResultsControllerAndObjects(wholeRequest).controller
        var wholeSets: [ChangeSet] = [], wholeMemorySets: [ChangeSet] = []
        let o3 = whole.observe { if case .changes(let c) = $0 { wholeSets.append(c) } }
        let o4 = wholeMemory.observe { if case .changes(let c) = $0 { wholeMemorySets.append(c) } }
        func compare(_ label: String) {
            #expect(wholeSets == wholeMemorySets, "whole \(label)")
            #expect(whole.fetchedObjects == wholeMemory.fetchedObjects, "whole \(label)")
            for id in whole.fetchedObjects { #expect(whole.pathValues(of: id) == wholeMemory.pathValues(of: id), "whole \(label)") }
            #expect(windowedSets == memorySets, "\(label)")
            #expect(windowed.fetchedObjects == memory.fetchedObjects, "\(label)")
            #expect(windowed.sections.map(\.name) == memory.sections.map(\.name), "\(label)")
            #expect(windowed.sections.map(\.numberOfObjects) == memory.sections.map(\.numberOfObjects), "\(label)")
            for id in windowed.fetchedObjects { #expect(windowed.pathValues(of: id) == memory.pathValues(of: id), "\(label)") }
        }
        compare("opened")
        for step in 0..<40 {
            // The first move is one that changes objects (the one that takes the whole view at its start): unsaved
            // changes, a sibling's save merged, or a move back.
            let what = step == 0 ? [0, 4, 6][(limit + offset) % 3] : Int.random(in: 0..<8, using: &g)
            switch what {
            case 0, 1:  // unsaved changes, shown
                for r in try Self.randomBatch({ try context.objects(of: $0).map(\.id) }, using: &g) { try? context.stage(r) }
                try? context.processPendingChanges()
            case 2:
                do { try context.save() } catch { try context.rollback() }  // refused, or a conflict with the sibling
            case 3:
                try context.rollback()
            case 4, 5:  // a sibling's save, merged or not
                try sibling.refresh()
                for r in try Self.randomBatch({ try sibling.objects(of: $0).map(\.id) }, using: &g) { try? sibling.stage(r) }
                do { try sibling.save() } catch { try sibling.rollback() }
                if what == 4 { try context.refresh() }
            default:  // a move, back or forth, unsaved changes kept
                let head = try store.head
                try context.move(to: step == 0 ? head - 3 : UInt64.random(in: (head > 6 ? head - 6 : 0)...head, using: &g))
            }
            compare("view \(name) step \(step) op \(what), \(g.rerunHint)")
            windowed.checkInvariants()
            if step == 0 {
                #expect(windowed.holdsStoredPathRange == (what != 0), "only unsaved changes take the whole view: op \(what)")
            }
        }
        #expect(problems.isEmpty, "\(problems)")
        _ = (o1, o2, o3, o4)
    }

    @Test func viewsOverToOnePathsAndAggregatesAreStored() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(Array(Self.views.keys)))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "b", "floor": .int(2)]),
                          .insert(entity: "Department", id: .int(2), values: ["name": "a"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "department": .int(1)]),
                          .insert(entity: "Employee", id: "e2", values: ["name": "y", "department": .int(2)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "byDepartment") == ["e2", "e1"])
        #expect(try StoredViewTests.storedRows(store, "counted") == [.int(1), .int(2)])
        // The rename of department 2 moves e2's row past e1's: one write, found through the index.
        try store.append([.update(entity: "Department", id: .int(2), values: ["name": "c"])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "byDepartment") == ["e1", "e2"])
        #expect(try store.storedViewStatistics().first { $0.name == "byDepartment" }?.rows == 2)
        // A member joining department 2 moves its row past department 1's; leaving it again moves it back.
        try store.append([.insert(entity: "Employee", id: "e3", values: ["name": "z", "department": .int(2)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "counted") == [.int(1), .int(2)])
        try store.append([.update(entity: "Employee", id: "e3", values: ["department": .int(1)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "counted") == [.int(2), .int(1)])
        try store.append([.delete(entity: "Employee", id: "e1")], author: "t")
        #expect(try StoredViewTests.storedRows(store, "counted") == [.int(1), .int(2)])
        #expect(try store.verify().isOK)
    }

    @Test func anAggregatedStringTooLongForAKeyLeavesTheViewUnstoredAndTheWriteWhole() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["heights", "counted"]))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "a"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "height": .int(190), "department": .int(1)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "heights") == [.int(1)])
        // `employees.@min.name` keeps a member entry per name: one of 600 bytes cannot be a key.
        let long = String(repeating: "z", count: 600)  // not the least name: no row key holds it
        try store.append([.insert(entity: "Employee", id: "e2", values: ["name": .string(long), "department": .int(1)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "heights") == nil, "not stored: read in memory")
        #expect(try store.storedViewStatistics().first { $0.name == "heights" }?.isStored == false)
        #expect(try Self.inMemory(store, "heights") == [.int(1)])
        #expect(try StoredViewTests.storedRows(store, "counted") == [.int(1)], "the other views are kept")
        try store.append([.update(entity: "Employee", id: "e2", values: ["name": "y"])], author: "t")
        #expect(try store.verify().isOK)
    }

    @Test func aWholeNamedViewOverKeyPathsComesInItsStoredOrder() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["counted"]))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "a"]),
                          .insert(entity: "Department", id: .int(2), values: ["name": "b"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "department": .int(2)])], author: "t")
        // A row taken out of the stored view (as damage would) is missing from the controller made from the stored
        // rows, and from no controller built from the objects.
        let counted = try #require(StoredView(name: "counted", schema: try store.schema))
        try store.perform { txn in
            var first: [UInt8]?
            try txn.scan(store.viewsDB!, from: .after(counted.prefix)) { e in first = Array(e.key); return .stop }
            _ = try txn.delete(store.viewsDB!, key: first!)
        }
        let context = try Context(store: store, name: "t")
        let request = try FetchRequest(try store.schema.views["counted"]!)
        #expect(try context.makeResultsController(request).fetchedObjects == [.int(2)])
        #expect(try context.makeResultsControllerAndObjects(request).controller.fetchedObjects == [.int(1), .int(2)])
    }

    /// A view over a double `@sum`/`@avg` keeps the members' exact sum in its targets' state records. State laid out
    /// otherwise (the sum walked from member entries, a shorter record) is under a signature without "exact sums":
    /// never read — the view builds in memory — and built again by the next open for writing.
    @Test func aggregateStateOfTheEarlierLayoutIsBuiltAgainNeverRead() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["pay"]))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "a"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "height": .int(190), "salary": .double(0.1), "department": .int(1)]),
                          .insert(entity: "Employee", id: "e2", values: ["name": "y", "height": .int(180), "salary": .double(1e16), "department": .int(1)]),
                          .insert(entity: "Employee", id: "e3", values: ["name": "z", "height": .int(170), "salary": .double(-1e16), "department": .int(1)])],
                         author: "t")
        let view = try #require(StoredView(name: "pay", schema: try store.schema))
        let earlier = Array(view.signature.dropLast("\u{0}exact sums".utf8.count))
        #expect(String(decoding: view.signature, as: UTF8.self).hasSuffix("\u{0}exact sums"))
        try store.perform { txn in
            let header = earlier + StoredView.checksumBytes(CRC32C.checksum(earlier, seed: CRC32C.checksum(view.prefix)))
            try txn.put(store.viewsDB!, key: view.prefix, value: header)
        }
        #expect(try StoredViewTests.storedRows(store, "pay") == nil, "not read")
        let context = try Context(store: store, name: "t")
        let controller = try context.makeResultsController(try FetchRequest(try store.schema.views["pay"]!))
        // The exact sum: 0.1 + 1e16 - 1e16 is 0.1 (added in ascending order, it was 0).
        #expect(controller.pathValues(of: .int(1))?["employees.@sum.salary"] == .double(0.1))
        try store.buildStoredViews()
        #expect(try StoredViewTests.storedRows(store, "pay") == [.int(1)])
        #expect(try store.verify().problems == [])
        var window = try FetchRequest(try store.schema.views["pay"]!)
        window.limit = 1
        let stored = try #require(try Context(store: store, name: "w").makeStoredPathWindowSnapshot(view: "pay", window)).controller
        #expect(stored.pathValues(of: .int(1))?["employees.@sum.salary"] == .double(0.1))
        #expect(stored.pathValues(of: .int(1))?["employees.@avg.salary"] == .double(0.1 / 3))
    }

    @Test func aggregateStateOfNoViewIsNamedByVerifyAndDroppedByAnOpenForWriting() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["heights", "byDepartment"]))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "a"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "height": .int(190), "department": .int(1)])], author: "t")
        let states = try store.perform(read: true) { txn in try store.aggregateStatePrefixes(in: txn, kept: []) }
        #expect(states == [StoredView.prefix("heights")])
        // State left by code that knows none (a view it removed) is named, then dropped.
        try store.perform { txn in
            let key = StoredAggregates.statePrefixHead + StoredView.prefix("gone") + [0x73, 0, 0x01]
            try txn.put(store.viewsDB!, key: key, value: [1, 2, 3])
            let head = try store.head(in: txn)
            try txn.put(store.viewsDB!, key: StoredView.aggregatesMaintainedKey, value: StoredView.maintainedValue(head, key: StoredView.aggregatesMaintainedKey))
        }
        #expect(try store.verify().problems == ["stored views: aggregate state of 'gone', which the schema does not keep"])
        try store.buildStoredViews()
        #expect(try store.verify().problems == [])
    }

    /// `diff` of a windowed named view over key paths between positions near the head (DESIGN §11): a controller made
    /// at p from the stored window and the rows touched since p, their path values read from the stored state at the
    /// head with the delta to p undone, reports for moves between positions from p to the head exactly what the view
    /// built in memory reports — change sets with their seqs (checked by the UITableView rules too), rows, sections,
    /// path values — and a move below p reads the range from there to the head again and stays exact.
    @Test(arguments: 0..<3)
    func aRangeControllerOverKeyPathsMovesBelowTheHeadAsTheViewInMemory(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2870 + stream)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(Array(Self.views.keys)))
        for _ in 0..<40 { _ = try? store.append(try Self.randomBatch({ try store.objects(of: $0).map(\.id) }, using: &g), author: "t") }
        var problems: [ChangeSetProblem] = []
        var readAgain = 0
        for name in Self.views.keys.sorted() {
            for round in 0..<12 {
                // A few more writes between rounds: ranges end at different heads.
                if round % 3 == 0 { _ = try? store.append(try Self.randomBatch({ try store.objects(of: $0).map(\.id) }, using: &g), author: "t") }
                let head = try store.head
                var request = try FetchRequest(try store.schema.views[name]!)
                request.limit = Int.random(in: 1...3, using: &g)
                request.offset = Int.random(in: 0...2, using: &g)
                // Narrow ranges too, where most rows are untouched and read from the stored window.
                let width = [1, 2, 3, 10][round % 4] as UInt64
                let a = UInt64.random(in: (head - width)...head, using: &g), b = UInt64.random(in: (head - width)...head, using: &g)
                let label = "view \(name) round \(round) \(a)→\(b) window \(request.offset)+\(request.limit!), \(g.rerunHint)"
                let context = try Context(store: store, name: "range", at: min(a, b))
                // Half the rounds through the library's one way in: below the head it makes the same controller (at
                // the head, the stored window's).
                let range = round % 2 == 0 || min(a, b) == head
                    ? try #require(try context.makeStoredPathRangeController(view: name, request), "\(label)").controller
                    : try context.makeResultsController(request)
                let touched = try #require(range.storedPathRange, "\(label)").touched
                #expect(range.rows.count <= request.offset + request.limit! + touched.count, "\(label)")
                if a > b { try context.move(to: a) }
                let memoryContext = try Context(store: store, name: "memory", at: a)
                let memory = try memoryContext.makeResultsControllerAndObjects(request).controller
                var rangeSets: [ChangeSet] = [], memorySets: [ChangeSet] = [], before = range.snapshot
                let o1 = range.observe { event in
                    guard case .changes(let c) = event else { return }
                    rangeSets.append(c)
                    problems += ChangeSetValidator.validate(c, from: before, to: range.snapshot)
                    before = range.snapshot
                }
                let o2 = memory.observe { if case .changes(let c) = $0 { memorySets.append(c) } }
                func compare(_ what: String) {
                    #expect(rangeSets == memorySets, "\(what) \(label)")
                    #expect(range.fetchedObjects == memory.fetchedObjects, "\(what) \(label)")
                    #expect(range.sections.map(\.name) == memory.sections.map(\.name), "\(what) \(label)")
                    #expect(range.sections.map(\.numberOfObjects) == memory.sections.map(\.numberOfObjects), "\(what) \(label)")
                    for id in range.fetchedObjects { #expect(range.pathValues(of: id) == memory.pathValues(of: id), "\(what) \(label)") }
                }
                compare("at a")
                before = range.snapshot
                try context.move(to: b)
                try memoryContext.move(to: b)
                compare("at b")
                #expect(range.storedPathRange != nil, "moves within the range read the stored state: \(label)")
                // Out of the range: the range from there to the head read again, at the move's start, then as in memory.
                let below = min(a, b) - 1 - UInt64.random(in: 0...3, using: &g)
                try context.move(to: below)
                try memoryContext.move(to: below)
                compare("below")
                let again = try #require(range.storedPathRange, "still a range: \(label)")
                if again.low == below { readAgain += 1 }  // unless the move changed nothing the view reads
                #expect(range.rows.count <= 2 * (request.offset + request.limit!) + again.touched.count, "\(label)")
                try context.move(to: head)
                try memoryContext.move(to: head)
                compare("back at the head")
                range.checkInvariants()
                _ = (o1, o2)
            }
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(readAgain >= 40, "most moves below the range read it again: \(readAgain) of 96")
    }

    /// A range controller holds the window and the rows the changes since its position reach — not the view: a salary
    /// changed in one department of twenty reaches that department's employees (their `department.employees.@max`)
    /// and that department (`ANY employees.salary`), a department renamed reaches its own row and its employees, and
    /// an employee moved reaches both departments
    /// (the one it left is read from the change's previous values), while a change of an attribute no aggregate reads
    /// reaches no row through the inverse — and reports what the view in memory reports.
    @Test func aRangeControllerHoldsTheWindowAndTheRowsTheChangesReach() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["colleagues", "heights", "counted", "byDepartment", "rich"]))
        var batch: [ChangeRequest] = (1...20).map { .insert(entity: "Department", id: .int($0), values: ["name": .string("d\($0)")]) }
        for e in 0..<200 {
            batch.append(.insert(entity: "Employee", id: .string("e\(e)"), values: [
                "name": .string("n\(e % 7)"), "department": .int(Int64(e % 20 + 1)), "height": .int(Int64(140 + e % 50)),
                "salary": .double(Double(e) * 10.5)]))
        }
        try store.append(batch, author: "t")
        try store.append([.update(entity: "Employee", id: .string("e3"), values: ["salary": .double(99_999)])], author: "t")
        // Department 1's employees are the first rows of `byDepartment` (by department name): renamed, they leave.
        try store.append([.update(entity: "Department", id: .int(1), values: ["name": "renamed"])], author: "t")
        // Department 1 (the employees e0, e20, …) is left with the fewest: first in `counted`.
        try store.append([.update(entity: "Employee", id: .string("e0"), values: ["department": 2])], author: "t")
        let head = try store.head
        for (name, most) in [("colleagues", 3 + 10 + 10 + 11), ("heights", 3 + 3), ("counted", 3 + 2), ("byDepartment", 3 + 12),
                             ("rich", 3 + 3)] {
            var request = try FetchRequest(try store.schema.views[name]!)
            request.limit = 3
            let context = try Context(store: store, name: "range", at: head - 3)
            let range = try #require(try context.makeStoredPathRangeController(view: name, request)).controller
            #expect(range.rows.count <= most, "\(name): \(range.rows.count) rows held")
            let memoryContext = try Context(store: store, name: "memory", at: head - 3)
            let memory = try memoryContext.makeResultsControllerAndObjects(request).controller
            #expect(range.fetchedObjects == memory.fetchedObjects)
            var rangeSets: [ChangeSet] = [], memorySets: [ChangeSet] = []
            let o1 = range.observe { if case .changes(let c) = $0 { rangeSets.append(c) } }
            let o2 = memory.observe { if case .changes(let c) = $0 { memorySets.append(c) } }
            try context.move(to: head)
            try memoryContext.move(to: head)
            #expect(rangeSets == memorySets, "\(name)")
            #expect(range.storedPathRange != nil)
            let atHead = try Context(store: store, name: "memory").makeResultsControllerAndObjects(request).controller
            #expect(range.fetchedObjects == atHead.fetchedObjects, "\(name)")
            for id in range.fetchedObjects { #expect(range.pathValues(of: id) == atHead.pathValues(of: id), "\(name)") }
            _ = (o1, o2)
        }
    }

    @Test(arguments: 0..<4)
    func randomGraphWorkloadsKeepEveryStoredPathViewEqualToTheViewInMemory(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2830 + stream)
        let first = ["byDepartment", "managed", "counted", "heights", "colleagues", "reports"]
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(first))
        var names = first
        var applied = 0
        for step in 0..<80 {
            if step == 40 {
                // A view added by a schema change is built in the change's write, and kept from then on.
                try store.updateSchema(try Self.schema(Array(Self.views.keys)), author: "t")
                names += ["projects", "pay"]
            }
            if step == 60 {
                // A write by code that keeps only the views over the entities' own attributes leaves the views over
                // key paths behind the head: they are not read, and the next write builds them again.
                try store.perform { txn in
                    for key in [StoredView.pathsMaintainedKey, StoredView.aggregatesMaintainedKey] {
                        try txn.put(store.viewsDB!, key: key, value: StoredView.maintainedValue(try store.head(in: txn) - 1, key: key))
                    }
                }
                for name in names { #expect(try StoredViewTests.storedRows(store, name) == nil, "\(name) is stale") }
                try store.append([.insert(entity: "Department", id: .int(99), values: ["name": "z"])], author: "t")
            }
            let batch = try Self.randomBatch({ try store.objects(of: $0).map(\.id) }, using: &g)
            if (try? store.append(batch, author: "w")) != nil { applied += 1 }  // a refused one writes nothing
            for name in names {
                #expect(try StoredViewTests.storedRows(store, name) == Self.inMemory(store, name), "view \(name) step \(step), \(g.rerunHint)")
                // A window read from the stored rows, with the path values of its rows alone.
                var request = try FetchRequest(try store.schema.views[name]!)
                request.limit = 2
                request.offset = 1
                let context = try Context(store: store, name: "window")
                let window = try #require(try context.makeStoredPathWindowSnapshot(view: name, request)).controller
                let memory = try context.makeResultsControllerAndObjects(request).controller  // in memory
                #expect(window.fetchedObjects == memory.fetchedObjects, "view \(name) step \(step), \(g.rerunHint)")
                #expect(window.sections.map(\.name) == memory.sections.map(\.name))
                for id in window.fetchedObjects { #expect(window.pathValues(of: id) == memory.pathValues(of: id)) }
            }
            if step % 10 == 9 {
                let problems = try store.verify().problems
                #expect(problems.isEmpty, "step \(step): \(problems), \(g.rerunHint)")
            }
        }
        #expect(applied >= 50, "most batches apply: \(applied) of 80")
    }
}
