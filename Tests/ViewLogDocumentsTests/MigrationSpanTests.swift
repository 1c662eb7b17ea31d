import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogDocuments

/// What spans a migration (DESIGN §13): `diff` and `watch` carry names through; a watch of a removed view ends.
@Suite struct MigrationSpanTests {
    static let schema = """
    {"entities": {"Item": {"id": "string", "attributes": {"code": {"type": "string"}, "name": {"type": "string"}}}},
     "views": {"byCode": {"entity": "Item", "sort": "code, name"}, "byName": {"entity": "Item", "sort": "name"}}}
    """

    /// i1 "007", i2 "10", i3 "2": as strings "007" < "10" < "2"; as ints 2 < 7 < 10.
    static func makeStore(_ path: String) throws -> LogStore {
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: schema), options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Item", id: .string("i1"), values: ["code": .string("007"), "name": .string("a")]),
                          .insert(entity: "Item", id: .string("i2"), values: ["code": .string("10"), "name": .string("b")]),
                          .insert(entity: "Item", id: .string("i3"), values: ["code": .string("2"), "name": .string("c")])], author: "t")
        return store
    }

    /// ``makeStore(_:)`` with the migration `json` logged at 2.
    static func makeStore(_ path: String, migratedBy json: String) throws -> LogStore {
        let store = try makeStore(path)
        try store.migrate(try Migration(jsonText: json), author: "m")
        return store
    }

    @Test func aRenameAloneIsNoChangeEitherWay() throws {
        let path = TestScratch.newPath("migration-span")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Self.makeStore(path)
        try store.migrate(try Migration(jsonText: #"[{"renameAttribute": {"entity": "Item", "from": "code", "to": "sku"}}]"#), author: "m")
        #expect(try store.schema.views["byCode"]?.sort?.hasPrefix("sku") == true)
        for (from, to) in [(1, 2), (2, 1)] as [(UInt64, UInt64)] {
            let changes = try MaterializedView.diff(store: store, selection: ViewSelection(view: "byCode"), from: from, to: to).changes
            #expect(changes.isEmpty, "\(from) → \(to): \(changes)")
        }
    }

    @Test func aConvertedValueIsAnUpdateOrAMoveUnderTheNewName() throws {
        let path = TestScratch.newPath("migration-span")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Self.makeStore(path, migratedBy: """
            [{"renameAttribute": {"entity": "Item", "from": "code", "to": "sku"}},
             {"changeType": {"entity": "Item", "attribute": "sku", "to": "int"}}]
            """)
        // byName: every row stays in place, its value changed: updates naming the new attribute.
        let byName = try MaterializedView.diff(store: store, selection: ViewSelection(view: "byName"), from: 1, to: 2).changes
        #expect(byName.rowChanges.map(\.kind) == [.update, .update, .update])
        #expect(byName.rowChanges.allSatisfy { $0.changed == ["sku"] })
        // byCode: the order changes from "007", "10", "2" to 2, 7, 10: moves, and the change set applied to the view at 1
        // gives the view at 2.
        let selection = ViewSelection(view: "byCode")
        let (view, changes, _) = try MaterializedView.diff(store: store, selection: selection, from: 1, to: 2)
        #expect(changes.rowChanges.contains { $0.kind == .move && $0.changed == ["sku"] })
        var rows = try MaterializedView(store: store, selection: selection, at: 1).controller.fetchedObjects
        let removed = Set(changes.rowChanges.filter { $0.kind == .move || $0.kind == .delete }.map(\.id))
        rows.removeAll { removed.contains($0) }
        for change in changes.rowChanges.filter({ $0.kind == .move || $0.kind == .insert }).sorted(by: { $0.to![1] < $1.to![1] }) {
            rows.insert(change.id, at: change.to![1])
        }
        #expect(rows == view.controller.fetchedObjects)
        #expect(rows == [.string("i3"), .string("i1"), .string("i2")])
        // Backward: the same rows move back, named as they were.
        let back = try MaterializedView.diff(store: store, selection: selection, from: 2, to: 1).changes
        #expect(back.rowChanges.contains { $0.kind == .move && $0.changed == ["code"] })
    }

    /// `diff` of a named view across a migration that sets it, either way: the view at its end is the view there (its
    /// definition there), and the change set is that definition's over the span; across its removal it is unknown.
    @Test func aDiffAcrossASetViewEndsAtTheViewsDefinitionThere() throws {
        let path = TestScratch.newPath("migration-span")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Self.makeStore(path, migratedBy: """
            [{"renameAttribute": {"entity": "Item", "from": "code", "to": "sku"}},
             {"setView": {"name": "byName", "view": {"entity": "Item", "where": "name != 'a'", "sort": "sku desc"}}}]
            """)
        try store.append([.update(entity: "Item", id: .string("i2"), values: ["sku": .string("3")])], author: "t")
        let selection = ViewSelection(view: "byName")
        for (from, to) in [(1, 3), (3, 1)] as [(UInt64, UInt64)] {
            let (view, changes, _) = try MaterializedView.diff(store: store, selection: selection, from: from, to: to)
            #expect(try view.jsonText() == MaterializedView(store: store, selection: selection, at: to).jsonText(), "\(from) → \(to)")
            // i2's code "10" → "3": forwards it moves before i3 under `sku desc`; backwards, under `name`, an update.
            #expect(changes.rowChanges.map(\.id) == [.string("i2")], "\(from) → \(to): \(changes)")
            #expect(changes.rowChanges.map(\.kind) == [to == 3 ? .move : .update], "\(from) → \(to): \(changes)")
        }
        try store.migrate(try Migration(jsonText: #"[{"removeView": "byName"}]"#), author: "m")
        #expect(throws: RequestError.self) { try MaterializedView.diff(store: store, selection: selection, from: 1, to: 4) }
    }

    @Test func aFollowIsCarriedAcrossAMigrationAndEndsWhenItsViewIsRemoved() throws {
        let path = TestScratch.newPath("migration-span")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Self.makeStore(path)
        let byName = try ViewFollower(store: store, selection: ViewSelection(view: "byName"), at: 1)
        let byCode = try ViewFollower(store: store, selection: ViewSelection(view: "byCode"), at: 1)
        try store.migrate(try Migration(jsonText: #"[{"removeView": "byCode"}]"#), author: "m")
        #expect(try byName.step(to: 2).map(\.changes) == nil, "another view's removal is no change")
        #expect(throws: StoreError.viewRemoved("byCode", seq: 2)) { try byCode.step(to: 2) }
        #expect(StoreError.viewRemoved("byCode", seq: 2).code.rawValue == "view.removed")
    }
}
