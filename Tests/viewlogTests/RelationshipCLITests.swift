import Foundation
import Testing

/// The company story on `schema/company.json` (DESIGN §10): departments, employees in departments with managers,
/// projects owned by a department (`cascade`) and reviewed by an employee (`deny`).
enum CompanyStory {
    /// seqs 1…3: three departments, five employees (one without a department), three projects.
    static let setupLines = """
        {"author": "hr", "changes": [{"insert": "Department", "id": 1, "values": {"name": "Sales", "floor": 2}}, {"insert": "Department", "id": 2, "values": {"name": "Ops", "floor": 1}}, {"insert": "Department", "id": 3, "values": {"name": "Research", "floor": 3}}]}
        {"author": "hr", "changes": [{"insert": "Employee", "id": "ann", "values": {"name": "Ann", "height": 180, "department": 1}}, {"insert": "Employee", "id": "bob", "values": {"name": "Bob", "height": 165, "department": 2, "manager": "ann"}}, {"insert": "Employee", "id": "cy", "values": {"name": "Cy", "department": 1, "manager": "ann"}}, {"insert": "Employee", "id": "di", "values": {"name": "Di", "height": 172, "department": 3}}, {"insert": "Employee", "id": "eve", "values": {"name": "Eve"}}]}
        {"author": "pm", "changes": [{"insert": "Project", "id": 10, "values": {"title": "Atlas", "owner": 3, "reviewer": "di"}}, {"insert": "Project", "id": 2, "values": {"title": "Beacon", "owner": 3}}, {"insert": "Project", "id": 7, "values": {"title": "Comet", "owner": 1, "reviewer": "cy"}}]}

        """

    /// The company store `co` at head 3.
    static func setUp(in box: Sandbox, transcript: inout Transcript) throws {
        try box.exampleSchema("company.json")
        try Stories.record(box, ["init", "co", "--schema", "company.json"], into: &transcript)
        try Stories.record(box, ["append", "co"], input: setupLines, into: &transcript)
    }

    /// seqs 4…9, one change of the graph each (refusals in between append nothing):
    /// 4 Sales renamed Alpha (one hop away from every employee of it), 5 Ann renamed Anne (her reports' `manager.name`),
    /// 6 Bob moved to Research, 7 Research deleted (nullify and cascade), 8 Anne deleted (her reports' manager
    /// nullified), 9 Cy deleted with Comet's reviewer cleared in the same transaction (deny satisfied at its end).
    static let changes: [(arguments: [String], input: String?)] = [
        (["append", "co", "update", "Department", "1", "name=Alpha"], nil),
        (["append", "co", "update", "Employee", "ann", "name=Anne"], nil),
        (["append", "co", "update", "Employee", "bob", "department=3"], nil),
        (["append", "co", "--author", "hr"], #"{"delete": "Department", "id": 3}"# + "\n"),
        (["append", "co", "delete", "Employee", "ann"], nil),
        (["append", "co"], #"{"changes": [{"delete": "Employee", "id": "cy"}, {"update": "Project", "id": 7, "values": {"reviewer": null}}]}"# + "\n"),
    ]

    /// The company store `co` at head 9.
    static func full(in box: Sandbox) throws {
        var ignored = Transcript()
        try setUp(in: box, transcript: &ignored)
        for c in changes { try Stories.record(box, c.arguments, input: c.input, into: &ignored) }
    }
}

/// Golden tests of the CLI over relationships (DESIGN §10): delete rules' consequences in `log`, the
/// integrity and `deny` refusals, `paths` in `query --json` (named views' `include` and `--include`), `diff` with key
/// paths in `changed` both ways, sections by `department.name`.
@Suite struct RelationshipCLITests {
    func record(_ box: Sandbox, _ runs: [[String]], into t: inout Transcript) throws {
        for arguments in runs { t.record(try box.run(arguments)) }
    }

    /// Records a refused run and checks what every refusal must do: exit 1, one `error:` line, nothing appended.
    func refused(_ box: Sandbox, _ arguments: [String], input: String? = nil, mentions: [String], into t: inout Transcript,
                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let head = try box.run(["log", "co", "--json"]).stdout
        let r = try box.run(arguments, input: input)
        t.record(r)
        #expect(r.status == 1 && r.stdout.isEmpty && r.errorLines.count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        for m in mentions { #expect(r.stderr.contains(m), "\(r.stderr) does not mention \(m)", sourceLocation: sourceLocation) }
        #expect(try box.run(["log", "co", "--json"]).stdout == head, "a refusal appended", sourceLocation: sourceLocation)
    }

    @Test func deleteRulesInTheLogAndRefusals() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        t.note("integrity: line 2 names Department 9, which does not exist; nothing appended, not even line 1")
        try refused(box, ["append", "co"], input: """
            {"insert": "Department", "id": 4, "values": {"name": "Legal"}}
            {"insert": "Employee", "id": "fay", "values": {"name": "Fay", "department": 9}}

            """, mentions: ["line 2", "Employee \"fay\"", "'department'", "Department 9", "nothing appended"], into: &t)
        t.note("order within a transaction is free, but each line is a transaction: a target inserted by a later line is too late")
        try refused(box, ["append", "co"], input: """
            {"insert": "Employee", "id": "fay", "values": {"name": "Fay", "department": 4}}
            {"insert": "Department", "id": 4, "values": {"name": "Legal"}}

            """, mentions: ["line 1", "Employee \"fay\"", "'department'", "Department 4"], into: &t)
        t.note("deny: Comet (Project 7) is reviewed by Cy")
        try refused(box, ["append", "co", "delete", "Employee", "cy"], mentions: ["Employee \"cy\"", "Project 7", "'reviewer'", "deny"], into: &t)
        for c in CompanyStory.changes { try Stories.record(box, c.arguments, input: c.input, into: &t) }
        try record(box, [
            ["log", "co", "--from", "3"],
            ["log", "co", "--from", "6", "--json"],
            ["get", "co", "Employee", "bob", "--json"],
            ["get", "co", "Employee", "bob", "--at", "6", "--json"],
            ["query", "co", "--entity", "Project", "--json"],
            ["verify", "co"],
        ], into: &t)
        // What the rules did is logged: an export imported into a new store reproduces it as it is.
        try box.write("co.jsonl", try box.run(["export", "co"]).stdout)
        try record(box, [
            ["init", "copy", "--schema", "company.json"],
            ["import", "copy", "co.jsonl"],
            ["verify", "copy"],
            ["log", "copy", "--from", "6", "--to", "7"],
        ], into: &t)
        #expect(try box.run(["export", "copy"]).stdout == box.run(["export", "co"]).stdout)
        Golden.check("company-log.txt", t.text)
    }

    @Test func theLogOfASchemaChangeNamesRelationshipsAndInverses() throws {
        let box = try Sandbox()
        try box.write("v1.json", #"{"entities": {"Department": {"id": "int", "attributes": {"name": {"type": "string"}}}, "Employee": {"id": "string", "attributes": {"name": {"type": "string"}}}}}"#)
        try box.write("v2.json", #"{"entities": {"Department": {"id": "int", "attributes": {"name": {"type": "string"}}}, "Employee": {"id": "string", "attributes": {"name": {"type": "string"}}, "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}, "manager": {"to": "Employee", "optional": true}}}}}"#)
        try box.write("v3.json", #"{"entities": {"Department": {"id": "int", "attributes": {"name": {"type": "string"}}}, "Employee": {"id": "string", "attributes": {"name": {"type": "string"}}, "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}, "manager": {"to": "Employee", "optional": true, "inverse": "reports"}}}, "Project": {"id": "int", "attributes": {"title": {"type": "string"}}, "relationships": {"owner": {"to": "Department", "inverse": "projects", "onDelete": "cascade"}}}}}"#)
        for arguments in [["init", "co", "--schema", "v1.json"], ["schema", "co", "--update", "v2.json"], ["schema", "co", "--update", "v3.json"]] {
            #expect(try box.run(arguments).status == 0)
        }
        let lines = try box.run(["log", "co"]).stdout.split(separator: "\n").filter { $0.contains("schema updated") }
        #expect(lines.map { String($0) } == [
            "  schema updated: + Employee.department relationship to Department optional onDelete nullify, "
                + "+ Employee.manager relationship to Employee optional onDelete nullify, + Department.employees inverse of Employee.department",
            "  schema updated: + entity Project, + Project.owner relationship to Department onDelete cascade, "
                + "+ Employee.reports inverse of Employee.manager, + Department.projects inverse of Project.owner",
        ])
    }

    @Test func queriesCarryPathValues() throws {
        let box = try Sandbox()
        try CompanyStory.full(in: box)
        var t = Transcript()
        try record(box, [
            // Sectioned by a key path, in text: the section of employees without a department has no name.
            ["query", "co", "byDepartment", "--at", "3"],
            ["query", "co", "byDepartment", "--at", "3", "--json"],
            ["query", "co", "byDepartment", "--at", "4"],
            ["query", "co", "byDepartment"],
            // A named view's include, and --include adding to it.
            ["query", "co", "upstairs", "--at", "3", "--json"],
            ["query", "co", "upstairs", "--at", "3", "--include", "department.name, manager.department.name", "--json"],
            ["query", "co", "projects", "--at", "6", "--json"],
            // Ad hoc: a path in --where, --sort, --section and --include; paths in code-point order.
            ["query", "co", "--entity", "Employee", "--where", "department.floor >= 2", "--sort", "department.name desc, name",
             "--include", "manager.name", "--at", "3", "--json"],
            ["query", "co", "--entity", "Employee", "--section", "department.floor", "--sort", "department.floor desc, name", "--at", "3"],
            // Null through a null hop: != is true, nulls sort first.
            ["query", "co", "--entity", "Employee", "--where", "department.name != 'Sales'", "--sort", "department.name, name",
             "--at", "3", "--json"],
            ["query", "co", "--entity", "Employee", "--where", "department == nil", "--at", "3", "--json"],
            ["query", "co", "--entity", "Project", "--where", "owner IN {1, 2}", "--at", "3", "--json"],
            // A view without key paths has no "paths".
            ["query", "co", "--entity", "Employee", "--where", "manager == 'ann'", "--at", "3", "--json"],
        ], into: &t)
        Golden.check("company-query.txt", t.text)
    }

    /// The seeds' cross-process scenario one hop away: `watch` of employees sectioned by `department.name` in one
    /// process; another process renames the department; the watch's batch moves exactly its employees.
    @Test func aWatchSeesAnotherProcessRenameADepartment() throws {
        let box = try Sandbox()
        var ignored = Transcript()
        try CompanyStory.setUp(in: box, transcript: &ignored)
        var t = Transcript()
        let watch = try box.start(["watch", "co", "byDepartment", "--json", "--count", "2"])
        try watch.waitForLines(1)
        t.note("watch printed the view; now other processes append")
        try Stories.record(box, ["append", "co", "update", "Department", "1", "name=Alpha"], into: &t)
        try watch.waitForLines(2)
        // One transaction (so one batch, whatever the timing): a change off the view's paths, and Di re-pointed.
        try Stories.record(box, ["append", "co"], input: #"{"changes": [{"update": "Department", "id": 2, "values": {"floor": 5}}, {"update": "Employee", "id": "di", "values": {"department": 2}}]}"# + "\n", into: &t)
        t.note("the watch:")
        let r = try watch.wait()
        t.record(r)
        let batches = r.stdout.split(separator: "\n").dropFirst()
        #expect(batches.count == 2)
        #expect(batches.first?.contains(#""rows": [{"type": "move", "id": "ann", "from": [3, 0], "to": [1, 0], "changed": ["department.name"]}, {"type": "move", "id": "cy", "from": [3, 1], "to": [1, 1], "changed": ["department.name"]}]"#) == true)
        Golden.check("company-watch.txt", t.text)
    }

    @Test func diffsReportRowsMovedByARelatedObjectBothWays() throws {
        let box = try Sandbox()
        try CompanyStory.full(in: box)
        var t = Transcript()
        t.note("open issue: the text form prints a path's old and new values as null → null (the JSON form is right); this golden changes when it is fixed")
        try record(box, [
            // Sales renamed Alpha: Ann and Cy move with their section, Ops and Research do not move.
            ["diff", "co", "byDepartment", "--from", "3", "--to", "4"],
            ["diff", "co", "byDepartment", "--from", "3", "--to", "4", "--json"],
            ["diff", "co", "byDepartment", "--from", "4", "--to", "3", "--json"],
            // A rename that moves nothing: rows updated with the path in `changed`.
            ["diff", "co", "--entity", "Employee", "--sort", "name", "--include", "department.name", "--from", "3", "--to", "4", "--json"],
            // Ann renamed Anne: her row updated (name), Cy's too (manager.name), through the view's include.
            ["diff", "co", "upstairs", "--from", "4", "--to", "5", "--json"],
            ["diff", "co", "upstairs", "--from", "5", "--to", "4", "--json"],
            // Bob re-pointed to Research: he moves, the Ops section goes; upstairs gains him.
            ["diff", "co", "byDepartment", "--from", "5", "--to", "6", "--json"],
            ["diff", "co", "upstairs", "--from", "5", "--to", "6", "--json"],
            // Research deleted: its employees nullified (to the null section), its projects cascaded.
            ["diff", "co", "byDepartment", "--from", "6", "--to", "7"],
            ["diff", "co", "byDepartment", "--from", "6", "--to", "7", "--json"],
            ["diff", "co", "byDepartment", "--from", "7", "--to", "6", "--json"],
            ["diff", "co", "projects", "--from", "6", "--to", "7", "--json", "--seq"],
            // The whole story at once, both ways.
            ["diff", "co", "byDepartment", "--from", "3", "--to", "9", "--json"],
            ["diff", "co", "byDepartment", "--from", "9", "--to", "3", "--json"],
        ], into: &t)
        Golden.check("company-diff.txt", t.text)
    }
}
