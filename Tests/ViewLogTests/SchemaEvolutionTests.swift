import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite("Schema evolution and replay")
struct SchemaEvolutionTests {
    static let v2Text = """
    {"entities": {"Employee": {"id": "string", "attributes": {
      "name": {"type": "string"}, "height": {"type": "int", "optional": true},
      "sectionName": {"type": "string", "default": ""}, "salary": {"type": "double", "default": 0},
      "active": {"type": "bool", "default": true}, "hired": {"type": "date", "optional": true},
      "nickname": {"type": "string", "optional": true}, "level": {"type": "int", "default": 1}}},
      "Team": {"id": "int", "attributes": {"title": {"type": "string"}}}},
     "views": {"tall": {"entity": "Employee", "where": "TRUEPREDICATE", "sort": "sectionName, height desc, name", "section": "sectionName"},
               "byLevel": {"entity": "Employee", "where": "level >= 2", "sort": "level desc, name"}}}
    """

    @Test func anAdditiveChangeIsALogEntryAndEveryPositionKeepsItsSchema() throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "t")
        try store.append([.insert(entity: "Employee", id: .string("e2"), values: ["name": .string("Bob")])], author: "t")
        let v2 = try Schema(jsonText: Self.v2Text)
        let change = try #require(try store.updateSchema(v2, author: "migrator"))
        #expect(change.seq == 3)
        guard case .schema(let new, let previous) = change.changes[0] else { Issue.record("expected a schema change first"); return }
        let original = try employeesSchema()
        #expect(new == v2 && previous == original)
        #expect(change.changes.count == 3, "one update per existing Employee gives it the new default level")
        #expect(try store.object(employee("e1"))?["level"] == .int(1))
        #expect(try store.schema(at: 2) == (try employeesSchema()))
        #expect(try store.schema(at: 3) == v2)
        #expect(try store.updateSchema(v2, author: "again") == nil, "an unchanged schema appends nothing")

        // The new attribute and entity work after the change, not before.
        try store.append([.update(entity: "Employee", id: .string("e2"), values: ["level": .int(3), "nickname": .string("B")]),
                          .insert(entity: "Team", id: .int(1), values: ["title": .string("core")])], author: "t")
        #expect(try store.verify().isOK)
        let context = try Context(store: store, name: "reader")
        let byLevel = try context.makeResultsController(view: "byLevel")
        #expect(byLevel.fetchedObjects == [.string("e2")])
        try context.move(to: 2)
        #expect(try context.schema.views["byLevel"] == nil)
        #expect(try store.objects(of: "Employee", at: 2).count == 2)

        // Replaying to positions before and after the change gives the schema and objects of that position.
        for p: UInt64 in [2, 3, 4] {
            let copy = try store.replay(into: newStorePath(), through: p)
            #expect(try copy.head == p)
            #expect(try copy.schema == (try store.schema(at: p)))
            #expect(try copy.verify().isOK)
            let here = try store.objects(of: "Employee", at: p)
            let there = try copy.objects(of: "Employee")
            #expect(here.map(\.id) == there.map(\.id))
            for (h, t) in zip(here, there) { #expect(h.values == t.values, "position \(p) \(h.id)") }
            #expect(try copy.transactions() == (try store.transactions(through: p)), "the same log: seqs, times, authors, changes")
        }
    }

    @Test(arguments: [
        (#""height": {"type": "int", "optional": true},"#, #""height": {"type": "double", "optional": true},"#, "attribute 'height' of entity 'Employee' changed"),
        (#""salary": {"type": "double", "default": 0},"#, "", "attribute 'salary' of entity 'Employee' was removed"),
        (#""nickname": {"type": "string", "optional": true},"#, #""nickname": {"type": "string", "optional": true}, "rank": {"type": "int"},"#, "new attribute 'rank' of entity 'Employee' is required without a default"),
        (#""nickname": {"type": "string", "optional": true},"#, #""nickname": {"type": "string"},"#, "attribute 'nickname' of entity 'Employee' changed"),
        (#""where": "TRUEPREDICATE""#, #""where": "height > 1""#, "view 'tall' changed"),
    ])
    func breakingChangesAreRefusedByName(from: String, to: String, message: String) throws {
        let store = try makeStore()
        try store.updateSchema(try Schema(jsonText: Self.v2Text), author: "t")
        let broken = try Schema(jsonText: Self.v2Text.replacingOccurrences(of: from, with: to))
        do {
            try store.updateSchema(broken, author: "t")
            Issue.record("expected a refusal: \(message)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
        #expect(try store.head == 1)
    }

    @Test func exportedTransactionsImportIntoTheSameLog() throws {
        let store = try makeStore()
        var rng = SeededGenerator(stream: 77)
        var live: [String] = []
        for step in 0..<200 {
            let id: String
            let request: ChangeRequest
            if live.isEmpty || Int.random(in: 0..<3, using: &rng) == 0 {
                id = "e\(step)"
                live.append(id)
                request = .insert(entity: "Employee", id: .string(id), values: ["name": .string("N\(step)"), "height": .int(Int64(step % 50 + 150))])
            } else if Bool.random(using: &rng) {
                id = live.randomElement(using: &rng)!
                request = .update(entity: "Employee", id: .string(id), values: ["height": .int(Int64.random(in: 140...210, using: &rng))])
            } else {
                id = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                request = .delete(entity: "Employee", id: .string(id))
            }
            try store.append([request], author: step % 2 == 0 ? "a" : "b")
            if step == 120 { try store.updateSchema(try Schema(jsonText: Self.v2Text), author: "migrator") }
        }
        // Export as JSON documents and import them into a new store with the original schema.
        var schema = try store.schema(at: 0)
        var lines: [String] = []
        for t in try store.transactions() {
            for case .schema(let s, _) in t.changes { schema = s }
            lines.append(t.json(schema: schema).text)
        }
        let copy = try LogStore.create(at: newStorePath(), schema: try store.schema(at: 0), options: StoreOptions(durable: false))
        schema = try copy.schema
        var imported: [Transaction] = []
        for line in lines {
            let t = try Transaction(json: try JSONValue.parse(line), schema: schema)
            for case .schema(let s, _) in t.changes { schema = s }
            imported.append(t)
        }
        try copy.appendVerbatim(imported)
        #expect(try copy.transactions() == (try store.transactions()), "seed \(rng.seed)")
        #expect(try copy.verify().isOK)
        #expect(try copy.objects(of: "Employee").map(\.values) == (try store.objects(of: "Employee")).map(\.values))

        // Importing the same log again does not fit the store's state: refused, nothing appended.
        let head = try copy.head
        #expect(throws: StoreError.self) { try copy.appendVerbatim(imported) }
        #expect(try copy.head == head)
    }
}
