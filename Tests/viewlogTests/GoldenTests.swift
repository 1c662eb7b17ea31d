import Foundation
import Testing

/// Golden tests: the human and `--json` output of every command on the example schemas, pinned exactly
/// (DESIGN §7). Review a changed golden by eye against the contract before committing it.
@Suite struct GoldenTests {
    /// Records each run (successful or not: the golden pins the status too).
    func record(_ box: Sandbox, _ runs: [[String]], into t: inout Transcript) throws {
        for arguments in runs { t.record(try box.run(arguments)) }
    }

    @Test func employeesAppendAndLog() throws {
        let box = try Sandbox()
        var t = Transcript()
        try Stories.employees(in: box, transcript: &t)
        try record(box, [
            ["log", "shop"],
            ["log", "shop", "--json"],
            ["log", "shop", "--from", "3", "--to", "5"],
            ["log", "shop", "--from", "3", "--to", "5", "--json"],
            ["log", "shop", "--from", "10"],
            ["log", "shop", "--to", "0", "--json"],
        ], into: &t)
        // Ids and values that could be misread are quoted in human output (and exact in JSON).
        try Stories.record(box, ["append", "shop"], input: #"{"insert": "Employee", "id": "a b\nc", "values": {"name": " Zed", "height": 199, "sectionName": "null"}}"# + "\n", into: &t)
        try record(box, [
            ["log", "shop", "--from", "10"],
            ["log", "shop", "--from", "10", "--json"],
            ["query", "shop", "tall", "--at", "11"],
            ["diff", "shop", "tall", "--from", "10", "--to", "11"],
            ["get", "shop", "Employee", "a b\nc"],
        ], into: &t)
        Golden.check("employees-append-log.txt", t.text)
    }

    @Test func employeesGet() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        var t = Transcript()
        try record(box, [
            ["get", "shop", "Employee", "e1"],
            ["get", "shop", "Employee", "e1", "--json"],
            ["get", "shop", "Employee", "e1", "--at", "5"],
            ["get", "shop", "Employee", "e1", "--at", "1", "--json"],
            ["get", "shop", "Employee", "e3", "--json"],
            ["get", "shop", "Employee", "e5", "--at", "4", "--json"],
            ["get", "shop", "Employee", "e5"],
            ["get", "shop", "Employee", "e5", "--json"],
            ["get", "shop", "Employee", "e7", "--at", "8"],
        ], into: &t)
        Golden.check("employees-get.txt", t.text)
    }

    @Test func employeesQuery() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        var t = Transcript()
        try record(box, [
            ["query", "shop", "tall"],
            ["query", "shop", "tall", "--json"],
            ["query", "shop", "tall", "--at", "3"],
            ["query", "shop", "tall", "--at", "5", "--json"],
            ["query", "shop", "tall", "--at", "0"],
            ["query", "shop", "tall", "--at", "0", "--json"],
            ["query", "shop", "active"],
            ["query", "shop", "active", "--json"],
            ["query", "shop", "topEarners"],
            ["query", "shop", "topEarners", "--json"],
            ["query", "shop", "topEarners", "--offset", "1", "--limit", "2", "--json"],
            ["query", "shop", "tall", "--limit", "2", "--offset", "1"],
            ["query", "shop", "--entity", "Employee"],
            ["query", "shop", "--entity", "Employee", "--where", "height > $min AND active == YES", "--var", "min=170",
             "--sort", "height desc", "--json"],
            ["query", "shop", "--entity", "Employee", "--section", "active", "--sort", "active desc, name"],
            ["query", "shop", "--entity", "Employee", "--where", "name BEGINSWITH[c] 'b' OR name == \"Gus\"", "--sort", "name",
             "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "hired != nil", "--sort", "hired desc"],
            ["query", "shop", "--entity", "Employee", "--where", "hired > $t", "--var", "t=2024-06-01T00:00:00Z", "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "height == nil", "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "name IN {'Ann', \"Gus\"} AND salary BETWEEN {5000, 7000}", "--json"],
            ["query", "shop", "--entity", "Employee", "--section", "sectionName", "--sort", "sectionName desc, name",
             "--limit", "3", "--offset", "1", "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "salary > 6000", "--sort", "salary", "--at", "5", "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "FALSEPREDICATE"],
            ["query", "shop", "--entity", "Employee", "--where", "FALSEPREDICATE", "--json"],
        ], into: &t)
        Golden.check("employees-query.txt", t.text)
    }

    @Test func employeesDiff() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        var t = Transcript()
        try record(box, [
            // sections A,B -> B,C,D: a section delete and inserts, a move with `changed`, inserts and a delete
            ["diff", "shop", "tall", "--from", "3", "--to", "10"],
            ["diff", "shop", "tall", "--from", "3", "--to", "10", "--json"],
            // a move across sections, deletes, an update in place, an insert in a new section
            ["diff", "shop", "tall", "--from", "5", "--to", "9"],
            ["diff", "shop", "tall", "--from", "5", "--to", "9", "--json"],
            ["diff", "shop", "tall", "--from", "5", "--to", "9", "--json", "--seq"],
            // backwards
            ["diff", "shop", "tall", "--from", "10", "--to", "3"],
            ["diff", "shop", "tall", "--from", "10", "--to", "3", "--json"],
            ["diff", "shop", "tall", "--from", "10", "--to", "0", "--json"],
            // no change
            ["diff", "shop", "tall", "--from", "4", "--to", "4"],
            ["diff", "shop", "tall", "--from", "4", "--to", "4", "--json"],
            // unsectioned views, a limit window, ad hoc
            ["diff", "shop", "active", "--from", "0", "--to", "10"],
            ["diff", "shop", "active", "--from", "4", "--to", "10", "--json"],
            ["diff", "shop", "topEarners", "--from", "4", "--to", "10"],
            ["diff", "shop", "topEarners", "--from", "4", "--to", "10", "--json"],
            ["diff", "shop", "--entity", "Employee", "--where", "salary > $s", "--var", "s=0", "--sort", "salary desc",
             "--from", "4", "--to", "9", "--json"],
            ["diff", "shop", "--entity", "Employee", "--section", "active", "--sort", "name", "--from", "6", "--to", "7"],
            ["diff", "shop", "--entity", "Employee", "--section", "active", "--sort", "name", "--from", "6", "--to", "7", "--json"],
        ], into: &t)
        Golden.check("employees-diff.txt", t.text)
    }

    /// `watch`: the view first, then a change set per batch, also for transactions appended by another process
    /// while it runs; a transaction that does not change the view prints nothing.
    @Test func employeesWatch() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        var t = Transcript()

        let json = try box.start(["watch", "shop", "tall", "--json", "--count", "2"])
        try json.waitForLines(1)
        t.note("watch printed the view; now other processes append")
        try Stories.record(box, ["append", "shop", "update", "Employee", "e3", "name=Cyd"], into: &t)  // not in the view
        try Stories.record(box, ["append", "shop", "update", "Employee", "e4", "height=181"], into: &t)
        try json.waitForLines(2)
        try Stories.record(box, ["append", "shop"], input: """
            {"author": "sync", "changes": [{"update": "Employee", "id": "e7", "values": {"sectionName": "A"}}, {"delete": "Employee", "id": "e6"}]}

            """, into: &t)
        t.note("the watch:")
        t.record(try json.wait())

        let initialLines = try box.run(["query", "shop", "tall"]).stdout.split(separator: "\n").count
        let human = try box.start(["watch", "shop", "tall", "--count", "1"])
        try human.waitForLines(initialLines)
        t.note("watch printed the view (\(initialLines) lines); now another process appends")
        try Stories.record(box, ["append", "shop", "update", "Employee", "e1", "height=150"], into: &t)
        t.note("the watch:")
        t.record(try human.wait())

        let zero = try box.run(["watch", "shop", "--entity", "Employee", "--where", "active == NO", "--json", "--count", "0"])
        t.record(zero)
        Golden.check("employees-watch.txt", t.text)
    }

    @Test func employeesAdministration() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        var t = Transcript()
        try record(box, [
            ["verify", "shop"], ["verify", "shop", "--json"],
            ["stats", "shop"], ["stats", "shop", "--json"],
            ["views", "shop"], ["views", "shop", "--json"],
            ["schema", "shop"],
            ["export", "shop"],
        ], into: &t)

        try box.write("shop.jsonl", try box.run(["export", "shop"]).stdout)
        try box.exampleSchema("authors.json")
        try record(box, [
            ["init", "copy", "--schema", "employees.json"],
            ["import", "copy", "shop.jsonl"],
            ["verify", "copy"],
            ["replay", "shop", "--into", "at5", "--to", "5"],
            ["verify", "at5"],
            ["query", "at5", "tall", "--json"],
            ["replay", "shop", "--into", "full"],
            ["log", "full", "--from", "9"],
        ], into: &t)

        try box.write("employees-v2.json", Stories.employeesV2)
        try record(box, [
            ["schema", "shop", "--update", "employees-v2.json"],
            ["schema", "shop", "--update", "employees-v2.json"],
            ["schema", "shop"],
            ["schema", "shop", "--at", "10"],
            ["views", "shop"],
            ["views", "shop", "--json"],
            ["log", "shop", "--from", "10"],
            ["log", "shop", "--from", "10", "--json"],
            ["append", "shop", "update", "Employee", "e1", "nick=Annie", "level=3"],
            ["append", "shop", "insert", "Employee", "e8", "name=Hal", "height=171"],
            ["get", "shop", "Employee", "e2", "--json"],
            ["get", "shop", "Employee", "e2", "--at", "10", "--json"],
            ["query", "shop", "seniors", "--json"],
            ["query", "shop", "--entity", "Employee", "--where", "nick != nil"],
            ["query", "shop", "--entity", "Employee", "--where", "nick == nil AND level == 1", "--sort", "name"],
            ["query", "shop", "tall", "--json"],
            ["query", "shop", "tall", "--at", "10", "--json"],
            ["export", "shop"],
            ["replay", "shop", "--into", "before", "--to", "10"],
            ["schema", "before"],
            ["replay", "shop", "--into", "after", "--to", "11"],
            ["schema", "after"],
            ["verify", "shop"],
        ], into: &t)
        Golden.check("employees-administration.txt", t.text)
    }

    /// DESIGN §13, "Backup": the copy names its position, verifies, reads and appends as any store; a destination
    /// that exists and a missing store are errors that write nothing.
    @Test func employeesBackup() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        try box.write("taken", "")
        var t = Transcript()
        try record(box, [
            ["backup", "shop", "copy"],
            ["backup", "shop", "small", "--compact", "--json"],
            ["verify", "copy"],
            ["verify", "small", "--json"],
            ["log", "small", "--from", "9"],
            ["query", "copy", "tall", "--json"],
            ["append", "shop", "delete", "Employee", "e1"],
            ["get", "copy", "Employee", "e1", "--json"],
            ["append", "copy", "update", "Employee", "e1", "height=150"],
            ["backup", "shop", "copy"],
            ["backup", "shop", "taken", "--json"],
            ["backup", "nowhere", "other"],
            ["backup", "shop", "no/such/dir"],
            ["stats", "other"],
        ], into: &t)
        Golden.check("employees-backup.txt", t.text)
    }

    /// DESIGN §13, "Horizon and compaction": answers at and above the horizon are as before, positions below it
    /// are refused naming it, `log` starts after it, `stats` and `verify` show it; a target at or below it changes
    /// nothing; bad options are errors that change nothing.
    @Test func employeesCompact() throws {
        var t = Transcript()
        let box = try Sandbox()
        try Stories.employees(in: box)
        try record(box, [
            ["stats", "shop", "--json"],
            ["query", "shop", "tall", "--at", "6", "--json"],
            ["diff", "shop", "tall", "--from", "6", "--to", "10", "--json"],
            ["compact", "shop", "--before", "6"],
            ["query", "shop", "tall", "--at", "6", "--json"],
            ["diff", "shop", "tall", "--from", "6", "--to", "10", "--json"],
            ["query", "shop", "tall", "--at", "5"],
            ["get", "shop", "Employee", "e1", "--at", "2", "--json"],
            ["diff", "shop", "tall", "--from", "4", "--to", "10"],
            ["log", "shop"],
            ["log", "shop", "--from", "3"],
            ["replay", "shop", "--into", "old", "--to", "4"],
            ["stats", "shop", "--json"],
            ["stats", "shop"],
            ["verify", "shop"],
            ["compact", "shop", "--before", "6"],
            ["compact", "shop", "--before", "2", "--json"],
            ["compact", "shop", "--keep-for", "36500d"],
            ["compact", "shop", "--keep-last", "2", "--json"],
            ["verify", "shop", "--json"],
            ["log", "shop", "--json"],
            ["export", "shop"],
        ], into: &t)
        // The export of a compacted store imported into an empty store, and a replay: the same horizon and log.
        try box.write("shop.jsonl", try box.run(["export", "shop"]).stdout)
        try box.write("late.jsonl", try box.run(["export", "shop"]).stdout.split(separator: "\n").dropFirst().joined(separator: "\n") + "\n")
        try record(box, [
            ["init", "copy", "--schema", "employees.json"],
            ["import", "copy", "shop.jsonl"],
            ["stats", "copy", "--json"],
            ["log", "copy", "--json"],
            ["query", "copy", "tall", "--at", "8", "--json"],
            ["verify", "copy"],
            ["import", "copy", "shop.jsonl"],
            ["init", "other", "--schema", "employees.json"],
            ["import", "other", "late.jsonl"],
            ["replay", "shop", "--into", "rebuilt"],
            ["stats", "rebuilt", "--json"],
            ["replay", "shop", "--into", "early", "--to", "7"],
            ["compact", "shop"],
            ["compact", "shop", "--before", "3", "--keep-last", "2"],
            ["compact", "shop", "--keep-for", "30x"],
            ["compact", "shop", "--keep-for", "0d"],
            ["compact", "shop", "--before", "99"],
            ["compact", "nowhere", "--before", "1"],
            ["stats", "shop", "--json"],
        ], into: &t)
        Golden.check("employees-compact.txt", t.text)
    }

    /// Migrations (DESIGN §13): each step, each refusal (nothing appended), the log entry, history before it, `diff`
    /// across it, export/import and replay of it.
    @Test func employeesMigrate() throws {
        var t = Transcript()
        let box = try Sandbox()
        try Stories.employees(in: box)
        let files: [(String, String)] = [
            ("rename.json", #"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}]"#),
            ("types.json", #"[{"changeType": {"entity": "Employee", "attribute": "heightCm", "to": "double"}}, {"makeRequired": {"entity": "Employee", "attribute": "hired", "default": "2026-01-01T00:00:00.000Z"}}]"#),
            ("views.json", #"[{"setView": {"name": "short", "view": {"entity": "Employee", "where": "heightCm < 175", "sort": "name"}}}, {"removeView": "topEarners"}]"#),
            ("entity.json", #"[{"renameEntity": {"from": "Employee", "to": "Person"}}, {"removeAttribute": {"entity": "Person", "name": "hired"}}]"#),
            ("not-json.json", "[{"),
            ("empty.json", "[]"),
            ("unknown-step.json", #"[{"dropColumn": {"entity": "Employee"}}]"#),
            ("unknown-attribute.json", #"[{"renameAttribute": {"entity": "Employee", "from": "nope", "to": "x"}}]"#),
            ("duplicate.json", #"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "name"}}]"#),
            ("bad-type.json", #"[{"changeType": {"entity": "Employee", "attribute": "height", "to": "float"}}]"#),
            ("no-conversion.json", #"[{"changeType": {"entity": "Employee", "attribute": "active", "to": "date"}}]"#),
            ("not-integral.json", #"[{"changeType": {"entity": "Employee", "attribute": "salary", "to": "int"}}, {"setView": {"name": "topEarners", "view": {"entity": "Employee", "sort": "salary desc, name", "limit": 3}}}]"#),
            ("not-parsed.json", #"[{"changeType": {"entity": "Employee", "attribute": "name", "to": "int"}}]"#),
            ("breaks-view.json", #"[{"removeAttribute": {"entity": "Employee", "name": "height"}}]"#),
        ]
        for (name, text) in files { try box.write(name, text + "\n") }
        try record(box, [
            ["schema", "shop", "--migrate", "not-json.json"],
            ["schema", "shop", "--migrate", "empty.json"],
            ["schema", "shop", "--migrate", "unknown-step.json"],
            ["schema", "shop", "--migrate", "unknown-attribute.json"],
            ["schema", "shop", "--migrate", "duplicate.json"],
            ["schema", "shop", "--migrate", "bad-type.json"],
            ["schema", "shop", "--migrate", "no-conversion.json"],
            ["schema", "shop", "--migrate", "not-integral.json"],
            ["schema", "shop", "--migrate", "not-parsed.json"],
            ["schema", "shop", "--migrate", "breaks-view.json"],
            ["schema", "shop", "--migrate", "rename.json", "--at", "3"],
            ["log", "shop", "--from", "9"],
            ["schema", "shop", "--migrate", "rename.json"],
            ["schema", "shop", "--migrate", "types.json"],
            ["schema", "shop", "--migrate", "views.json"],
            ["log", "shop", "--from", "10"],
            ["log", "shop", "--from", "10", "--to", "11", "--json"],
            ["views", "shop"],
            ["get", "shop", "Employee", "e1", "--at", "10", "--json"],
            ["get", "shop", "Employee", "e1", "--json"],
            ["query", "shop", "tall", "--at", "10"],
            ["query", "shop", "tall"],
            ["diff", "shop", "tall", "--from", "10", "--to", "11", "--json"],
            ["diff", "shop", "tall", "--from", "10", "--to", "12", "--json"],
            ["diff", "shop", "tall", "--from", "12", "--to", "9"],
            ["query", "shop", "short"],
            ["query", "shop", "topEarners", "--at", "13"],
            ["schema", "shop", "--migrate", "entity.json"],
            ["get", "shop", "Person", "e1", "--json"],
            ["get", "shop", "Employee", "e1", "--at", "13", "--json"],
            ["verify", "shop"],
        ], into: &t)
        try box.write("shop.jsonl", try box.run(["export", "shop"]).stdout)
        try record(box, [
            ["init", "copy", "--schema", "employees.json"],
            ["import", "copy", "shop.jsonl"],
            ["verify", "copy"],
            ["replay", "shop", "--into", "rebuilt"],
            ["verify", "rebuilt"],
            ["log", "rebuilt", "--from", "13"],
        ], into: &t)
        Golden.check("employees-migrate.txt", t.text)
    }

    @Test func authors() throws {
        let box = try Sandbox()
        var t = Transcript()
        try Stories.authors(in: box, transcript: &t)
        try record(box, [
            ["log", "lib"],
            ["log", "lib", "--json"],
            ["get", "lib", "Author", "2"],
            ["get", "lib", "Author", "2", "--json"],
            ["get", "lib", "Author", "-3", "--json"],
            ["get", "lib", "Author", "-3"],
            ["append", "lib", "update", "Author", "-3", "books=10"],
            ["get", "lib", "Author", "1", "--at", "6", "--json"],
            ["query", "lib", "wAuthors"],
            ["query", "lib", "wAuthors", "--json"],
            ["query", "lib", "byInitial", "--at", "3", "--json"],
            ["query", "lib", "--entity", "Author", "--where", "books >= $n", "--var", "n=9", "--sort", "books desc, lastName"],
            ["query", "lib", "--entity", "Author", "--section", "books", "--sort", "books", "--json"],
            ["query", "lib", "--entity", "Author", "--where", "born < $d", "--var", "d=1900-01-01T00:00:00Z", "--json"],
            ["diff", "lib", "wAuthors", "--from", "3", "--to", "7"],
            ["diff", "lib", "wAuthors", "--from", "3", "--to", "7", "--json"],
            ["diff", "lib", "byInitial", "--from", "7", "--to", "2", "--json"],
            ["export", "lib"],
            ["views", "lib"],
            ["stats", "lib", "--json"],
            ["verify", "lib", "--json"],
        ], into: &t)
        Golden.check("authors.txt", t.text)
    }

    @Test func testDummies() throws {
        let box = try Sandbox()
        var t = Transcript()
        try Stories.dummies(in: box, transcript: &t)
        try record(box, [
            ["log", "td"],
            ["log", "td", "--json"],
            ["query", "td", "evens"],
            ["query", "td", "evens", "--json"],
            ["query", "td", "--entity", "TestDummy", "--section", "isEven", "--sort", "isEven desc, value desc"],
            ["query", "td", "--entity", "TestDummy", "--where", "label CONTAINS ' '", "--json"],
            ["diff", "td", "evens", "--from", "5", "--to", "7"],
            ["diff", "td", "evens", "--from", "5", "--to", "7", "--json"],
            ["get", "td", "TestDummy", "3"],
        ], into: &t)
        Golden.check("testdummy.txt", t.text)
    }

    /// `viewlog --help` and every subcommand's help, so the examples in them are reviewed too.
    @Test func help() throws {
        let box = try Sandbox()
        var t = Transcript()
        t.record(try box.run(["--help"]))
        for command in ["init", "append", "log", "get", "query", "diff", "watch", "verify", "stats", "export", "import",
                        "replay", "backup", "compact", "schema", "views", "checkpoints"] {
            t.record(try box.run(["help", command]))
        }
        Golden.check("help.txt", t.text)
    }

    /// The canary: the harness must catch a changed, missing or extra line, also one hidden by normalisation.
    @Test func canary() throws {
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.run(["init", "shop", "--schema", "employees.json"])
        var t = Transcript()
        t.record(try box.run(["append", "shop", "insert", "Employee", "e1", "name=Ann"]))
        t.record(try box.run(["log", "shop", "--json"]))
        Golden.check("canary.txt", t.text)
        guard let stored = Golden.stored("canary.txt") else { return }
        #expect(Golden.mismatch(expected: stored, actual: t.text) == nil)
        #expect(Golden.mismatch(expected: stored, actual: t.text.replacingOccurrences(of: "Ann", with: "Anne")) != nil)
        #expect(Golden.mismatch(expected: stored, actual: t.text + "\n") != nil)
        #expect(Golden.mismatch(expected: stored, actual: String(t.text.dropLast())) != nil)
        #expect(Golden.mismatch(expected: stored, actual: t.text.replacingOccurrences(of: "\"seq\": 1", with: "\"seq\": 2")) != nil)
        // A second, different run must not match: the output really comes from the binary.
        t.record(try box.run(["append", "shop", "insert", "Employee", "e2", "name=Bob"]))
        #expect(Golden.mismatch(expected: stored, actual: t.text) != nil)
        // Normalisation replaces only commit times, not dates in values.
        #expect(Normalise.times(#"{"time": "2026-01-01T00:00:00.000Z", "hired": "2026-01-01T00:00:00.000Z"}"#)
                == #"{"time": "<time>", "hired": "2026-01-01T00:00:00.000Z"}"#)
        #expect(Normalise.times("seq 12  2026-01-01T00:00:00.000Z  cli\n  + x hired=2026-01-01T00:00:00.000Z")
                == "seq 12  <time>  cli\n  + x hired=2026-01-01T00:00:00.000Z")
    }
}

extension Stories {
    /// employees.json, version 2: an optional attribute, a defaulted attribute and a view added.
    static let employeesV2 = """
        {
          "entities": {
            "Employee": {
              "id": "string",
              "attributes": {
                "name":        { "type": "string" },
                "height":      { "type": "int", "optional": true },
                "sectionName": { "type": "string", "default": "" },
                "salary":      { "type": "double", "default": 0 },
                "active":      { "type": "bool", "default": true },
                "hired":       { "type": "date", "optional": true },
                "nick":        { "type": "string", "optional": true },
                "level":       { "type": "int", "default": 1 }
              }
            }
          },
          "views": {
            "tall": { "entity": "Employee", "where": "height > 170",
                      "sort": "sectionName, height desc, name", "section": "sectionName" },
            "active": { "entity": "Employee", "where": "active == YES", "sort": "name" },
            "topEarners": { "entity": "Employee", "sort": "salary desc, name", "limit": 3 },
            "seniors": { "entity": "Employee", "where": "level >= 2", "sort": "level desc, name", "section": "level" }
          }
        }

        """
}
