import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite struct AppendInputTests {
    static let schema = Fixtures.employees

    static func error(_ text: String) -> String {
        do {
            _ = try AppendInput.parse(text, schema: schema)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func readsTheFourForms() throws {
        let text = """
            {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}

            {"update": "Employee", "id": "e1", "values": {"height": 182, "salary": 2, "hired": "2026-11-22T11:00:00+01:00"}}\r
               \t
            {"delete": "Employee", "id": "e1"}
            {"author": "sync", "changes": [{"insert": "Badge", "id": 7}, {"update": "Badge", "id": 7, "values": {"label": null}}]}
            {"changes": [{"delete": "Badge", "id": -7}]}

            """
        let entries = try AppendInput.parse(text, schema: Self.schema)
        #expect(entries == [
            AppendInput.Entry(line: 1, author: nil, requests: [
                .insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180)])]),
            AppendInput.Entry(line: 3, author: nil, requests: [
                .update(entity: "Employee", id: .string("e1"),
                        values: ["height": .int(182), "salary": .double(2), "hired": .date(Timestamp(milliseconds: 1_795_341_600_000))])]),
            AppendInput.Entry(line: 5, author: nil, requests: [.delete(entity: "Employee", id: .string("e1"))]),
            AppendInput.Entry(line: 6, author: "sync", requests: [
                .insert(entity: "Badge", id: .int(7), values: [:]),
                .update(entity: "Badge", id: .int(7), values: ["label": .null])]),
            AppendInput.Entry(line: 7, author: nil, requests: [.delete(entity: "Badge", id: .int(-7))]),
        ])
    }

    @Test func lineAtATime() throws {
        #expect(try AppendInput.parseLine("   ", lineNumber: 9, schema: Self.schema) == nil)
        let entry = try AppendInput.parseLine(#"{"delete": "Badge", "id": 1}"#, lineNumber: 9, schema: Self.schema)
        #expect(entry == AppendInput.Entry(line: 9, author: nil, requests: [.delete(entity: "Badge", id: .int(1))]))
        #expect(throws: InputError(line: 9, message: "expected a JSON object, got an integer")) {
            try AppendInput.parseLine("42", lineNumber: 9, schema: Self.schema)
        }
    }

    /// Each bad input, the line it is on, and the exact message.
    static let badInputs: [(String, String)] = [
        ("", "the input has no transactions (no non-blank lines)"),
        ("\n  \n", "the input has no transactions (no non-blank lines)"),
        ("{\"delete\": \"Badge\", \"id\": 1}\n{\"delete\": ", "line 2: bad JSON at byte 12: unexpected end of input"),
        ("[1]", "line 1: expected a JSON object, got an array"),
        ("{}", #"line 1: missing the operation: "insert", "update" or "delete""#),
        (#"{"upsert": "Employee", "id": "e1"}"#,
         #"line 1: unknown key "upsert" (expected "insert", "update", "delete" or "changes")"#),
        (#"{"insert": "Employee", "update": "Employee", "id": "e1"}"#, #"line 1: more than one operation ("insert" and "update")"#),
        (#"{"insert": "Boss", "id": "b1"}"#, "line 1: insert: unknown entity 'Boss'"),
        (#"{"insert": 3, "id": "b1"}"#, #"line 1: insert: "insert" must be an entity name (a string), got an integer"#),
        (#"{"delete": "Employee", "id": "e1", "values": {}}"#,
         #"line 1: delete Employee: unknown key "values" (expected "delete", "id")"#),
        (#"{"insert": "Employee", "id": "e1", "values": {"name": "A", "nick": "B"}}"#,
         #"line 1: insert Employee "e1": unknown attribute 'nick' of entity 'Employee'"#),
        (#"{"insert": "Employee", "id": "e1", "values": {"name": "A", "height": "tall"}}"#,
         #"line 1: insert Employee "e1": attribute 'height' is int, got a string"#),
        (#"{"update": "Employee", "id": "e1", "values": {"height": 1.5}}"#,
         #"line 1: update Employee "e1": attribute 'height' is int, got 1.5 (not an integer)"#),
        (#"{"update": "Employee", "id": "e1", "values": {"hired": "yesterday"}}"#,
         #"line 1: update Employee "e1": attribute 'hired': 'yesterday' is not an ISO-8601 date"#),
        (#"{"update": "Employee", "id": "e1", "values": {"name": null}}"#,
         #"line 1: update Employee "e1": attribute 'name' is required and cannot be null"#),
        (#"{"update": "Employee", "id": "e1", "values": {"active": 1}}"#,
         #"line 1: update Employee "e1": attribute 'active' is bool, got an integer"#),
        (#"{"update": "Employee", "id": "e1", "values": []}"#,
         #"line 1: update Employee "e1": "values" must be a JSON object, got an array"#),
        (#"{"update": "Employee", "id": "e1"}"#, #"line 1: update Employee "e1": missing "values""#),
        (#"{"delete": "Employee"}"#, #"line 1: delete Employee: missing "id""#),
        (#"{"delete": "Employee", "id": 1}"#, "line 1: delete Employee: Employee ids are strings, got an integer (1)"),
        (#"{"delete": "Badge", "id": "7"}"#, #"line 1: delete Badge: Badge ids are integers, got a string ("7")"#),
        (#"{"delete": "Badge", "id": 7.0}"#, "line 1: delete Badge: Badge ids are integers, got a number (7.0)"),
        (#"{"insert": "Employee", "id": "e1", "values": {"height": 1}}"#,
         #"line 1: insert Employee "e1": missing required attribute 'name' (no default)"#),
        (#"{"author": "x", "changes": []}"#, "line 1: a transaction needs at least one change"),
        (#"{"author": "x"}"#, #"line 1: a transaction needs "changes": an array of at least one change"#),
        (#"{"author": "x", "delete": "Badge", "id": 1}"#,
         #"line 1: "author" goes only with "changes": {"author": …, "changes": [ …changes… ]}"#),
        (#"{"author": 5, "changes": [{"delete": "Badge", "id": 1}]}"#, #"line 1: "author" must be a string, got an integer"#),
        (#"{"author": "x", "changes": [{"delete": "Badge", "id": 1}], "id": 3}"#,
         #"line 1: unknown key "id" (expected "author", "changes")"#),
        (#"{"changes": [{"delete": "Badge", "id": 1}, {"update": "Badge", "id": 1, "values": {"label": 2}}]}"#,
         "line 1: change 2: update Badge 1: attribute 'label' is string, got an integer"),
        (#"{"changes": [{"delete": "Badge", "id": 1}, 3]}"#, "line 1: change 2: a change must be a JSON object, got an integer"),
        (#"{"changes": {"delete": "Badge", "id": 1}}"#, #"line 1: "changes" must be an array of changes, got an object"#),
        (#"{"delete": "Employee", "id": "\#(String(repeating: "x", count: 257))"}"#,
         "line 1: delete Employee: id is longer than 256 bytes"),
    ]

    @Test(arguments: badInputs)
    func badInputIsNamed(input: String, message: String) {
        #expect(Self.error(input) == message)
    }

    @Test func errorsCarryTheLineNumber() throws {
        let text = "{\"delete\": \"Badge\", \"id\": 1}\n\n\n{\"delete\": \"Badge\", \"id\": \"1\"}\n"
        #expect(throws: InputError(.invalidID, line: 4, message: #"delete Badge: Badge ids are integers, got a string ("1")"#)) {
            try AppendInput.parse(text, schema: Self.schema)
        }
    }

    @Test func tooLongLine() {
        let line = Substring(String(repeating: " ", count: Limits.lineBytesMax + 1))
        #expect(throws: InputError(.lineTooLong, line: 2, message: "line is longer than \(Limits.lineBytesMax) bytes")) {
            try AppendInput.parseLine(line, lineNumber: 2, schema: Self.schema)
        }
    }

    @Test func shorthand() throws {
        #expect(try AppendInput.shorthand(op: "insert", entity: "Employee", id: "e1",
                                          assignments: ["name=Ann Lee", "height=180", "salary=2.5", "active=no",
                                                        "hired=2026-11-22T10:00:00Z", "sectionName:=\"A\""],
                                          schema: Self.schema)
                == .insert(entity: "Employee", id: .string("e1"), values: [
                    "name": .string("Ann Lee"), "height": .int(180), "salary": .double(2.5), "active": .bool(false),
                    "hired": .date(Timestamp(milliseconds: 1_795_341_600_000)), "sectionName": .string("A")]))
        #expect(try AppendInput.shorthand(op: "update", entity: "Employee", id: "e1", assignments: ["height:=null", "name=a=b"],
                                          schema: Self.schema)
                == .update(entity: "Employee", id: .string("e1"), values: ["height": .null, "name": .string("a=b")]))
        #expect(try AppendInput.shorthand(op: "delete", entity: "Badge", id: "-3", assignments: [], schema: Self.schema)
                == .delete(entity: "Badge", id: .int(-3)))
    }

    static let badShorthands: [([String], String)] = [
        (["upsert", "Employee", "e1"], "unknown operation 'upsert' (expected insert, update or delete)"),
        (["insert", "Boss", "e1"], "insert: unknown entity 'Boss'"),
        (["delete", "Badge", "x"], "delete Badge: id 'x' is not an integer (Badge ids are integers)"),
        (["delete", "Badge", "1", "label=a"], "delete Badge 1: a delete takes no KEY=VALUE assignments"),
        (["update", "Employee", "e1", "height"], #"update Employee "e1": 'height' is not KEY=VALUE or KEY:=JSON"#),
        (["update", "Employee", "e1", "=3"], #"update Employee "e1": '=3' has no attribute name before '='"#),
        (["update", "Employee", "e1", "nick=3"], #"update Employee "e1": unknown attribute 'nick' of entity 'Employee'"#),
        (["update", "Employee", "e1", "height=tall"], #"update Employee "e1": attribute 'height' is int, got 'tall'"#),
        (["update", "Employee", "e1", "height:=1.5"], #"update Employee "e1": attribute 'height' is int, got 1.5 (not an integer)"#),
        (["update", "Employee", "e1", "name:=nul"], #"update Employee "e1": name:=nul: bad JSON at byte 1: unexpected end of input"#),
        (["update", "Employee", "e1", "name:=null"], #"update Employee "e1": attribute 'name' is required and cannot be null"#),
        (["update", "Employee", "e1", "height=1", "height=2"], #"update Employee "e1": attribute 'height' is given twice"#),
        (["insert", "Employee", "e1", "height=1"], #"insert Employee "e1": missing required attribute 'name' (no default)"#),
    ]

    @Test(arguments: badShorthands)
    func badShorthandIsNamed(arguments: [String], message: String) {
        do {
            _ = try AppendInput.shorthand(op: arguments[0], entity: arguments[1], id: arguments[2],
                                          assignments: Array(arguments.dropFirst(3)), schema: Self.schema)
            Issue.record("no error for \(arguments)")
        } catch {
            #expect(error.line == 0)
            #expect(error.description == message)
        }
    }

    @Test func completeInsertFillsDefaults() throws {
        let entity = try Self.schema.entity(named: "Employee")
        let complete = try entity.completeInsert(["name": .string("Ann"), "salary": .int(3)])
        #expect(complete == ["name": .string("Ann"), "height": .null, "sectionName": .string(""), "salary": .double(3),
                             "active": .bool(true), "hired": .null])
        #expect(throws: ObjectValuesError.missingRequired(entity: "Employee", attributes: ["name"])) {
            try entity.completeInsert(["height": .int(1)])
        }
        #expect(throws: ObjectValuesError.unknownAttribute(entity: "Employee", attribute: "nick")) {
            try entity.completeInsert(["name": .string("A"), "nick": .null])
        }
        #expect(throws: ObjectValuesError.invalidValue(entity: "Employee", .nullForRequired(attribute: "name"))) {
            try entity.completeInsert(["name": .null])
        }
        #expect(throws: ObjectValuesError.invalidValue(entity: "Employee", .typeMismatch(attribute: "height", expected: .int, got: "a double"))) {
            try entity.checkedValues(["height": .double(1)])
        }
        #expect(throws: ObjectValuesError.self) { try entity.checkID(.int(1)) }
        try entity.checkID(.string("e1"))
    }
}
