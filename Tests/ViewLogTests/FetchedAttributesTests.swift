import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A context's results controller decodes from the store only the attributes its view reads (predicate, section,
/// sort): the view is the same as one built from whole objects.
@Suite("Fetched attributes")
struct FetchedAttributesTests {
    /// Random predicates evaluate the same on an object cut down to the attributes the predicate names.
    @Test func aPredicateReadsOnlyTheAttributesItNames() throws {
        var gen = PredicateDifferentialTests.Gen(rng: SeededGenerator(stream: 93))
        let objects = (0..<25).map { _ in gen.object() }
        for round in 0..<300 {
            let e = gen.expression(depth: 3)
            let compiled = try ViewPredicate(e).compiled(for: Fixture.employee)
            let names = compiled.attributeNames
            for (i, object) in objects.enumerated() {
                let cut = object.filter { names.contains($0.key) }
                #expect(compiled.evaluate(cut, id: .string("e\(i)")) == compiled.evaluate(object, id: .string("e\(i)")),
                        "round \(round): \(e) reads more than \(names.sorted()), \(gen.rng.rerunHint)")
            }
        }
    }

    @Test func theAttributesReadAreThePredicatesTheSectionAndTheSortKeys() throws {
        let request = FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170 AND name BEGINSWITH[c] 'a'"),
                                   sortDescriptors: try ViewSortDescriptor.parse("salary desc, id"), sectionKey: "sectionName")
        #expect(try ViewPlan(request, for: Fixture.employee).attributesRead(of: Fixture.employee).map(\.name)
            == ["height", "name", "salary", "sectionName"])
        #expect(try ViewPlan(FetchRequest(entity: "Employee"), for: Fixture.employee).attributesRead(of: Fixture.employee).isEmpty)
        #expect(throws: QueryError.self) {
            try ViewPlan(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "nope")]), for: Fixture.employee)
        }
    }

    /// Random stores and requests: the controller a context makes (cut-down objects) shows exactly the rows and
    /// sections of a controller built from every object's whole values, and so does its refetch with another request.
    @Test func aContextsControllerEqualsOneBuiltFromWholeObjects() throws {
        let scratch = TestScratch.newPath("fetched-attributes")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let schema = Schema(entities: ["Employee": Fixture.employee])
        let store = try LogStore.create(at: scratch, schema: schema)
        var gen = PredicateDifferentialTests.Gen(rng: SeededGenerator(stream: 94))
        try store.append((0..<60).map { i in
            ChangeRequest.insert(entity: "Employee", id: .string("e\(i)"), values: gen.object())
        }, author: "t")
        let context = try Context(store: store, name: "c")
        let keys = ["name", "nick", "height", "salary", "active", "hired", "sectionName", "id"]
        func randomRequest() throws -> FetchRequest {
            let sort = (0..<Int.random(in: 0...2, using: &gen.rng)).map { _ in
                ViewSortDescriptor(key: gen.pick(keys), ascending: gen.chance(50))
            }
            let section = gen.chance(40) ? gen.pick(["sectionName", "active", "height"]) : nil
            return FetchRequest(entity: "Employee", predicate: try ViewPredicate(gen.expression(depth: 2)),
                                sortDescriptors: sort, sectionKey: section)
        }
        func whole(_ request: FetchRequest) throws -> ViewSnapshot {
            try ResultsController(fetchRequest: request, entity: Fixture.employee,
                                  objects: try store.objects(of: "Employee").lazy.map { ($0.id, $0.values) },
                                  position: try store.head).snapshot
        }
        for round in 0..<60 {
            let request = try randomRequest()
            let controller = try context.makeResultsController(request)
            #expect(controller.snapshot == (try whole(request)), "round \(round), \(request), \(gen.rng.rerunHint)")
            let other = try randomRequest()
            try controller.performFetch(other)
            #expect(controller.snapshot == (try whole(other)), "round \(round), refetch \(other), \(gen.rng.rerunHint)")
        }
        // Not streamed from the rows: a context with unsaved changes of the entity, and one behind the head.
        let request = FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 0"),
                                   sortDescriptors: [ViewSortDescriptor(key: "height")])
        let staged = try Context(store: store, name: "staged")
        try staged.update("Employee", id: "e1", values: ["height": 5])
        try staged.stage(.delete(entity: "Employee", id: "e2"))
        let stagedView = try staged.makeResultsController(request)
        let stagedObjects = try staged.objects(of: "Employee")
        #expect(stagedView.snapshot == (try ResultsController(fetchRequest: request, entity: Fixture.employee,
                                                               objects: stagedObjects.lazy.map { ($0.id, $0.values) }).snapshot))
        try store.append([.update(entity: "Employee", id: "e3", values: ["height": 7])], author: "t")
        let behind = try Context(store: store, name: "behind")
        try behind.move(to: 1)
        let oldView = try behind.makeResultsController(request)
        #expect(oldView.snapshot == (try ResultsController(fetchRequest: request, entity: Fixture.employee,
                                                            objects: try store.objects(of: "Employee", at: 1).lazy.map { ($0.id, $0.values) }).snapshot))
        #expect(oldView.snapshot != (try whole(request)), "the head differs from position 1")
    }

    /// A fetch that keeps its rows' values (what `viewlog query` prints from: stored bytes at the head, folded values
    /// behind it) makes the same view as `makeResultsController`, keeps exactly its rows, and each row's values and
    /// JSON members are those of the object read from the store at that position.
    @Test func keptRowsAreTheViewsRowsWithTheirStoredValues() throws {
        var g = SeededGenerator(stream: 95)
        for round in 0..<12 {
            let scratch = TestScratch.newPath("kept-rows")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let schema = RandomSchemas.schema(maxEntities: 1, maxAttributes: 8, using: &g)
            let entity = schema.entities.values.first!
            let store = try LogStore.create(at: scratch, schema: schema, options: StoreOptions(durable: false))
            var requests: [ChangeRequest] = [], used = Set<ObjectID>()
            for _ in 0..<Int.random(in: 1...80, using: &g) {
                let id = RandomValues.id(for: entity, using: &g)
                guard used.insert(id).inserted else { continue }
                // Some attributes left out: optional ones read as null, defaulted ones are filled by the store.
                var values = RandomValues.values(for: entity, jsonSafe: true, using: &g)
                for a in entity.attributes where (a.isOptional || a.defaultValue != nil) && Bool.random(using: &g) {
                    values[a.name] = nil
                }
                requests.append(.insert(entity: entity.name, id: id, values: values))
            }
            try store.append(requests, author: "t")
            // A later write, so that position 1 is behind the head: there the rows are kept from the fold.
            let ids = requests.map(\.key.id).sorted()
            try store.append([.delete(entity: entity.name, id: ids[0])], author: "t")
            // Every object; then half of them, by a predicate on the id; at the head and at position 1.
            let middle = ids[ids.count / 2]
            let literal = if case .string(let s) = middle { "'\(s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))'" } else { "\(middle)" }
            for (predicate, position) in [("TRUEPREDICATE", 2), ("id < \(literal)", 2), ("TRUEPREDICATE", 1), ("id < \(literal)", 1)] {
                let context = try Context(store: store, name: "c")
                try context.move(to: UInt64(position))
                let request = FetchRequest(entity: entity.name, predicate: try ViewPredicate(predicate))
                let (controller, rows) = try #require(try context.makeResultsControllerKeepingRows(request))
                #expect(controller.snapshot == (try context.makeResultsController(request)).snapshot, "round \(round), \(predicate) at \(position)")
                #expect(rows.count == controller.numberOfRows, "round \(round), \(predicate), \(g.rerunHint)")
                // Written as the CLI writes them, prefetching ahead (a hint: no result changes), also among ids that
                // are not kept (the deleted one), past the end and at every place.
                let fetched = controller.fetchedObjects
                let withAbsent = [ids[0]] + fetched + [ids[0]]
                for (k, id) in fetched.enumerated() {
                    rows.prefetch(after: k, in: fetched)
                    rows.prefetch(after: k, in: withAbsent)
                    let stored = try #require(try store.object(ObjectKey(entity: entity.name, id: id), at: UInt64(position)))
                    #expect(try rows.values(of: id) == stored, "round \(round), \(id), \(g.rerunHint)")
                    var got = JSONWriter(), want = JSONWriter()
                    #expect(try rows.writeJSONMembers(of: id, into: &got))
                    for (i, a) in entity.attributes.enumerated() {
                        if i > 0 { want.raw(", ") }
                        want.string(a.name)
                        want.raw(": ")
                        want.value(stored[a.name] ?? .null)
                    }
                    #expect(got.bytes == want.bytes, "round \(round), \(id), \(g.rerunHint)")
                }
            }
            // Not kept: a context with an unsaved change of the entity.
            let staged = try Context(store: store, name: "staged")
            try staged.stage(.delete(entity: entity.name, id: ids[1 % ids.count]))
            #expect(try staged.makeResultsControllerKeepingRows(FetchRequest(entity: entity.name)) == nil)
        }
    }
}
