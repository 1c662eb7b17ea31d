import Foundation
import Testing

/// The scripted stories the golden tests tell, on the example schemas. Each builds its store in a sandbox and
/// records its runs in a transcript (the setup transcript is itself pinned by a golden of its own).
enum Stories {
    // MARK: employees.json — string ids, sections, a limit window

    /// seqs 1…4: three single-change lines and one multi-change transaction of author `sync`.
    static let employeesLines = """
        {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180, "sectionName": "A", "salary": 5200.5, "hired": "2024-03-01T09:00:00Z"}}
        {"insert": "Employee", "id": "e2", "values": {"name": "Bob", "height": 165, "sectionName": "A"}}
        {"insert": "Employee", "id": "e3", "values": {"name": "Cy", "height": 175, "sectionName": "B", "active": false}}
        {"author": "sync", "changes": [{"insert": "Employee", "id": "e4", "values": {"name": "Dee", "height": 190, "sectionName": "B", "salary": 7000}}, {"insert": "Employee", "id": "e5", "values": {"name": "Eve", "sectionName": "C"}}, {"update": "Employee", "id": "e2", "values": {"height": 172}}]}

        """

    /// seqs 5…8: shorthand changes (a date with an offset, `KEY:=null`, `--author`).
    static let employeesShorthand: [[String]] = [
        ["append", "shop", "insert", "Employee", "e6", "name=Fay", "height=185", "sectionName=C", "salary=6100",
         "hired=2025-01-15T08:30:00+01:00"],
        ["append", "shop", "update", "Employee", "e1", "sectionName=B"],
        ["append", "shop", "--author", "hr", "update", "Employee", "e3", "height:=null", "active=true"],
        ["append", "shop", "delete", "Employee", "e5"],
    ]

    /// seqs 9…10, appended with `--file` and `--json`.
    static let employeesFile = """
        {"author": "sync", "changes": [{"update": "Employee", "id": "e4", "values": {"height": 168}}, {"update": "Employee", "id": "e6", "values": {"salary": 6400.25}}, {"insert": "Employee", "id": "e7", "values": {"name": "Gus", "height": 200, "sectionName": "D"}}]}
        {"update": "Employee", "id": "e2", "values": {"sectionName": "C", "name": "Bea"}}

        """

    /// The employees store `shop` at head 10, every step recorded in `transcript`.
    static func employees(in box: Sandbox, transcript: inout Transcript) throws {
        try box.exampleSchema("employees.json")
        try record(box, ["init", "shop", "--schema", "employees.json"], into: &transcript)
        try record(box, ["append", "shop"], input: employeesLines, into: &transcript)
        for arguments in employeesShorthand { try record(box, arguments, into: &transcript) }
        try box.write("more.jsonl", employeesFile)
        try record(box, ["append", "shop", "--file", "more.jsonl", "--json"], into: &transcript)
    }

    /// The employees store `shop` at head 10.
    static func employees(in box: Sandbox) throws {
        var ignored = Transcript()
        try employees(in: box, transcript: &ignored)
    }

    // MARK: authors.json — int ids

    static let authorsLines = """
        {"insert": "Author", "id": 1, "values": {"firstName": "Evelyn", "lastName": "Waugh", "born": "1903-10-28T00:00:00Z", "books": 14}}
        {"insert": "Author", "id": 2, "values": {"firstName": "Virginia", "lastName": "Woolf", "born": "1882-01-25T00:00:00.000+00:00"}}
        {"author": "import", "changes": [{"insert": "Author", "id": 10, "values": {"firstName": "Jane", "lastName": "Austen"}}, {"insert": "Author", "id": -3, "values": {"firstName": "Oscar", "lastName": "Wilde", "books": 9}}]}

        """

    static let authorsShorthand: [[String]] = [
        ["append", "lib", "insert", "Author", "4", "firstName=P. G.", "lastName=Wodehouse", "books=96"],
        ["append", "lib", "update", "Author", "2", "books:=9", "born:=null"],
        ["append", "lib", "update", "Author", "10", "lastName=Wollstonecraft", "firstName=Mary"],
        ["append", "lib", "delete", "Author", "1"],
    ]

    /// The authors store `lib` at head 7.
    static func authors(in box: Sandbox, transcript: inout Transcript) throws {
        try box.exampleSchema("authors.json")
        try record(box, ["init", "lib", "--schema", "authors.json"], into: &transcript)
        try record(box, ["append", "lib"], input: authorsLines, into: &transcript)
        for arguments in authorsShorthand { try record(box, arguments, into: &transcript) }
    }

    // MARK: testdummy.json — int ids, bool sections, optional strings

    static let dummyLines = """
        {"insert": "TestDummy", "id": 1, "values": {"value": 10, "label": "one"}}
        {"insert": "TestDummy", "id": 2, "values": {"isEven": true, "value": 20, "label": "two words"}}
        {"insert": "TestDummy", "id": 3, "values": {"value": 30, "label": "tab\\there, new\\nline"}}
        {"insert": "TestDummy", "id": 4, "values": {"isEven": true, "value": -5, "label": ""}}
        {"insert": "TestDummy", "id": 5, "values": {"value": 7, "label": "日本 😀"}}

        """

    /// The dummy store `td` at head 7.
    static func dummies(in box: Sandbox, transcript: inout Transcript) throws {
        try box.exampleSchema("testdummy.json")
        try record(box, ["init", "td", "--schema", "testdummy.json"], into: &transcript)
        try record(box, ["append", "td", "--author", "gen"], input: dummyLines, into: &transcript)
        try record(box, ["append", "td", "update", "TestDummy", "5", "isEven=true", "value=6"], into: &transcript)
        try record(box, ["append", "td", "update", "TestDummy", "2", "label:=null"], into: &transcript)
    }

    /// Runs, records, and requires success.
    static func record(_ box: Sandbox, _ arguments: [String], input: String? = nil, into transcript: inout Transcript,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try box.run(arguments, input: input)
        transcript.record(r)
        #expect(r.status == 0, "viewlog \(arguments.joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
    }
}
