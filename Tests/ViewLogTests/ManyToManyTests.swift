import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLog
import ViewLogTesting

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

/// A store of ``tagsStore()`` whose item i1 holds tags 1 and 2 (seq 2).
func penStore() throws -> LogStore {
    let store = try tagsStore()
    try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 2]}}"#, to: store)
    return store
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
        #expect(values == ["tags": .set([])] && previous == ["tags": .set([.int(2)])], "the member removed, not the set")
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
    func store() throws -> LogStore { try penStore() }

    @Test func addAndRemoveChangeMembersBesideOrInsteadOfValuesAndTheLogHoldsTheMembersAddedAndRemoved() throws {
        let store = try store()
        try appendLines(#"{"update": "Item", "id": "i1", "add": {"tags": [3]}, "remove": {"tags": [1]}}"#, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(2), .int(3)]))
        let t = try #require(try store.transactions(after: 2).first)
        let change = try #require(t.changes.first)
        #expect(change == .update(item("i1"), values: ["tags": .set([.int(3)])], previous: ["tags": .set([.int(1)])]))
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

@Suite("Many-to-many: the log keeps the members added and removed")
struct ManyToManyLogTests {
    func store() throws -> LogStore { try penStore() }

    func lastJSON(_ store: LogStore) throws -> String {
        let t = try #require(try store.transactions(after: try store.head - 1).first)
        return t.changes[0].json(schema: try store.schema).text
    }

    @Test func anUpdateLogsTheMembersItAddedAndRemovedAlsoWhenItReplacedTheSet() throws {
        let store = try store()
        try appendLines(#"{"update": "Item", "id": "i1", "values": {"tags": [2, 3]}}"#, to: store)
        let t = try #require(try store.transactions(after: 2).first)
        #expect(t.changes == [.update(item("i1"), values: ["tags": .set([.int(3)])], previous: ["tags": .set([.int(1)])])])
        #expect(try lastJSON(store) == #"{"op": "update", "entity": "Item", "id": "i1", "add": {"tags": [3]}, "remove": {"tags": [1]}}"#)
        try appendLines(#"{"update": "Item", "id": "i1", "values": {"name": "Pencil"}, "add": {"tags": [1]}}"#, to: store)
        #expect(try lastJSON(store) == #"{"op": "update", "entity": "Item", "id": "i1", "values": {"name": "Pencil"}, "previous": {"name": "Pen"}, "add": {"tags": [1]}}"#)
        try appendLines(#"{"update": "Item", "id": "i1", "remove": {"tags": [9]}}"#, to: store)
        #expect(try lastJSON(store) == #"{"op": "update", "entity": "Item", "id": "i1", "add": {"tags": []}}"#, "named, changed nothing")
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(2), .int(3)]))
        #expect(try store.verify().isOK)
    }

    @Test func aSetChangeEncodesAsTheLogFormatShowsAndTheDecoderRefusesHalfAPairOrAMemberOnBothSides() throws {
        var w = ByteWriter(capacity: 32)
        w.updatePairs(["tags": .set([.int(4)])], previous: ["tags": .set([.int(1)])])
        let bytes = w.finish()
        let example: [UInt8] = [0x01, 0x04, 0x74, 0x61, 0x67, 0x73, 0x07, 0x01, 0x01, 0x04, 0, 0, 0, 0, 0, 0, 0,
                                0x07, 0x01, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0]
        #expect(bytes == example)
        func decode(_ b: [UInt8], _ side: UpdateValues = .both) throws -> (ObjectValues, ObjectValues) {
            try b.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                return try r.updatePairs(side)
            }
        }
        #expect(try decode(example, .new) == (["tags": .set([.int(4)])], ["tags": .set([.int(1)])]), "a fold of one side reads a set's pair whole")
        let halfPair: [UInt8] = [0x01, 0x04, 0x74, 0x61, 0x67, 0x73, 0x07, 0x00, 0x00]
        #expect { try decode(halfPair) } throws: { "\($0)".contains("a set beside a value that is not one") }
        let both: [UInt8] = [0x01, 0x04, 0x74, 0x61, 0x67, 0x73, 0x07, 0x01, 0x01, 0x04, 0, 0, 0, 0, 0, 0, 0,
                             0x07, 0x01, 0x01, 0x04, 0, 0, 0, 0, 0, 0, 0]
        #expect { try decode(both) } throws: { "\($0)".contains("4 both added and removed") }
    }

    /// Items' tags changed every way, with the state after each transaction kept in a plain model.
    func history() throws -> (LogStore, [[ObjectID: ObjectValues]]) {
        let store = try tagsStore()
        var model: [[ObjectID: ObjectValues]] = [[:], [:]]
        func step(_ line: String, _ change: (inout [ObjectID: ObjectValues]) -> Void) throws {
            try appendLines(line, to: store)
            var next = model.last!
            change(&next)
            model.append(next)
        }
        func tags(_ ids: [Int64]) -> Value { .set(ids.map { .int($0) }) }
        let empty: ObjectValues = ["name": .string("Pen"), "price": .null, "tags": tags([]), "favorites": tags([])]
        try step(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 2]}}"#) {
            $0[.string("i1")] = empty.merging(["tags": tags([1, 2])]) { $1 }
        }
        try step(#"{"insert": "Item", "id": "i2", "values": {"name": "Pen", "favorites": [3]}}"#) {
            $0[.string("i2")] = empty.merging(["favorites": tags([3])]) { $1 }
        }
        try step(#"{"update": "Item", "id": "i1", "values": {"tags": [2, 3]}}"#) { $0[.string("i1")]!["tags"] = tags([2, 3]) }
        try step(#"{"update": "Item", "id": "i1", "add": {"tags": [1]}, "remove": {"tags": [3]}}"#) { $0[.string("i1")]!["tags"] = tags([1, 2]) }
        try step(#"{"changes": [{"update": "Item", "id": "i2", "add": {"tags": [1, 2], "favorites": [1]}}, {"update": "Item", "id": "i1", "values": {"tags": []}}]}"#) {
            $0[.string("i2")]!["tags"] = tags([1, 2]); $0[.string("i2")]!["favorites"] = tags([1, 3]); $0[.string("i1")]!["tags"] = tags([])
        }
        try step(#"{"update": "Item", "id": "i2", "add": {"tags": [2]}, "values": {"name": "Cup"}}"#) { $0[.string("i2")]!["name"] = .string("Cup") }
        try step(#"{"changes": [{"delete": "Tag", "id": 1}, {"update": "Item", "id": "i1", "add": {"tags": [2]}}, {"update": "Item", "id": "i2", "remove": {"favorites": [1]}}]}"#) {
            $0[.string("i2")]!["tags"] = tags([2]); $0[.string("i2")]!["favorites"] = tags([3]); $0[.string("i1")]!["tags"] = tags([2])
        }
        try step(#"{"delete": "Item", "id": "i2"}"#) { $0[.string("i2")] = nil }
        return (store, model)
    }

    @Test func everyPositionHoldsItsSetsFoldedForwardsOrUndoneByNameOrBySlotAndEveryDeltaBothWays() throws {
        let (store, model) = try history()
        let head = try store.head
        #expect(model.count == Int(head) + 1)
        for p in 0...head {
            let expected = model[Int(p)].sorted { $0.key < $1.key }
            for travel in [LogStore.TimeTravel.foldFromStart, .undoFromHead] {
                for bySlot in [true, false] {
                    let rows = try store.objects(of: "Item", at: p, via: travel, bySlot: bySlot)
                    #expect(rows.map(\.id) == expected.map(\.key) && rows.map(\.values) == expected.map(\.value),
                            "position \(p), \(travel), by slot \(bySlot)")
                }
            }
        }
        for from in 0...head {
            for to in 0...head where from != to {
                for d in try store.delta(from: from, to: to, entities: ["Item"]).objects {
                    #expect(d.before == model[Int(from)][d.key.id] && d.after == model[Int(to)][d.key.id], "delta \(from) → \(to) of \(d.key)")
                }
            }
        }
        #expect(try store.verify().isOK)
        let replayed = try store.replay(into: newStorePath(), options: StoreOptions(durable: false))
        #expect(try replayed.objects(of: "Item").map(\.values) == store.objects(of: "Item").map(\.values))
        #expect(try (1...head).map { try replayed.transactions(after: $0 - 1).first } == (1...head).map { try store.transactions(after: $0 - 1).first })
    }

    @Test func aTransactionsJSONReadsBackToTheSameChangesAndAppendingItAgainLogsTheSameBytes() throws {
        let (store, _) = try history()
        let schema = try store.schema
        let copy = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        for t in try store.transactions(after: 0) {
            let text = t.json(schema: schema).text
            let read = try Transaction(json: try JSONValue.parse(text), schema: schema)
            #expect(read == t, "\(text)")
            // As import and a replica do: re-resolved against the copy's state, it must give the changes logged.
            _ = try copy.append([TransactionRequest(replaying: read)])
        }
        #expect(try copy.transactions(after: 0).map(TransactionCodec.encode) == store.transactions(after: 0).map(TransactionCodec.encode))
        #expect(try copy.verify().isOK)
    }
}

@Suite("Many-to-many: a to-many added to an entity")
struct ManyToManyAddedLaterTests {
    @Test func objectsFromBeforeItHoldTheEmptySetAtEveryPositionNeverNull() throws {
        let v1 = try Schema(jsonText: #"{"entities": {"Item": {"id": "string", "attributes": {"name": {"type": "string"}}}, "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}}}"#)
        let v2 = try Schema(jsonText: #"{"entities": {"Item": {"id": "string", "attributes": {"name": {"type": "string"}}, "relationships": {"tags": {"to": "Tag", "toMany": true, "inverse": "items"}}}, "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}}}"#)
        let store = try LogStore.create(at: newStorePath(), schema: v1, options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Item", id: .string("i1"), values: ["name": .string("Pen")])], author: "t")
        try store.updateSchema(v2, author: "t")
        try store.append([.update(entity: "Item", id: .string("i1"), values: ["name": .string("Pencil")])], author: "t")
        #expect(try store.object(item("i1"))?["tags"] == .set([]))
        #expect(try store.object(item("i1"), at: 2)?["tags"] == .set([]))
        for p: UInt64 in [2, 3] {
            for travel in [LogStore.TimeTravel.foldFromStart, .undoFromHead] {
                for bySlot in [true, false] {
                    #expect(try store.objects(of: "Item", at: p, via: travel, bySlot: bySlot).first?.values["tags"] == .set([]),
                            "position \(p), \(travel), by slot \(bySlot)")
                }
            }
        }
        // Adding to the set it never held works from the empty set.
        try appendLines(#"{"changes": [{"insert": "Tag", "id": 1, "values": {"name": "a"}}, {"update": "Item", "id": "i1", "add": {"tags": [1]}}]}"#, to: store)
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1)]))
        #expect(try store.object(item("i1"), at: 3)?["tags"] == .set([]))
        #expect(try store.verify().isOK)
    }
}

@Suite("Many-to-many: contexts")
struct ManyToManyContextTests {
    @Test func aStagedDeleteOfAMemberShowsItTakenOutOfTheSetAsTheSaveLogsIt() throws {
        let store = try tagsStore()
        try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1, 2]}}"#, to: store)
        let context = try Context(store: store, name: "ui")
        try context.delete("Tag", id: .int(2))
        #expect(try context.object(item("i1"))?["tags"] == .set([.int(1)]), "nullify takes the member out, the set stays")
        try context.save()
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1)]))
        #expect(try context.object(item("i1"))?["tags"] == .set([.int(1)]))
    }

    @Test func aStagedAddAndRemoveShowsTheSetAndItsSaveLogsTheMembersChangedAgainstTheHead() throws {
        let store = try tagsStore()
        try appendLines(#"{"insert": "Item", "id": "i1", "values": {"name": "Pen", "tags": [1]}}"#, to: store)
        let context = try Context(store: store, name: "ui")
        try context.stage(.updateMembers(entity: "Item", id: .string("i1"), values: [:], add: ["tags": .set([.int(2)])], remove: ["tags": .set([.int(1)])]))
        #expect(try context.object(item("i1"))?["tags"] == .set([.int(2)]))
        try context.save()
        let t = try #require(try store.transactions(after: try store.head - 1).first)
        #expect(t.changes == [.update(item("i1"), values: ["tags": .set([.int(2)])], previous: ["tags": .set([.int(1)])])])
    }
}

/// Random workloads of sets against a plain model (DESIGN §10): items' sets given, replaced, added to and removed
/// from, tags deleted under each onDelete rule (`tags` nullify, `bundle` cascade, `favorites` deny); every
/// transaction accepted or refused as the model says, every position's objects the model's (folded forwards and
/// undone), a live context's flat views of Item equal to a fresh fetch at every step and their change sets valid,
/// and moves between random positions both ways giving the view at the position with a valid change set.
@Suite("Many-to-many: model-based")
struct ManyToManyModelTests {
    struct Model {
        var objects: [ObjectKey: ObjectValues] = [:]

        static let sets = ["tags", "bundle", "favorites"]

        /// Applies `requests` as one transaction; `false`, changing nothing, when the store must refuse it.
        mutating func apply(_ requests: [ChangeRequest]) -> Bool {
            let saved = objects
            var deletedTags: Set<ObjectID> = [], touched: Set<ObjectKey> = []
            func refuse() -> Bool { objects = saved; return false }
            for r in requests {
                let key = r.key
                touched.insert(key)
                switch r {
                case .insert(_, _, let v):
                    guard objects[key] == nil else { return refuse() }
                    var full = v
                    if key.entity == "Item" { for s in Self.sets where full[s] == nil { full[s] = .set([]) } }
                    objects[key] = full
                case .update(_, _, let v):
                    guard objects[key] != nil else { return refuse() }
                    for (k, x) in v { objects[key]![k] = x }
                case let .updateMembers(_, _, v, add, remove):
                    guard var o = objects[key] else { return refuse() }
                    for (k, x) in v { o[k] = x }
                    for s in Self.sets where add[s] != nil || remove[s] != nil {
                        var members = Set(o[s]!.memberIDs)
                        members.formUnion(add[s]?.memberIDs ?? [])
                        members.subtract(remove[s]?.memberIDs ?? [])
                        o[s] = .set(members.sorted())
                    }
                    objects[key] = o
                case .delete:
                    guard objects[key] != nil else { return refuse() }
                    objects[key] = nil
                    guard key.entity == "Tag" else { continue }
                    deletedTags.insert(key.id)
                    for (item, values) in objects where item.entity == "Item" {
                        if values["bundle"]!.holds(key.id) {
                            objects[item] = nil
                        } else if values["tags"]!.holds(key.id) {
                            objects[item]!["tags"] = .set(values["tags"]!.memberIDs.filter { $0 != key.id })
                        }
                    }
                case .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate")
                }
            }
            for (key, values) in objects where key.entity == "Item" {
                for s in Self.sets {
                    for id in values[s]!.memberIDs {
                        if touched.contains(key), objects[ObjectKey(entity: "Tag", id: id)] == nil { return refuse() }
                        if s == "favorites", deletedTags.contains(id) { return refuse() }
                    }
                }
            }
            return true
        }
    }

    static let views: [FetchRequest] = [
        FetchRequest(entity: "Item", sortDescriptors: [ViewSortDescriptor(key: "name"), ViewSortDescriptor(key: "id")]),
        FetchRequest(entity: "Item", predicate: try! ViewPredicate("name != 'n0'"),
                     sortDescriptors: [ViewSortDescriptor(key: "name", ascending: false)], sectionKey: "name", limit: 2),
    ]

    @Test(arguments: 0..<4)
    func randomSetWorkloadsMatchAPlainModelAtEveryPositionAndInEveryView(stream: UInt64) throws {
        var g = SeededGenerator(stream: 3900 + stream)
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: tagRulesSchemaText), options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let items = ["a", "b", "c", "d"], tags: [Int64] = [1, 2, 3, 4]
        func pick<T>(_ xs: [T]) -> T { xs.randomElement(using: &g)! }
        func subset(_ odds: Int = 2) -> Value { .set(tags.filter { _ in Int.random(in: 0..<odds, using: &g) == 0 }.map { .int($0) }) }
        func request() -> ChangeRequest {
            let item = ObjectID.string(pick(items))
            switch Int.random(in: 0..<10, using: &g) {
            case 0, 1: return .insert(entity: "Tag", id: .int(pick(tags)), values: ["name": .string("t")])
            case 2, 8: return .insert(entity: "Item", id: item, values: ["name": .string("n\(pick([0, 1, 2]))"), "tags": subset(),
                                                                     "bundle": subset(6), "favorites": subset(8)])
            case 3: return .update(entity: "Item", id: item, values: pick([["tags": subset()], ["tags": subset(), "name": .string("n\(pick([0, 1, 2]))")]]))
            case 4, 5:
                // Members to add and to remove, never one in both.
                var add: [ObjectID] = [], remove: [ObjectID] = []
                for t in tags { switch Int.random(in: 0..<4, using: &g) { case 0: add.append(.int(t)); case 1: remove.append(.int(t)); default: break } }
                let set = pick(["tags", "tags", "bundle", "favorites"])
                return .updateMembers(entity: "Item", id: item, values: Bool.random(using: &g) ? [:] : ["name": .string("n\(pick([0, 1, 2]))")],
                                      add: [set: .set(add)], remove: [set: .set(remove)])
            case 6: return .update(entity: "Item", id: item, values: ["name": .string("n\(pick([0, 1, 2]))")])
            case 7: return .delete(entity: "Tag", id: .int(pick(tags)))
            default: return .delete(entity: "Item", id: item)
            }
        }
        var model = Model()
        var states: [[ObjectKey: ObjectValues]] = [[:]]
        let setup: [ChangeRequest] = tags.map { .insert(entity: "Tag", id: .int($0), values: ["name": .string("t")]) }
            + items.map { .insert(entity: "Item", id: .string($0), values: ["name": .string("n0")]) }
        let setUp = model.apply(setup)
        #expect(setUp)
        try store.append(setup, author: "m")
        states.append(model.objects)
        let live = try Context(store: store, name: "live")
        let controllers = try Self.views.map { try live.makeResultsController($0) }
        var appended = 0
        for step in 0..<120 {
            let requests = (0..<Int.random(in: 1...2, using: &g)).map { _ in request() }
            if try appendAsTheModelSays(store, requests, accepts: model.apply(requests), "step \(step), \(g.rerunHint)") != nil {
                states.append(model.objects)
                appended += 1
            }
            _ = try refreshChecked(live, controllers, Self.views, "step \(step), \(g.rerunHint)")
        }
        #expect(appended > 20)
        let head = try store.head
        for p in 0...head {
            for entity in ["Item", "Tag"] {
                let expected = states[Int(p)].filter { $0.key.entity == entity }
                for travel in [LogStore.TimeTravel.foldFromStart, .undoFromHead] {
                    let rows = try store.objects(of: entity, at: p, via: travel)
                    #expect(Dictionary(uniqueKeysWithValues: rows.map { (ObjectKey(entity: entity, id: $0.id), $0.values) }) == expected,
                            "\(entity) at \(p), \(travel), \(g.rerunHint)")
                }
            }
        }
        for _ in 0..<12 {
            let a = UInt64.random(in: 0...head, using: &g), b = UInt64.random(in: 0...head, using: &g)
            for request in Self.views { _ = try moveChecked(store, request, from: a, to: b, "\(a)→\(b), \(g.rerunHint)") }
            for d in try store.delta(from: a, to: b).objects {
                #expect(d.before == states[Int(a)][d.key] && d.after == states[Int(b)][d.key], "delta \(a)→\(b) of \(d.key), \(g.rerunHint)")
            }
        }
        #expect(try store.verify().isOK)
    }
}

@Suite("Many-to-many: revert")
struct ManyToManyRevertTests {
    @Test func aRevertTakesBackTheMembersAddedAndRemovedAndConflictsPerMember() throws {
        let store = try penStore()  // i1 holds 1 and 2
        try appendLines(#"{"update": "Item", "id": "i1", "add": {"tags": [3]}, "remove": {"tags": [1]}}"#, to: store)  // seq 3: [2, 3]
        try appendLines(#"{"update": "Item", "id": "i1", "add": {"tags": [1]}}"#, to: store)  // seq 4: [1, 2, 3], touches member 1
        try appendLines(#"{"update": "Item", "id": "i1", "remove": {"tags": [2]}}"#, to: store)  // seq 5: [1, 3], another member
        // Member 1, which seq 3 removed, was added again by seq 4: a conflict on 'tags', named.
        #expect { try store.revert([3], author: "t") } throws: { error in
            guard case .revertConflict(let key, let attribute, let seq)? = error as? StoreError else { return false }
            return key == item("i1") && attribute == "tags" && seq == 4
        }
        // Keeping the later change: member 3 (added by seq 3 only) is removed; member 1 stays as seq 4 left it.
        let kept = try #require(try store.revert([3], author: "t", conflicts: .keepLater))
        #expect(kept.changes == [.update(item("i1"), values: ["tags": .set([])], previous: ["tags": .set([.int(3)])])])
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1)]))
        // Seq 5 touched member 2 only: reverting it, after seq 6 changed other members, is no conflict.
        let undone = try store.revert([5], author: "t")
        #expect(undone.changes == [.update(item("i1"), values: ["tags": .set([.int(2)])], previous: ["tags": .set([])])])
        #expect(try store.object(item("i1"))?["tags"] == .set([.int(1), .int(2)]))
        #expect(try store.verify().isOK)
    }
}
