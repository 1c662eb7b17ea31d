import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog

/// Stored views over to-one key paths (DESIGN §10, §11): a write moves the rows of the objects it touches and of every
/// object whose path reaches one it touches (through the relationships index), so that after every write — related
/// objects renamed, relationships re-pointed, deletes with their nullify and cascade consequences, a schema change
/// adding such a view — each stored view's rows are exactly the view built in memory from the objects by a context.
@Suite("Stored views over key paths")
struct StoredPathViewTests {
    static let views: [String: String] = [
        "byDepartment": #"{"entity": "Employee", "sort": "department.name, name", "section": "department.name"}"#,
        "managed": #"{"entity": "Employee", "where": "department.floor > 1 OR manager.department.name == 'd1'", "sort": "manager.name desc"}"#,
        "projects": #"{"entity": "Project", "where": "owner.name != 'd0'", "sort": "reviewer.department.floor", "section": "owner.floor"}"#,
        "counted": #"{"entity": "Department", "sort": "employees.@count"}"#,
    ]

    static func schema(_ names: [String]) throws -> Schema {
        let views = names.sorted().map { "\"\($0)\": \(Self.views[$0]!)" }.joined(separator: ", ")
        return try Schema(jsonText: String(graphSchemaText.dropLast()) + ", \"views\": {\(views)}}")
    }

    /// The ids of the view `name` built in memory from the objects at the head.
    static func inMemory(_ store: LogStore, _ name: String) throws -> [ObjectID] {
        let context = try Context(store: store, name: "memory")
        let controller = try context.makeResultsController(FetchRequest(try store.schema.views[name]!))
        return controller.fetchedObjects
    }

    @Test func viewsOverToOnePathsAreStoredAndAggregatesAreNot() throws {
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(Array(Self.views.keys)))
        try store.append([.insert(entity: "Department", id: .int(1), values: ["name": "b", "floor": .int(2)]),
                          .insert(entity: "Department", id: .int(2), values: ["name": "a"]),
                          .insert(entity: "Employee", id: "e1", values: ["name": "x", "department": .int(1)]),
                          .insert(entity: "Employee", id: "e2", values: ["name": "y", "department": .int(2)])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "byDepartment") == ["e2", "e1"])
        #expect(try StoredViewTests.storedRows(store, "counted") == nil, "an aggregate is not stored")
        // The rename of department 2 moves e2's row past e1's: one write, found through the index.
        try store.append([.update(entity: "Department", id: .int(2), values: ["name": "c"])], author: "t")
        #expect(try StoredViewTests.storedRows(store, "byDepartment") == ["e1", "e2"])
        #expect(try store.storedViewStatistics().first { $0.name == "byDepartment" }?.rows == 2)
        #expect(try store.verify().isOK)
    }

    @Test(arguments: 0..<4)
    func randomGraphWorkloadsKeepEveryStoredPathViewEqualToTheViewInMemory(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2830 + stream)
        let store = try LogStore.create(at: TestScratch.newPath(), schema: try Self.schema(["byDepartment", "managed", "counted"]))
        let ids = (0..<6).map { "e\($0)" }
        func value<T>(_ xs: [T]) -> T { xs.randomElement(using: &g)! }
        var names = ["byDepartment", "managed"]
        for step in 0..<80 {
            if step == 40 {
                // A view added by a schema change is built in the change's write, and kept from then on.
                try store.updateSchema(try Self.schema(Array(Self.views.keys)), author: "t")
                names.append("projects")
            }
            if step == 60 {
                // A write by code that keeps only the views over the entities' own attributes leaves the views over
                // key paths behind the head: they are not read, and the next write builds them again.
                try store.perform { txn in
                    let key = StoredView.pathsMaintainedKey
                    try txn.put(store.viewsDB!, key: key, value: StoredView.maintainedValue(try store.head(in: txn) - 1, key: key))
                }
                #expect(try StoredViewTests.storedRows(store, "byDepartment") == nil)
                #expect(try StoredViewTests.storedRows(store, "projects") == nil)
                #expect(try StoredViewTests.storedRows(store, "managed") == nil)
                try store.append([.insert(entity: "Department", id: .int(99), values: ["name": "z"])], author: "t")
            }
            var batch: [ChangeRequest] = []
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                switch Int.random(in: 0..<7, using: &g) {
                case 0: batch.append(.insert(entity: "Department", id: .int(value([1, 2, 3])), values: ["name": .string("d\(value([0, 1, 2]))"), "floor": value([.null, .int(1), .int(2)])]))
                case 1: batch.append(.update(entity: "Department", id: .int(value([1, 2, 3])), values: Bool.random(using: &g) ? ["name": .string("d\(value([0, 1, 2]))")] : ["floor": value([.null, .int(1), .int(3)])]))
                case 2: batch.append(.insert(entity: "Employee", id: .string(value(ids)), values: ["name": .string("n\(value([0, 1, 2]))"), "department": value([.null, .int(1), .int(2), .int(3)]), "manager": value([.null] + ids.map { Value.string($0) })]))
                case 3: batch.append(.update(entity: "Employee", id: .string(value(ids)), values: value([["department": value([.null, .int(1), .int(2)])], ["manager": value([.null, .string("e0"), .string("e1")])], ["name": .string("n\(value([0, 1, 2]))")]])))
                case 4: batch.append(.insert(entity: "Project", id: .int(value([1, 2])), values: ["title": .string("p"), "owner": .int(value([1, 2, 3])), "reviewer": value([.null, .string("e0"), .string("e2")])]))
                case 5: batch.append(.update(entity: "Project", id: .int(value([1, 2])), values: ["reviewer": value([.null, .string("e1"), .string("e3")])]))
                default: batch.append(value([.delete(entity: "Department", id: .int(value([1, 2, 3]))), .delete(entity: "Employee", id: .string(value(ids)))]))
                }
            }
            _ = try? store.append(batch, author: "w")  // some are refused (a missing target, a deny): nothing written
            for name in names {
                #expect(try StoredViewTests.storedRows(store, name) == Self.inMemory(store, name), "view \(name) step \(step), \(g.rerunHint)")
                // A window read from the stored rows, with the path values of its rows alone.
                var request = try FetchRequest(try store.schema.views[name]!)
                request.limit = 2
                request.offset = 1
                let context = try Context(store: store, name: "window")
                let window = try #require(try context.makeStoredPathWindowSnapshot(view: name, request)).controller
                let memory = try context.makeResultsController(request)
                #expect(window.fetchedObjects == memory.fetchedObjects, "view \(name) step \(step), \(g.rerunHint)")
                #expect(window.sections.map(\.name) == memory.sections.map(\.name))
                for id in window.fetchedObjects { #expect(window.pathValues(of: id) == memory.pathValues(of: id)) }
            }
            if step % 10 == 9 {
                let problems = try store.verify().problems
                #expect(problems.isEmpty, "step \(step): \(problems), \(g.rerunHint)")
            }
        }
    }
}
