import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @_spi(Replication) @testable import ViewLogStore

/// Migrations (DESIGN §13): `schema --migrate`'s steps as one logged schema change with the rewrite of the objects.
@Suite("Migrations")
struct MigrationTests {
    /// A store with e1 (height 180), e2 (height nil), e3 (height 165) and a stored view over height.
    static func makeMigrationStore() throws -> LogStore {
        let schema = try Schema(jsonText: employeesSchemaText.replacingOccurrences(
            of: #""where": "TRUEPREDICATE""#, with: #""where": "height > 170""#))
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180), "sectionName": .string("A")]),
                          .insert(entity: "Employee", id: .string("e2"), values: ["name": .string("Bob")])], author: "t")
        try store.append([.insert(entity: "Employee", id: .string("e3"), values: ["name": .string("Cy"), "height": .int(165)])], author: "t")
        return store
    }

    static func migration(_ text: String) throws -> Migration { try Migration(jsonText: text) }

    @Test func aRenameIsOneLoggedChangeAndOlderPositionsKeepTheirNames() throws {
        let store = try Self.makeMigrationStore()
        let t = try store.migrate(try Self.migration(#"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}]"#), author: "m")
        #expect(t.seq == 3)
        guard case .migration(let m, let new, let previous) = t.changes[0] else { Issue.record("a migration opens the transaction"); return }
        #expect(m.steps == [.renameAttribute(entity: "Employee", from: "height", to: "heightCm")])
        #expect(try previous == store.schema(at: 2))
        #expect(try new == store.schema)
        #expect(new.entities["Employee"]!.attribute(named: "heightCm")?.type == .int)
        #expect(new.views["tall"]!.predicate == "heightCm > 170", "the rename is carried into the view")
        #expect(new.views["tall"]!.sort == "sectionName, heightCm DESC, name" || new.views["tall"]!.sort?.contains("heightCm") == true)
        #expect(try store.object(employee("e1"))?["heightCm"] == .int(180))
        #expect(try store.object(employee("e1"))?["height"] == nil)
        #expect(try store.object(employee("e1"), at: 2)?["height"] == .int(180), "position 2 reads in its own schema")
        #expect(try store.object(employee("e1"), at: 2)?["heightCm"] == nil)
        #expect(try store.verify().isOK)
        // The stored view follows the new names in the same write.
        let context = try Context(store: store, name: "reader")
        let tall = try context.makeResultsController(view: "tall")
        #expect(tall.fetchedObjects == [.string("e1")])
        // Appends after it use the new name; the old one is unknown.
        try store.append([.update(entity: "Employee", id: .string("e3"), values: ["heightCm": .int(190)])], author: "t")
        #expect(throws: StoreError.self) { try store.append([.update(entity: "Employee", id: .string("e3"), values: ["height": .int(1)])], author: "t") }
        #expect(try store.verify().isOK)
    }

    @Test func replayExportAndImportCarryAMigration() throws {
        let store = try Self.makeMigrationStore()
        try store.migrate(try Self.migration("""
            [{"renameEntity": {"from": "Employee", "to": "Person"}},
             {"changeType": {"entity": "Person", "attribute": "height", "to": "string"}},
             {"makeRequired": {"entity": "Person", "attribute": "hired", "default": "2026-01-01T00:00:00Z"}},
             {"removeView": "tall"}]
            """), author: "m")
        try store.append([.update(entity: "Person", id: .string("e2"), values: ["height": .string("x")])], author: "t")
        #expect(try store.verify().isOK)
        #expect(try store.objects(of: "Person").map(\.values["height"]) == [.string("180"), .string("x"), .string("165")])
        #expect(try store.objects(of: "Employee", at: 2).count == 3)
        #expect(try store.objects(of: "Employee", at: 2)[0].values["height"] == .int(180))
        for p: UInt64 in [2, 3, 4] {
            let copy = try store.replay(into: newStorePath(), through: p)
            #expect(try copy.schema == (try store.schema(at: p)))
            #expect(try copy.verify().isOK)
            #expect(try copy.transactions() == (try store.transactions(through: p)))
        }
        // The JSON document reads back as the same transaction (export/import).
        let schema2 = try store.schema(at: 2)
        let t = try store.transactions()[2]
        let document = t.json(schema: schema2)
        #expect(try Transaction(json: JSONValue.parse(document.text), schema: schema2) == t)
    }

    @Test(arguments: [
        (#"{}"#, "a migration is a JSON array"),
        (#"[]"#, "a migration is a JSON array"),
        (#"[{"renameColumn": {}}]"#, "step 1: unknown step 'renameColumn'"),
        (#"[{"renameAttribute": {"entity": "Employee", "from": "height"}}]"#, "renameAttribute needs 'to'"),
        (#"[{"renameAttribute": {"entity": "Nope", "from": "height", "to": "h"}}]"#, "unknown entity 'Nope'"),
        (#"[{"renameAttribute": {"entity": "Employee", "from": "nope", "to": "h"}}]"#, "unknown attribute 'nope' of entity 'Employee'"),
        (#"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "name"}}]"#, "already has an attribute 'name'"),
        (#"[{"renameEntity": {"from": "Employee", "to": "Employee"}}]"#, "already has an entity 'Employee'"),
        (#"[{"changeType": {"entity": "Employee", "attribute": "height", "to": "float"}}]"#, "'to' must be one of"),
        (#"[{"changeType": {"entity": "Employee", "attribute": "active", "to": "int"}}]"#, "no conversion from bool to int"),
        (#"[{"changeType": {"entity": "Employee", "attribute": "name", "to": "int"}}]"#, "Employee \"e1\": 'name' \"Ann\" does not convert to int"),
        (#"[{"changeType": {"entity": "Employee", "attribute": "salary", "to": "int"}}, {"changeType": {"entity": "Employee", "attribute": "height", "to": "double"}}]"#, ""),
        (#"[{"makeRequired": {"entity": "Employee", "attribute": "name", "default": "x"}}]"#, "is required already"),
        (#"[{"makeRequired": {"entity": "Employee", "attribute": "height", "default": "x"}}]"#, "is not a int"),
        (#"[{"removeAttribute": {"entity": "Employee", "name": "height"}}]"#, "view 'tall'"),
        (#"[{"removeView": "nope"}]"#, "unknown view 'nope'"),
        (#"[{"setView": {"name": "v", "view": {"entity": "Employee", "where": "nope > 1"}}}]"#, "view 'v'"),
    ])
    func badStepsAreRefusedAndAppendNothing(text: String, message: String) throws {
        let store = try Self.makeMigrationStore()
        let head = try store.head
        do {
            let m = try Self.migration(text)
            try store.migrate(m, author: "m")
            #expect(message.isEmpty, "expected a refusal: \(message)")
        } catch let error as SchemaError {
            #expect(!message.isEmpty && error.description.contains(message), "\(error)")
            #expect(try store.head == head)
        } catch let error as StoreError {
            #expect(!message.isEmpty && error.description.contains(message), "\(error)")
            #expect([ErrorCode.invalidMigration, .migrationRefused].contains(error.code), "\(error.code)")
            #expect(try store.head == head, "nothing appended")
        }
        #expect(try store.verify().isOK)
    }

    @Test func conversionsFollowTheDesign() throws {
        let int = Attribute(name: "a", type: .int), double = Attribute(name: "a", type: .double)
        let string = Attribute(name: "a", type: .string), bool = Attribute(name: "a", type: .bool)
        #expect(double.converted(.int(7)) == .double(7))
        #expect(double.converted(.int(Int64(1) << 60 + 1)) == nil, "not exact")
        #expect(int.converted(.double(7)) == .int(7))
        #expect(int.converted(.double(7.5)) == nil)
        #expect(int.converted(.string("007")) == .int(7))
        #expect(int.converted(.string("7x")) == nil)
        #expect(string.converted(.double(1.5)) == .string("1.5"))
        #expect(string.converted(.bool(true)) == .string("true"))
        #expect(bool.converted(.string("yes")) == .bool(true))
        #expect(string.converted(.null) == .null)
    }

    @Test func aDoubleToIntRefusalNamesTheFirstObjectInIDOrder() throws {
        let store = try Self.makeMigrationStore()
        try store.append([.update(entity: "Employee", id: .string("e3"), values: ["salary": .double(1.5)]),
                          .update(entity: "Employee", id: .string("e2"), values: ["salary": .double(2.5)])], author: "t")
        #expect(throws: StoreError.schema(.migrationRefused("Employee \"e2\": 'salary' 2.5 does not convert to int"))) {
            try store.migrate(try Self.migration(#"[{"changeType": {"entity": "Employee", "attribute": "salary", "to": "int"}}]"#), author: "m")
        }
    }

    @Test func viewsAreSetAndRemovedWithTheirStoredRows() throws {
        let store = try Self.makeMigrationStore()
        try store.migrate(try Self.migration("""
            [{"setView": {"name": "short", "view": {"entity": "Employee", "where": "height < 170", "sort": "name"}}},
             {"removeView": "tall"}]
            """), author: "m")
        #expect(try store.schema.views.keys.sorted() == ["short"])
        #expect(try store.storedViewStatistics().map(\.name) == ["short"])
        #expect(try store.schema(at: 2).views["tall"] != nil)
        let context = try Context(store: store, name: "reader")
        #expect(try context.makeResultsController(view: "short").fetchedObjects == [.string("e3")])
        #expect(try store.verify().isOK)
    }

    @Test func aStoreWithAMigrationRecordsTheFeature() throws {
        let store = try Self.makeMigrationStore()
        try store.migrate(try Self.migration(#"[{"removeView": "tall"}]"#), author: "m")
        let features = try store.perform(read: true) { txn in try store.recordedFeatures(in: txn, format: try store.format(in: txn)) }
        #expect(features.contains("migrations"))
    }

    struct Person: EntityType {
        static let entityName = "Employee"
        var id: String
        var name: String
        var height: Int?
    }

    @Test func aTypedModelThatNoLongerMatchesIsAClearError() throws {
        let store = try Self.makeMigrationStore()
        let context = try Context(store: store, name: "typed")
        #expect(try context.object(Person.self, id: "e1")?.height == 180)
        try store.migrate(try Self.migration(#"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}]"#), author: "m")
        try context.refresh()
        do {
            _ = try context.object(Person.self, id: "e1")
            Issue.record("expected an error naming the attribute")
        } catch {
            #expect("\(error)".contains("height"), "\(error)")
        }
    }

    /// A replica commits the migration's entry as the stream carries it (its bytes): the same log and objects.
    @Test func aReplicaCommitsAMigrationAsLogged() throws {
        let store = try Self.makeMigrationStore()
        let replica = try LogStore.create(at: newStorePath(), schema: try store.schema(at: 0), options: StoreOptions(durable: false))
        try store.migrate(try Self.migration(#"[{"renameEntity": {"from": "Employee", "to": "Person"}}, {"changeType": {"entity": "Person", "attribute": "height", "to": "double"}}, {"removeView": "tall"}]"#), author: "m")
        for seq in 1...(try store.head) {
            let bytes = try #require(try store.encodedTransaction(at: seq))
            try replica.commitEncoded(bytes, seq: seq)
        }
        #expect(try replica.transactions() == (try store.transactions()))
        #expect(try replica.schema == (try store.schema))
        #expect(try replica.objects(of: "Person").map(\.values) == (try store.objects(of: "Person").map(\.values)))
        let report = try replica.verify()
        #expect(report.isOK, "\(report)")
        // Bytes that do not replay as logged are refused: the migration's rewrite with an object changed.
        let other = try LogStore.create(at: newStorePath(), schema: try store.schema(at: 0), options: StoreOptions(durable: false))
        for seq in 1...2 as ClosedRange<UInt64> {
            let bytes = try #require(try store.encodedTransaction(at: seq))
            try other.commitEncoded(bytes, seq: seq)
        }
        try other.append([.delete(entity: "Employee", id: .string("e3"))], author: "t")
        let migration = try #require(try store.encodedTransaction(at: 3))
        #expect(throws: StoreError.self) { try other.commitEncoded(migration, seq: 4) }
    }

    /// A context with controllers is carried over a migration (a rename alone is no change: no batch, the request in
    /// the new names); one with unsaved changes, which name the schema before it, is refused, nothing moved.
    @Test func aContextIsCarriedOverAMigrationUnlessItHasUnsavedChanges() throws {
        let store = try Self.makeMigrationStore()
        let context = try Context(store: store, name: "ui")
        let tall = try context.makeResultsController(view: "tall")
        var events: [ViewEvent] = []
        let observation = tall.observe { events.append($0) }
        defer { observation.cancel() }
        let staged = try Context(store: store, name: "staged")
        try staged.update("Employee", id: .string("e1"), values: ["name": .string("Ann")])
        try store.migrate(try Self.migration(#"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}]"#), author: "m")
        try context.refresh()
        #expect(context.position == 3 && tall.fetchedObjects == [.string("e1")] && events.isEmpty, "\(events)")
        #expect(tall.fetchRequest.predicate.expression.description.contains("heightCm"))
        #expect(throws: StoreError.acrossMigration(position: 2, seq: 3)) { try staged.refresh() }
        #expect(staged.position == 2 && staged.hasChanges)
    }
}
