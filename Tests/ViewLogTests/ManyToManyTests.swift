import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore

/// A store of items and tags (``tagsSchemaText``) holding tags 1, 2 and 3.
func tagsStore() throws -> LogStore {
    let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: tagsSchemaText), options: StoreOptions(durable: false))
    try store.append((1...3).map { .insert(entity: "Tag", id: .int($0), values: ["name": .string("t\($0)")]) }, author: "t")
    return store
}

/// Appends the JSON lines `text` as `AppendInput` reads them, one transaction per entry.
func appendLines(_ text: String, to store: LogStore) throws {
    for entry in try AppendInput.parse(text, schema: try store.schema) { try store.append(entry.requests, author: "t") }
}

func item(_ id: String) -> ObjectKey { ObjectKey(entity: "Item", id: .string(id)) }

@Suite("Many-to-many: values and input")
struct ManyToManyValueTests {
    @Test func aSetIsGivenAsAJSONArrayStoredInIDOrderAndEmptyWhenNotGiven() throws {
        let store = try tagsStore()
        try appendLines("""
            {"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [3, 1]}}
            {"insert": "Item", "id": "i2", "values": {"name": "Cup"}}
            """, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(3)]))
        #expect(try store.object(item("i1"))?["favorites"] == .set([]), "a set not given is empty, never null")
        #expect(try store.object(item("i2"))?["tags"] == .set([]))
        let values = try #require(try store.object(item("i1")))
        #expect(try store.schema.entity(named: "Item").json(values).text
                == #"{"favorites": [], "name": "Pen", "price": null, "tags": [1, 3]}"#)
        #expect(try store.verify().isOK)
    }

    @Test func anUpdateReplacesTheSetAndOlderPositionsKeepTheirs() throws {
        let store = try tagsStore()
        try appendLines("""
            {"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1]}}
            {"update": "Item", "id": "i1", "values": {"tags": [2, 3]}}
            """, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(2), .int(3)]))
        #expect(try store.object(item("i1"), at: 2)?["tags"] == .set([.int(1)]))
        #expect(try store.verify().isOK)
    }

    @Test func theShorthandReplacesASetWithAJSONLiteral() throws {
        let schema = try Schema(jsonText: tagsSchemaText)
        let request = try AppendInput.shorthand(op: "update", entity: "Item", id: "i1", assignments: ["tags:=[3,1]"], schema: schema)
        #expect(request == .update(entity: "Item", id: .string("i1"), values: ["tags": .set([.int(1), .int(3)])]))
        #expect { try AppendInput.shorthand(op: "update", entity: "Item", id: "i1", assignments: ["tags=1"], schema: schema) } throws: {
            "\($0)".contains("relationship 'tags' takes an id of Tag (an integer), got '1', not a set of ids (give a JSON array: tags:=[…])")
        }
    }

    @Test(arguments: [
        (#"{"insert": "Item", "id": "i9", "values": {"name": "Pen", "tags": [1, 2, 1]}}"#,
         "relationship 'tags' is given 1 twice (a set holds each member once)"),
        (#"{"insert": "Item", "id": "i9", "values": {"name": "Pen", "tags": [1, "2"]}}"#,
         "relationship 'tags' takes an id of Tag (an integer), got a string among its members"),
        (#"{"insert": "Item", "id": "i9", "values": {"name": "Pen", "tags": null}}"#,
         "relationship 'tags' takes an id of Tag (an integer), got null, not a set of ids (the relationship is to-many)"),
        (#"{"insert": "Item", "id": "i9", "values": {"name": "Pen", "tags": 1}}"#,
         "relationship 'tags' takes an id of Tag (an integer), got an integer, not an array of ids (the relationship is to-many)"),
        (#"{"update": "Item", "id": "i1", "values": {"tags": [2, 2]}}"#,
         "relationship 'tags' is given 2 twice (a set holds each member once)"),
    ])
    func badSetsAreRefusedNamingTheLineAndRelationshipAndNothingIsAppended(line: String, message: String) throws {
        let store = try tagsStore()
        try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen"}}"#, to: store)
        let head = try store.head
        #expect { try appendLines(line, to: store) } throws: { error in
            "\(error)".contains("line 1") && "\(error)".contains(message)
        }
        #expect(try store.head == head)
    }

    @Test func theAPIRefusesASetOfAnotherIDTypeOrForAnAttributeThatIsNotToMany() throws {
        let store = try tagsStore()
        #expect {
            try store.append([.insert(entity: "Item", id: .string("i1"), values: ["name": .string("Pen"), "tags": .set([.string("a")])])], author: "t")
        } throws: { "\($0)".contains("relationship 'tags' takes an id of Tag (an integer), got a string among its members") }
        #expect {
            try store.append([.insert(entity: "Item", id: .string("i1"), values: ["name": .set([])])], author: "t")
        } throws: { "\($0)".contains("attribute 'name' is string, got a set") }
        #expect(try store.head == 1)
    }

    @Test func aSetEncodesAsTag7ThenItsMembersAndTheDecoderRefusesEveryOtherForm() throws {
        var w = ByteWriter(capacity: 32)
        w.value(.set([.int(1), .int(3)]))
        let bytes = w.finish()
        #expect(bytes == [7, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0])
        func decode(_ b: [UInt8]) throws -> Value {
            try b.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                return try r.value()
            }
        }
        #expect(try decode(bytes) == .set([.int(1), .int(3)]))
        #expect(try decode([7, 0]) == .set([]))
        let unsorted: [UInt8] = [7, 2, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect { try decode(unsorted) } throws: { "\($0)".contains("members not in strictly increasing order") }
        let repeated: [UInt8] = [7, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect { try decode(repeated) } throws: { "\($0)".contains("members not in strictly increasing order") }
        #expect { try decode([7, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0x61]) } throws: { "\($0)".contains("ids of two types in one set") }
        #expect { try decode([7, 5, 2, 0]) } throws: { "\($0)".contains("set member count") }
        #expect { try decode([7, 1, 9, 0]) } throws: { "\($0)".contains("id tag") }
    }
}

/// Items whose tags are nullified, whose bundles cascade and whose favorites deny (DESIGN §10's delete rules on sets).
let tagRulesSchemaText = """
{"entities": {
  "Item": {"id": "string", "attributes": {"name": {"type": "string"}},
    "relationships": {"tags": {"to": "Tag", "toMany": true, "inverse": "items"},
                      "bundle": {"to": "Tag", "toMany": true, "onDelete": "cascade"},
                      "favorites": {"to": "Tag", "toMany": true, "onDelete": "deny"}}},
  "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}
}}
"""

@Suite("Many-to-many: integrity and delete rules")
struct ManyToManyIntegrityTests {
    func rulesStore() throws -> LogStore {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: tagRulesSchemaText), options: StoreOptions(durable: false))
        try store.append((1...3).map { .insert(entity: "Tag", id: .int($0), values: ["name": .string("t\($0)")]) }, author: "t")
        return store
    }

    @Test func everyMemberMustExistAtTheEndOfTheTransactionAndNothingIsAppendedOtherwise() throws {
        let store = try tagsStore()
        #expect { try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 7, 9]}}"#, to: store) } throws: {
            "\($0)".contains("insert of Item \"i1\": relationship 'tags' names Tag 7, which does not exist")
        }
        #expect(try store.head == 1)
        // Order within a transaction is free: the member may come after the set that names it.
        try appendLines("""
            {"changes": [{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 7]}}, {"insert": "Tag", "id": 7, "values": {"name": "t7"}}]}
            """, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(7)]))
        #expect { try appendLines(#"{"update": "Item", "id": "i1", "values": {"tags": [8]}}"#, to: store) } throws: {
            "\($0)".contains("update of Item \"i1\": relationship 'tags' names Tag 8, which does not exist")
        }
        #expect(try store.verify().isOK)
    }

    @Test func deletingAMemberNullifiesItOutOfEverySetInIDOrder() throws {
        let store = try rulesStore()
        try appendLines("""
            {"insert": "Item", "id": "i2", "values": {"name": "Cup", "tags": [1, 2]}}
            {"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [2, 3]}}
            {"delete": "Tag", "id": 2}
            """, to: store)
        let t = try #require(try store.transactions(after: try store.head - 1).first)
        #expect(outline(t) == ["delete Tag 2", "update Item \"i1\" tags", "update Item \"i2\" tags"])
        guard case let .update(_, values, previous) = t.changes[1] else { Issue.record("not an update"); return }
        #expect(values == ["tags": .set([.int(3)])] && previous == ["tags": .set([.int(2), .int(3)])])
        #expect(try store.object(item("i2"))?["tags"] == .set([.int(1)]))
        #expect(try store.object(item("i2"), at: 3)?["tags"] == .set([.int(1), .int(2)]), "the position before keeps the member")
        #expect(try store.verify().isOK)
    }

    @Test func deletingAMemberCascadesToTheObjectsWhoseSetHoldsIt() throws {
        let store = try rulesStore()
        try appendLines("""
            {"insert": "Item", "id": "i1", "values": {"name": "Pen", "bundle": [1, 2]}}
            {"insert": "Item", "id": "i2", "values": {"name": "Cup", "bundle": [3]}}
            {"delete": "Tag", "id": 1}
            """, to: store)
        let t = try #require(try store.transactions(after: try store.head - 1).first)
        #expect(outline(t) == ["delete Tag 1", "delete Item \"i1\""])
        #expect(try store.object(item("i1")) == nil && store.object(item("i2")) != nil)
        #expect(try store.verify().isOK)
    }

    @Test func deletingAMemberADenySetHoldsIsRefusedNamingTheHolderAndNothingIsAppended() throws {
        let store = try rulesStore()
        try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "favorites": [2]}}"#, to: store)
        let head = try store.head
        #expect { try appendLines(#"{"delete": "Tag", "id": 2}"#, to: store) } throws: {
            "\($0)".contains("delete of Tag 2: Item \"i1\" still names it through 'favorites' (onDelete: deny)")
        }
        #expect(try store.head == head)
        // Taking it out of the set in the same transaction makes the delete valid.
        try appendLines("""
            {"changes": [{"delete": "Tag", "id": 2}, {"update": "Item", "id": "i1", "values": {"favorites": []}}]}
            """, to: store)
        #expect(try store.object(item("i1"))?["favorites"] == .set([]))
        #expect(try store.verify().isOK)
    }
}

@Suite("Many-to-many: add and remove")
struct ManyToManyAddRemoveTests {
    /// A store whose item i1 holds tags 1 and 2.
    func store() throws -> LogStore {
        let store = try tagsStore()
        try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 2]}}"#, to: store)
        return store
    }

    @Test func addAndRemoveChangeMembersBesideOrInsteadOfValuesAndTheLogHoldsBothSets() throws {
        let store = try store()
        try appendLines(#"{"update": "Item", "id": "i1", "add": {"tags": [3]}, "remove": {"tags": [1]}}"#, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(2), .int(3)]))
        let t = try #require(try store.transactions(after: 2).first)
        let change = try #require(t.changes.first)
        #expect(change == .update(item("i1"), values: ["tags": .set([.int(2), .int(3)])], previous: ["tags": .set([.int(1), .int(2)])]))
        // Its inverse takes the object back, as revert, undo and a move backwards apply it.
        let after = try #require(try store.object(item("i1")))
        #expect(ObjectValues.applying(change.inverse, to: after)?["tags"] == .set([.int(1), .int(2)]))
        try appendLines(#"{"update": "Item", "id": "i1", "values": {"name": "Pencil"}, "add": {"tags": [1]}}"#, to: store)
        #expect(try store.object(item("i1")) == ["name": .string("Pencil"), "price": .null, "tags": .set([.int(1), .int(2), .int(3)]), "favorites": .set([])])
        #expect(try store.object(item("i1"), at: 3)?["tags"] == .set([.int(2), .int(3)]))
        #expect(try store.verify().isOK)
    }

    @Test func addingAMemberThereOrRemovingOneNotThereChangesNothingAndIsNoError() throws {
        let store = try store()
        try appendLines(#"{"update": "Item", "id": "i1", "add": {"tags": [2]}, "remove": {"tags": [3]}}"#, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(2)]))
        #expect(try store.head == 3)
    }

    @Test(arguments: [
        (#"{"update": "Item", "id": "i1", "add": {"tags": [3]}, "values": {"tags": [1]}}"#,
         "relationship 'tags' is replaced by values and changed by add or remove"),
        (#"{"update": "Item", "id": "i1", "add": {"tags": [3]}, "remove": {"tags": [3]}}"#, "relationship 'tags': 3 is both added and removed"),
        (#"{"update": "Item", "id": "i1", "add": {"tags": [9]}}"#, "relationship 'tags' names Tag 9, which does not exist"),
        (#"{"update": "Item", "id": "i1", "add": {"tags": ["x"]}}"#, "relationship 'tags' takes an id of Tag (an integer), got a string among its members"),
        (#"{"update": "Item", "id": "i1", "remove": {"tags": [1, 1]}}"#, "relationship 'tags' is given 1 twice"),
        (#"{"update": "Item", "id": "i1", "add": {"name": "x"}}"#, "add changes sets, and attribute 'name' is not a to-many relationship"),
        (#"{"update": "Item", "id": "i1", "add": {"color": [1]}}"#, "unknown attribute 'color'"),
        (#"{"update": "Item", "id": "i2", "add": {"tags": [1]}}"#, "update of Item \"i2\": no such object"),
        (#"{"update": "Item", "id": "i1", "add": {}}"#, "sets no values (an update needs at least one attribute)"),
    ])
    func badAddsAndRemovesAreRefusedNamingTheObjectAndRelationshipAndNothingIsAppended(line: String, message: String) throws {
        let store = try store()
        #expect { try appendLines(line, to: store) } throws: { "\($0)".contains(message) }
        #expect(try store.head == 2)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(2)]))
    }
}
