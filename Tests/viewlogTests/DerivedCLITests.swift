import Foundation
import Testing

/// Golden tests of derived attributes on the command line (DESIGN §10): a schema update adding them (its log line, the
/// schema printed back), their values among `values` in `get` (at every position) and `query`, views sorted,
/// filtered and sectioned by them with `changed` naming them in `diff` both ways, and their refusal as input.
@Suite struct DerivedCLITests {
    /// company.json with a department's headcount and tallest employee, an employee's department name, and a named
    /// view over them.
    static func derivedSchema(_ company: String) -> String {
        company
            .replacingOccurrences(of: #""floor": { "type": "int", "optional": true }"#,
                                  with: #""floor": { "type": "int", "optional": true }, "headcount": { "derived": "employees.@count" }, "tallest": { "derived": "employees.@max.height" }"#)
            .replacingOccurrences(of: #""salary": { "type": "double", "default": 0 }"#,
                                  with: #""salary": { "type": "double", "default": 0 }, "deptName": { "derived": "department.name" }"#)
            .replacingOccurrences(of: #""views": {"#,
                                  with: #""views": { "biggest": { "entity": "Department", "where": "headcount > 0", "sort": "headcount desc, name" },"#)
    }

    @Test func derivedAttributesOnTheCommandLine() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        let company = try String(contentsOfFile: box.file("company.json"), encoding: .utf8)
        try box.write("derived.json", Self.derivedSchema(company))
        for c in CompanyStory.changes.prefix(3) { try Stories.record(box, c.arguments, input: c.input, into: &t) }
        t.note("seq 7 adds derived attributes and a view sorted by one")
        try Stories.record(box, ["schema", "co", "--update", "derived.json"], into: &t)
        for run in [
            ["log", "co", "--from", "6"], ["schema", "co"],
            ["get", "co", "Department", "1"], ["get", "co", "Employee", "eve", "--json"],
            ["get", "co", "Department", "3", "--at", "5", "--json"],  // before seq 7: no derived attributes yet
            ["query", "co", "biggest"], ["query", "co", "biggest", "--json"],
            ["query", "co", "--entity", "Employee", "--section", "deptName", "--sort", "deptName, name", "--include", "manager.name", "--json"],
            ["query", "co", "--entity", "Department", "--where", "tallest > 170", "--include", "headcount"],
        ] { try Stories.record(box, run, into: &t) }
        t.note("seq 8: Eve joins Ops, which enters biggest; seq 9: Di leaves Research for Alpha: Research moves below Ops, Alpha's headcount changes")
        try Stories.record(box, ["append", "co", "update", "Employee", "eve", "department=2"], into: &t)
        try Stories.record(box, ["append", "co", "update", "Employee", "di", "department=1"], into: &t)
        for run in [
            ["diff", "co", "biggest", "--from", "7", "--to", "8", "--json"],
            ["diff", "co", "biggest", "--from", "8", "--to", "9", "--json"],
            ["diff", "co", "biggest", "--from", "9", "--to", "7"],
            ["diff", "co", "--entity", "Employee", "--sort", "deptName, name", "--from", "8", "--to", "9"],
            ["query", "co", "biggest", "--at", "8", "--json"],
            ["get", "co", "Department", "3", "--at", "8", "--json"], ["get", "co", "Department", "3", "--json"],
            ["verify", "co"],
        ] { try Stories.record(box, run, into: &t) }
        t.note("refused: a derived attribute given (shorthand and JSON), or used through another entity's key path; nothing appended")
        let head = try box.run(["log", "co", "--json"]).stdout
        for (arguments, input) in [
            (["append", "co", "update", "Department", "1", "headcount=3"], nil),
            (["append", "co"], #"{"insert": "Department", "id": 4, "values": {"name": "Legal", "tallest": null}}"# + "\n"),
            (["query", "co", "--entity", "Employee", "--sort", "department.headcount"], nil),
        ] as [([String], String?)] {
            let r = try box.run(arguments, input: input)
            t.record(r)
            #expect(r.status == 1 && r.stdout.isEmpty && r.errorLines.count == 1, "\(r.stderr)")
        }
        #expect(try box.run(["log", "co", "--json"]).stdout == head)
        Golden.check("company-derived.txt", t.text)
    }
}
