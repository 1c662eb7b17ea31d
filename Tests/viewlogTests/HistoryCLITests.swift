import Foundation
import Testing

/// Golden tests of the history commands (DESIGN §14) on the company story: changes by predicate (key paths,
/// aggregates, `max`) and `append --dry-run`, with the refusals of bad forms — each an `error:` line that appends
/// nothing.
@Suite struct HistoryCLITests {
    /// Records a refusal and checks what every refusal must do: exit 1, one `error:` line, nothing appended.
    static func refused(_ box: Sandbox, _ arguments: [String], input: String?, mentions: [String], into t: inout Transcript,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let head = try box.run(["log", "co", "--json"]).stdout
        let r = try box.run(arguments, input: input)
        t.record(r)
        #expect(r.status == 1 && r.stdout.isEmpty && r.errorLines.count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        for m in mentions { #expect(r.stderr.contains(m), "\(r.stderr) does not mention \(m)", sourceLocation: sourceLocation) }
        #expect(try box.run(["log", "co", "--json"]).stdout == head, "a refusal appended", sourceLocation: sourceLocation)
    }

    @Test func changesByPredicateAndDryRuns() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        func run(_ arguments: [String], input: String? = nil) throws { t.record(try box.run(arguments, input: input)) }
        func refused(_ arguments: [String], input: String, mentions: [String]) throws {
            try Self.refused(box, arguments, input: input, mentions: mentions, into: &t)
        }
        t.note("a dry run prints what the append would log, with \"seq\": null, and appends nothing")
        let raise = #"{"update": "Employee", "where": "department.name == 'Sales' AND height != nil", "values": {"salary": 5000}}"# + "\n"
        try run(["append", "co", "--dry-run"], input: raise)
        try run(["log", "co", "--from", "3"])
        try run(["append", "co"], input: raise)
        try run(["log", "co", "--from", "3", "--json"])
        t.note("a form that matches nothing appends nothing: - (null in --json); the other lines still append")
        try run(["append", "co", "--json"], input: #"{"delete": "Employee", "where": "height > 250"}"# + "\n"
                + #"{"update": "Department", "where": "employees.@count >= 2", "values": {"floor": 9}}"# + "\n")
        t.note("delete rules apply to each delete of a form: Research's projects are cascaded, Di's department nullified")
        try run(["append", "co", "--dry-run"], input: #"{"delete": "Department", "where": "ANY employees.height > 170 AND floor == 3"}"# + "\n")
        t.note("max refuses when more objects match; bad forms are named")
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "name != nil", "max": 2}"# + "\n",
                    mentions: ["line 1", "5 objects match", "max 2", "nothing appended"])
        try refused(["append", "co", "--dry-run"], input: #"{"delete": "Employee", "where": "name != nil", "max": 2}"# + "\n",
                    mentions: ["5 objects match"])
        try refused(["append", "co"], input: #"{"update": "Employee", "where": "id == 'ann'", "values": {"height": 1}}"# + "\n",
                    mentions: ["line 1", "'id'"])
        try refused(["append", "co"], input: #"{"update": "Employee", "id": "ann", "where": "height > 1", "values": {"height": 1}}"# + "\n",
                    mentions: ["either \"id\" or \"where\""])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height >"}"# + "\n", mentions: ["line 1"])
        try refused(["append", "co"], input: #"{"update": "Employee", "where": "height > 1", "values": {"height": "tall"}}"# + "\n",
                    mentions: ["line 1", "height"])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height > $min"}"# + "\n", mentions: ["$min"])
        try refused(["append", "co"], input: #"{"insert": "Employee", "where": "height > 1", "values": {"name": "X"}}"# + "\n",
                    mentions: ["insert"])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height > 1", "max": -1}"# + "\n", mentions: ["max"])
        try run(["verify", "co"])
        Golden.check("company-history.txt", t.text)
    }
}

extension HistoryCLITests {
    /// `revert`, `undo` and `redo`: each a separate process, so the history is the log's; a revert of a delete with
    /// its rules' consequences restores them; conflicts and bad requests are refused and append nothing; `export` and
    /// `import` keep `reverts`.
    @Test func revertUndoAndRedo() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        func run(_ arguments: [String], input: String? = nil) throws { t.record(try box.run(arguments, input: input)) }
        func refused(_ arguments: [String], mentions: [String]) throws {
            try Self.refused(box, arguments, input: nil, mentions: mentions, into: &t)
        }
        t.note("Research is deleted (Di's department nullified, Atlas and Beacon cascaded); the revert restores all of it")
        try run(["append", "co", "--author", "hr", "delete", "Department", "3"])
        try run(["revert", "co", "4", "--author", "hr", "--json"])
        try run(["log", "co", "--from", "4"])
        try run(["query", "co", "--entity", "Project", "--sort", "id"])
        t.note("undo and redo by author, each in its own process: the history is read from the log")
        try run(["append", "co", "--author", "ann", "update", "Employee", "ann", "height=181"])
        try run(["append", "co", "--author", "bob", "update", "Employee", "bob", "height=166"])
        try run(["undo", "co", "--author", "ann"])
        try run(["get", "co", "Employee", "ann"])
        try run(["redo", "co", "--author", "ann", "--json"])
        try refused(["redo", "co", "--author", "ann"], mentions: ["ann has nothing to redo"])
        try run(["undo", "co", "--author", "ann"])
        try run(["undo", "co", "--author", "bob"])
        try refused(["undo", "co", "--author", "nobody"], mentions: ["nobody has nothing to undo"])
        t.note("a later change of what a revert sets back refuses it, naming the object, the attribute and the seq")
        try run(["append", "co", "update", "Employee", "di", "height=173"])
        try run(["append", "co", "update", "Employee", "di", "height=174"])
        try refused(["revert", "co", "12"], mentions: ["Employee \"di\"", "'height'", "seq 13"])
        try run(["revert", "co", "13", "12"])
        try refused(["revert", "co", "99"], mentions: ["no transaction 99"])
        try refused(["revert", "co", "1"], mentions: ["Department 3", "seq 4"])
        try run(["log", "co", "--from", "13", "--json"])
        t.note("a schema change cannot be reverted")
        var schema = try String(contentsOfFile: box.file("company.json"), encoding: .utf8)
        schema = schema.replacingOccurrences(of: #""title": { "type": "string" }"#,
                                             with: #""title": { "type": "string" }, "budget": { "type": "int", "optional": true }"#)
        try box.write("company2.json", schema)
        try run(["schema", "co", "--update", "company2.json"])
        try refused(["revert", "co", "15"], mentions: ["15", "schema"])
        try run(["verify", "co"])
        t.note("export and import keep what each transaction reverts")
        try box.write("co.jsonl", try box.run(["export", "co"]).stdout)
        try run(["init", "copy", "--schema", "company.json"])
        try run(["import", "copy", "co.jsonl"])
        try run(["verify", "copy"])
        #expect(try box.run(["export", "copy"]).stdout == box.run(["export", "co"]).stdout)
        Golden.check("company-revert.txt", t.text)
    }
}

extension HistoryCLITests {
    /// `query --with FILE` and `diff --from P --with FILE` (at `--at` too): the view and the change set as they would be
    /// after appending FILE, nothing appended; a bad FILE named by line.
    @Test func whatIf() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        func run(_ arguments: [String]) throws { t.record(try box.run(arguments)) }
        try box.write("plan.jsonl", """
            {"update": "Employee", "where": "department.name == 'Sales'", "values": {"height": 190}}
            {"insert": "Employee", "id": "fay", "values": {"name": "Fay", "height": 185, "department": 2}}
            {"delete": "Department", "id": 3}

            """)
        try box.write("bad.jsonl", """
            {"insert": "Employee", "id": "gus", "values": {"name": "Gus"}}
            {"update": "Employee", "id": "nobody", "values": {"height": 1}}

            """)
        let head = try box.run(["log", "co", "--json"]).stdout
        try run(["query", "co", "--entity", "Employee", "--sort", "height desc, name", "--with", "plan.jsonl"])
        try run(["diff", "co", "--entity", "Employee", "--where", "height > 170", "--sort", "name", "--from", "2", "--with", "plan.jsonl"])
        try run(["diff", "co", "--entity", "Employee", "--sort", "name", "--from", "1", "--at", "2", "--with", "plan.jsonl", "--json"])
        try run(["query", "co", "--entity", "Project", "--with", "plan.jsonl", "--json"])
        try run(["query", "co", "--entity", "Employee", "--with", "bad.jsonl"])
        try run(["diff", "co", "--entity", "Employee", "--from", "1", "--to", "2", "--with", "plan.jsonl"])
        #expect(try box.run(["log", "co", "--json"]).stdout == head, "a what-if appended")
        Golden.check("company-what-if.txt", t.text)
    }
}
