import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite struct TransactionJSONTests {
    static let e1 = ObjectKey(entity: "Employee", id: .string("e1"))
    static let ann: ObjectValues = ["name": .string("Ann"), "height": .int(180), "sectionName": .string(""),
                                    "salary": .double(0), "active": .bool(true), "hired": .null]
    static let example = Transaction(
        seq: 3, time: Timestamp(iso8601: "2026-11-22T10:00:00.000Z") ?? Timestamp(milliseconds: 0), author: "cli",
        changes: [.insert(e1, values: ann),
                  .update(e1, values: ["height": .int(182)], previous: ["height": .int(180)]),
                  .delete(ObjectKey(entity: "Badge", id: .int(7)), previous: ["label": .null])])

    @Test func documentOfTheContract() {
        let text = Self.example.json(schema: Fixtures.employees).text
        #expect(text == """
            {"seq": 3, "time": "2026-11-22T10:00:00.000Z", "author": "cli", "changes": [\
            {"op": "insert", "entity": "Employee", "id": "e1", "values": {"active": true, "height": 180, "hired": null, \
            "name": "Ann", "salary": 0.0, "sectionName": ""}}, \
            {"op": "update", "entity": "Employee", "id": "e1", "values": {"height": 182}, "previous": {"height": 180}}, \
            {"op": "delete", "entity": "Badge", "id": 7, "previous": {"label": null}}]}
            """)
    }

    @Test func schemaChangeDocument() throws {
        let next = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "attributes": {"x": {"type": "int"}}}}}"#)
        let t = Transaction(seq: 1, time: Timestamp(milliseconds: 0), author: "a",
                            changes: [.schema(next, previous: Fixtures.employees),
                                      .insert(ObjectKey(entity: "A", id: .int(1)), values: ["x": .int(2)])])
        let json = t.json(schema: Fixtures.employees)
        guard case .array(let changes)? = json["changes"] else {
            Issue.record("no changes")
            return
        }
        #expect(changes[0].text == #"{"op": "schema", "schema": \#(next.json.text), "previous": \#(Fixtures.employees.json.text)}"#)
        // The insert of entity A, which only the new schema has, reads back.
        #expect(try Transaction(json: JSONValue.parse(json.text), schema: Fixtures.employees) == t)
    }

    @Test func randomTransactionsRoundTripThroughText() throws {
        var g = SeededGenerator(stream: 30)
        for i in 0..<2000 {
            let schema = RandomSchemas.schema(using: &g)
            let t = RandomSchemas.transaction(schema: schema, seq: UInt64.random(in: 1...UInt64(Int64.max), using: &g),
                                              maxChanges: 10, jsonSafe: true, using: &g)
            let text = t.json(schema: schema).text
            let back = try Transaction(json: JSONValue.parse(text), schema: schema, line: i + 1)
            #expect(back == t, "\(g.rerunHint), transaction \(i): \(text)")
        }
    }

    static func error(_ text: String, line: Int = 4) -> String {
        do {
            _ = try Transaction(json: JSONValue.parse(text), schema: Fixtures.employees, line: line)
            return "no error"
        } catch let error as InputError {
            return error.description
        } catch {
            return "not an InputError: \(error)"
        }
    }

    @Test func errorsNameTheLineAndTheChange() {
        let head = #""seq": 3, "time": "2026-11-22T10:00:00Z", "author": "x""#
        #expect(Self.error("[]") == "line 4: a transaction must be a JSON object, got an array")
        #expect(Self.error(#"{"seq": 0}"#) == #"line 4: "seq" must be an integer of at least 1"#)
        #expect(Self.error(#"{"seq": 3, "time": "noon"}"#) == #"line 4: seq 3: "time": 'noon' is not an ISO-8601 date"#)
        #expect(Self.error(#"{\#(head), "changes": []}"#) == "line 4: seq 3: a transaction needs at least one change")
        #expect(Self.error(#"{\#(head), "changes": [], "extra": 1}"#)
                == #"line 4: unknown key "extra" (expected "seq", "time", "author", "reverts", "changes")"#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "upsert"}]}"#)
                == #"line 4: seq 3, change 1: unknown op "upsert" (expected "insert", "update", "delete" or "schema")"#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "insert", "entity": "Boss", "id": "b", "values": {}}]}"#)
                == "line 4: seq 3, change 1: insert: unknown entity 'Boss'")
        #expect(Self.error(#"{\#(head), "changes": [{"op": "delete", "entity": "Badge", "id": "7", "previous": {}}]}"#)
                == #"line 4: seq 3, change 1: delete Badge: Badge ids are integers, got a string ("7")"#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "update", "entity": "Employee", "id": "e1", "values": {"height": 1}, "previous": {}}]}"#)
                == #"line 4: seq 3, change 1: update Employee "e1": "previous" must have exactly the attributes of "values""#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "update", "entity": "Employee", "id": "e1", "values": {"height": 1.5}, "previous": {"height": 1}}]}"#)
                == #"line 4: seq 3, change 1: update Employee "e1": attribute 'height' is int, got 1.5 (not an integer)"#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "delete", "entity": "Employee", "id": "e1"}]}"#)
                == #"line 4: seq 3, change 1: delete Employee "e1": missing "previous""#)
        #expect(Self.error(#"{\#(head), "changes": [{"op": "schema", "schema": {}, "previous": {}}]}"#)
                .hasPrefix(#"line 4: seq 3, change 1: schema: "schema": malformed schema"#))
    }
}
