import Foundation
import Testing

/// One refusal of DESIGN §10 through the CLI: it must exit with `status`, print exactly one `error: …` line that
/// contains `mentions` and nothing on standard output, append nothing to the company store `co` (at head 3, see
/// ``CompanyStory/setupLines``) and create or remove no file.
struct RelationshipRefusal: Sendable, CustomTestStringConvertible {
    var name: String
    var arguments: [String]
    var input: String? = nil
    var files: [String: String] = [:]
    var mentions: [String]
    var status: Int32 = 1

    var testDescription: String { name }

    static func append(_ name: String, _ input: String, mentions: [String]) -> RelationshipRefusal {
        RelationshipRefusal(name: name, arguments: ["append", "co"], input: input, mentions: mentions)
    }

    static func run(_ name: String, _ arguments: [String], mentions: [String], files: [String: String] = [:]) -> RelationshipRefusal {
        RelationshipRefusal(name: name, arguments: arguments, files: files, mentions: mentions)
    }

    /// `init new --schema bad.json` with `schema` as the file.
    static func schema(_ name: String, _ schema: String, mentions: [String]) -> RelationshipRefusal {
        RelationshipRefusal(name: name, arguments: ["init", "new", "--schema", "bad.json"], files: ["bad.json": schema],
                            mentions: ["bad.json"] + mentions)
    }

    /// `schema co --update next.json` with company.json changed by `edit` (a JSON text replacement) as the file.
    static func update(_ name: String, replacing old: String, with new: String, mentions: [String]) -> RelationshipRefusal {
        let company = (try? String(contentsOf: CLI.packageRoot.appendingPathComponent("schema/company.json"), encoding: .utf8)) ?? ""
        precondition(company.contains(old), "company.json has no \(old)")
        return RelationshipRefusal(name: name, arguments: ["schema", "co", "--update", "next.json"],
                                   files: ["next.json": company.replacingOccurrences(of: old, with: new)],
                                   mentions: ["next.json"] + mentions)
    }

    static let all: [RelationshipRefusal] = appendCases + queryCases + schemaCases

    /// Integrity, required relationships, id types, inverses, deny, and the rules' consequences in one transaction.
    static let appendCases: [RelationshipRefusal] = [
        append("a relationship naming a missing object",
               #"{"insert": "Department", "id": 4, "values": {"name": "Legal"}}"# + "\n" +
               #"{"insert": "Employee", "id": "fay", "values": {"name": "Fay", "department": 9}}"# + "\n",
               mentions: ["line 2", "insert of Employee \"fay\"", "relationship 'department'", "Department 9", "does not exist"]),
        run("re-pointing to a missing object (shorthand)", ["append", "co", "update", "Employee", "bob", "manager=zed"],
            mentions: ["update of Employee \"bob\"", "relationship 'manager'", "Employee \"zed\""]),
        append("a target inserted by a later line (each line is a transaction)",
               #"{"insert": "Employee", "id": "fay", "values": {"name": "Fay", "department": 4}}"# + "\n" +
               #"{"insert": "Department", "id": 4, "values": {"name": "Legal"}}"# + "\n",
               mentions: ["line 1", "Employee \"fay\"", "Department 4"]),
        append("re-pointing to an object the same transaction deleted",
               #"{"changes": [{"delete": "Department", "id": 2}, {"update": "Employee", "id": "bob", "values": {"department": 2}}]}"# + "\n",
               mentions: ["line 1", "Department 2", "Employee \"bob\"", "'department'"]),
        run("a required relationship set to null", ["append", "co", "update", "Project", "7", "owner:=null"], mentions: ["Project 7", "'owner'", "required"]),
        run("a required relationship missing on insert", ["append", "co", "insert", "Project", "11", "title=Dune"], mentions: ["Project 11", "'owner'"]),
        append("a string for a relationship to int ids", #"{"update": "Employee", "id": "bob", "values": {"department": "1"}}"# + "\n",
               mentions: ["line 1", "relationship 'department'", "id of Department", "an integer", "got a string"]),
        append("an integer for a relationship to string ids", #"{"update": "Employee", "id": "bob", "values": {"manager": 5}}"# + "\n",
               mentions: ["line 1", "relationship 'manager'", "id of Employee", "a string", "got an integer"]),
        run("a word for a relationship to int ids (shorthand)", ["append", "co", "update", "Employee", "bob", "department=Ops"],
            mentions: ["relationship 'department'", "id of Department", "'Ops'"]),
        append("an inverse given as a value", #"{"insert": "Department", "id": 5, "values": {"name": "Legal", "employees": ["ann"]}}"# + "\n",
               mentions: ["line 1", "'employees'"]),
        run("deny (shorthand)", ["append", "co", "delete", "Employee", "cy"],
            mentions: ["delete of Employee \"cy\"", "Project 7", "'reviewer'", "onDelete: deny"]),
        append("deny on the second line",
               #"{"update": "Employee", "id": "di", "values": {"height": 173}}"# + "\n" + #"{"delete": "Employee", "id": "di"}"# + "\n",
               mentions: ["line 2", "delete of Employee \"di\"", "Project 10", "'reviewer'", "deny"]),
        append("an object a cascade deleted earlier in the transaction, updated",
               #"{"changes": [{"delete": "Department", "id": 3}, {"update": "Project", "id": 2, "values": {"title": "Beacon 2"}}]}"# + "\n",
               mentions: ["line 1", "Project 2"]),
        run("import of a delete without its logged consequences", ["import", "co", "in.jsonl"],
            mentions: ["line 1", "Department 3", "Employee \"di\"", "'department'"],
            files: ["in.jsonl": #"{"seq": 4, "time": "2026-11-25T10:00:00.000Z", "author": "x", "changes": [{"op": "delete", "entity": "Department", "id": 3, "previous": {"floor": 3, "name": "Research"}}, {"op": "delete", "entity": "Project", "id": 2, "previous": {"owner": 3, "reviewer": null, "title": "Beacon"}}, {"op": "delete", "entity": "Project", "id": 10, "previous": {"owner": 3, "reviewer": "di", "title": "Atlas"}}]}"# + "\n"]),
    ]

    /// Key paths, checked when the view is made.
    static let queryCases: [RelationshipRefusal] = [
        run("an unknown name on a path", ["query", "co", "--entity", "Employee", "--sort", "department.nme"],
            mentions: ["department.nme", "Department has no attribute or relationship 'nme'"]),
        run("a path through an attribute", ["query", "co", "--entity", "Employee", "--section", "name.first"],
            mentions: ["name.first", "'name' of Employee is an attribute, not a relationship"]),
        run("a path of more than 3 relationships", ["query", "co", "--entity", "Employee", "--where", "manager.manager.manager.department.name == 'x'"],
            mentions: ["manager.manager.manager.department.name", "more than 3 relationships"]),
        run("a to-many relationship on a path", ["query", "co", "--entity", "Employee", "--include", "department.employees"],
            mentions: ["department.employees", "to-many"]),
        run("a type mismatch through a path", ["query", "co", "--entity", "Employee", "--where", "department.name == 1"],
            mentions: ["department.name", "string"]),
        run("a bad --include of diff", ["diff", "co", "byDepartment", "--include", "manager.nope", "--from", "0", "--to", "3"],
            mentions: ["manager.nope", "'nope'"]),
        run("a bad --include of a named view", ["query", "co", "upstairs", "--include", "department.floor.x"],
            mentions: ["department.floor.x", "'floor' of Department is an attribute"]),
        run("a bad --include of watch", ["watch", "co", "--entity", "Project", "--include", "owner.employees.name", "--count", "1"],
            mentions: ["owner.employees.name", "to-many"]),
    ]

    /// The schema file's relationships and views, at `init` and at `schema --update`.
    static let schemaCases: [RelationshipRefusal] = [
        schema("a relationship to an unknown entity", #"{"entities": {"A": {"relationships": {"b": {"to": "Nope"}}}}}"#,
               mentions: ["relationship 'b' of entity 'A'", "unknown entity 'Nope'"]),
        schema("nullify on a required relationship", #"{"entities": {"A": {"relationships": {"b": {"to": "A", "onDelete": "nullify"}}}}}"#,
               mentions: ["relationship 'b' of entity 'A'", "required", "nullify"]),
        schema("an inverse that is an attribute of the target",
               #"{"entities": {"A": {"relationships": {"b": {"to": "B", "optional": true, "inverse": "x"}}}, "B": {"attributes": {"x": "int"}}}}"#,
               mentions: ["inverse 'x'", "of B"]),
        schema("an inverse declared twice",
               #"{"entities": {"A": {"relationships": {"b": {"to": "A", "optional": true, "inverse": "r"}, "c": {"to": "A", "optional": true, "inverse": "r"}}}}}"#,
               mentions: ["inverse 'r'", "twice", "A.b", "A.c"]),
        schema("a name that is an attribute and a relationship",
               #"{"entities": {"A": {"attributes": {"b": "int"}, "relationships": {"b": {"to": "A", "optional": true}}}}}"#,
               mentions: ["entity 'A'", "'b'", "twice"]),
        schema("an unknown delete rule", #"{"entities": {"A": {"relationships": {"b": {"to": "A", "onDelete": "restrict"}}}}}"#,
               mentions: ["relationship 'b' of entity 'A'", "onDelete"]),
        schema("a relationship without a target", #"{"entities": {"A": {"relationships": {"b": {"optional": true}}}}}"#,
               mentions: ["relationship 'b' of entity 'A'", "\"to\""]),
        schema("an unknown key in a relationship", #"{"entities": {"A": {"relationships": {"b": {"to": "A", "weight": 1}}}}}"#,
               mentions: ["relationship 'b' of entity 'A'", "'weight'"]),
        schema("a bad key path in a named view's sort",
               #"{"entities": {"A": {"relationships": {"b": {"to": "A", "optional": true}}}}, "views": {"v": {"entity": "A", "sort": "b.c"}}}"#,
               mentions: ["view 'v'", "b.c", "'c'"]),
        schema("a too long include in a named view",
               #"{"entities": {"A": {"relationships": {"b": {"to": "A", "optional": true}}}}, "views": {"v": {"entity": "A", "include": "b.b.b.b.b"}}}"#,
               mentions: ["view 'v'", "b.b.b.b.b", "more than 3"]),
        schema("a type mismatch through a path in a named view",
               #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "A", "optional": true}}}}, "views": {"v": {"entity": "A", "where": "b.b == 'x'"}}}"#,
               mentions: ["view 'v'", "b.b"]),
        update("a new required relationship", replacing: #""manager":    { "to": "Employee", "optional": true, "inverse": "reports" }"#,
               with: #""manager": { "to": "Employee", "optional": true, "inverse": "reports" }, "mentor": { "to": "Employee", "onDelete": "deny" }"#,
               mentions: ["'mentor'", "required", "nothing appended"]),
        update("a changed delete rule", replacing: #""inverse": "employees", "onDelete": "nullify""#,
               with: #""inverse": "employees", "onDelete": "cascade""#, mentions: ["'department'", "changed"]),
        update("a removed inverse", replacing: #""inverse": "employees", "#, with: "", mentions: ["'department'", "changed"]),
        update("a relationship made required", replacing: #""manager":    { "to": "Employee", "optional": true, "inverse": "reports" }"#,
               with: #""manager": { "to": "Employee", "inverse": "reports", "onDelete": "deny" }"#, mentions: ["'manager'", "changed"]),
    ]
}

@Suite struct RelationshipBadInputTests {
    /// The company store `co` at head 3, built once per test run and copied into each case's sandbox, with its log.
    struct Template: Sendable {
        let box: Sandbox
        let log: String
    }

    static let template: Result<Template, CLIHarnessError> = {
        do {
            let box = try Sandbox(template: true)
            try box.exampleSchema("company.json")
            guard try box.run(["init", "co", "--schema", "company.json"]).status == 0,
                  try box.run(["append", "co"], input: CompanyStory.setupLines).status == 0 else {
                return .failure(CLIHarnessError("cannot build the company store"))
            }
            return .success(Template(box: box, log: try box.run(["log", "co", "--json"]).stdout))
        } catch {
            return .failure(CLIHarnessError("cannot build the company store: \(error)"))
        }
    }()

    @Test(arguments: RelationshipRefusal.all)
    func refused(_ c: RelationshipRefusal) throws {
        let box = try Sandbox()
        let template = try Self.template.get()
        try box.copyContents(of: template.box)
        for (name, text) in c.files { try box.write(name, text) }
        let filesBefore = try BadInputTests.listing(box)

        let r = try box.run(c.arguments, input: c.input)

        #expect(r.status == c.status, "exit status \(r.status), stderr: \(r.stderr)")
        #expect(r.stdout.isEmpty, "printed on standard output: \(r.stdout)")
        #expect(r.errorLines.count == 1 && r.stderr.hasSuffix("\n"), "not exactly one line on stderr: \(r.stderr.debugDescription)")
        if let line = r.errorLines.first {
            #expect(line.hasPrefix("error: "), "\(line)")
            for m in c.mentions { #expect(line.contains(m), "the error does not mention \(m.debugDescription): \(line)") }
        }
        #expect(try box.run(["log", "co", "--json"]).stdout == template.log, "the log changed")
        #expect(try BadInputTests.listing(box) == filesBefore, "files were created or removed")
        #expect(try box.run(["verify", "co"]).status == 0)
    }

    /// Every message in one golden file, to review their wording.
    @Test func errorMessagesGolden() throws {
        let box = try Sandbox()
        try box.copyContents(of: try Self.template.get().box)
        var t = Transcript()
        for c in RelationshipRefusal.all {
            for (name, text) in c.files { try box.write(name, text) }
            t.note(c.name)
            t.record(try box.run(c.arguments, input: c.input))
            for name in c.files.keys { try? FileManager.default.removeItem(atPath: box.file(name)) }
        }
        Golden.check("company-errors.txt", t.text)
    }
}
