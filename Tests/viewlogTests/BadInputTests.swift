import Foundation
import Testing

/// One refused command (DESIGN §7): it must exit non-zero with exactly one `error: …` line on
/// standard error that contains `mentions` (the input line, the attribute, the id …), print nothing on standard
/// output, and leave every store and the directory as they were.
struct BadInput: Sendable, CustomTestStringConvertible {
    enum Store: Sendable { case employees, authors }

    var name: String
    var store: Store = .employees
    var arguments: [String]
    var input: String? = nil
    var files: [String: String] = [:]
    var mentions: [String]
    /// 1 for runtime errors (bad input, missing objects, …), 64 for usage errors of the command line.
    var status: Int32 = 1

    var testDescription: String { name }

    /// The store name the case runs against.
    var storeName: String { store == .employees ? "shop" : "lib" }
}

extension BadInput {
    static func append(_ name: String, _ input: String, mentions: [String], store: Store = .employees) -> BadInput {
        BadInput(name: name, store: store, arguments: ["append", store == .employees ? "shop" : "lib"], input: input,
                 mentions: mentions)
    }

    static func shorthand(_ name: String, _ words: String, mentions: [String], store: Store = .employees) -> BadInput {
        BadInput(name: name, store: store,
                 arguments: ["append", store == .employees ? "shop" : "lib"] + words.split(separator: " ").map(String.init),
                 mentions: mentions)
    }

    static func run(_ name: String, _ arguments: [String], mentions: [String], status: Int32 = 1,
                    store: Store = .employees, files: [String: String] = [:]) -> BadInput {
        BadInput(name: name, store: store, arguments: arguments, files: files, mentions: mentions, status: status)
    }

    static let good = #"{"insert": "Employee", "id": "e9", "values": {"name": "Ivy", "height": 181}}"#
    static let good2 = #"{"update": "Employee", "id": "e1", "values": {"height": 183}}"#

    /// The employees store `shop` is at head 4 with e1…e5 (``Stories/employeesLines``); the authors store `lib` at
    /// head 3 with ids 1, 2, 10, -3 (``Stories/authorsLines``).
    static let all: [BadInput] = appendCases + shorthandCases + positionCases + otherCases + usageCases

    static let appendCases: [BadInput] = [
        append("bad JSON", #"{"insert": "Employee", "id": "e9", "values": {"name": "X""# + "\n", mentions: ["line 1", "JSON"]),
        append("a line that is not an object", "[1, 2]\n", mentions: ["line 1"]),
        append("unknown entity", #"{"insert": "Nope", "id": "e9", "values": {"name": "X"}}"# + "\n", mentions: ["line 1", "Nope"]),
        append("unknown attribute", #"{"insert": "Employee", "id": "e9", "values": {"name": "X", "foo": 1}}"# + "\n",
               mentions: ["line 1", "foo"]),
        append("unknown key", #"{"upsert": "Employee", "id": "e1", "values": {"name": "X"}}"# + "\n", mentions: ["line 1", "upsert"]),
        append("a string for an int", #"{"insert": "Employee", "id": "e9", "values": {"name": "X", "height": "tall"}}"# + "\n",
               mentions: ["line 1", "height"]),
        append("1.5 for an int", #"{"insert": "Employee", "id": "e9", "values": {"name": "X", "height": 1.5}}"# + "\n",
               mentions: ["line 1", "height", "1.5"]),
        append("a number for a string", #"{"update": "Employee", "id": "e1", "values": {"name": 5}}"# + "\n", mentions: ["line 1", "name"]),
        append("a string for a bool", #"{"update": "Employee", "id": "e1", "values": {"active": "yes"}}"# + "\n",
               mentions: ["line 1", "active"]),
        append("a malformed date", #"{"insert": "Employee", "id": "e9", "values": {"name": "X", "hired": "2026-13-01"}}"# + "\n",
               mentions: ["line 1", "hired", "2026-13-01"]),
        // An update that sets nothing.
        append("an update with empty values", #"{"update": "Employee", "id": "e1", "values": {}}"# + "\n",
               mentions: ["line 1", "values", "e1"]),
        append("an empty update in a transaction", good + "\n" + #"{"changes": [{"update": "Employee", "id": "e1", "values": {}}]}"# + "\n",
               mentions: ["line 2", "values"]),
        // One date range, years 0001…9999 UTC, checked after the offset.
        append("a date in year 10000 by its offset",
               #"{"update": "Employee", "id": "e1", "values": {"hired": "9999-12-31T23:00:00-01:00"}}"# + "\n",
               mentions: ["line 1", "hired", "9999-12-31T23:00:00-01:00", "0001-01-01"]),
        append("a date in year 0", #"{"update": "Employee", "id": "e1", "values": {"hired": "0001-01-01T00:30:00+01:00"}}"# + "\n",
               mentions: ["line 1", "hired"]),
        append("a date without a time", #"{"update": "Employee", "id": "e1", "values": {"hired": "2026-01-01"}}"# + "\n",
               mentions: ["line 1", "hired"]),
        append("a missing required attribute", #"{"insert": "Employee", "id": "e9", "values": {"height": 1}}"# + "\n",
               mentions: ["line 1", "name"]),
        append("a null required attribute on insert", #"{"insert": "Employee", "id": "e9", "values": {"name": null}}"# + "\n",
               mentions: ["line 1", "name"]),
        append("a null required attribute on update", #"{"update": "Employee", "id": "e1", "values": {"name": null}}"# + "\n",
               mentions: ["line 1", "name"]),
        append("a null defaulted attribute on update", #"{"update": "Employee", "id": "e1", "values": {"salary": null}}"# + "\n",
               mentions: ["line 1", "salary"]),
        append("a missing id", #"{"insert": "Employee", "values": {"name": "X"}}"# + "\n", mentions: ["line 1", "id"]),
        append("a string id given as a number", #"{"insert": "Employee", "id": 9, "values": {"name": "X"}}"# + "\n",
               mentions: ["line 1", "id"]),
        append("an int id given as a string", #"{"insert": "Author", "id": "7", "values": {"firstName": "A", "lastName": "B"}}"# + "\n",
               mentions: ["line 1", "id"], store: .authors),
        append("an int id given as 1.5", #"{"delete": "Author", "id": 1.5}"# + "\n", mentions: ["line 1", "id"], store: .authors),
        append("insert of an existing id", #"{"insert": "Employee", "id": "e1", "values": {"name": "X"}}"# + "\n",
               mentions: ["line 1", "e1"]),
        append("insert of an existing int id", #"{"insert": "Author", "id": -3, "values": {"firstName": "A", "lastName": "B"}}"# + "\n",
               mentions: ["line 1", "-3"], store: .authors),
        append("update of a missing object", #"{"update": "Employee", "id": "e99", "values": {"name": "X"}}"# + "\n",
               mentions: ["line 1", "e99"]),
        append("delete of a missing object", #"{"delete": "Employee", "id": "e99"}"# + "\n", mentions: ["line 1", "e99"]),
        append("an empty transaction", #"{"author": "x", "changes": []}"# + "\n", mentions: ["line 1"]),
        append("author without changes", #"{"author": "x"}"# + "\n", mentions: ["line 1", "changes"]),
        append("an input with no lines", "", mentions: ["no"]),
        append("an input of blank lines", "\n  \n\n", mentions: ["no"]),
        append("a bad line after good ones", [good, good2, #"{"update": "Employee", "id": "e2", "values": {"heigth": 1}}"#]
            .joined(separator: "\n") + "\n", mentions: ["line 3", "heigth"]),
        append("bad JSON after good lines and a blank one", [good, "", good2, "{"].joined(separator: "\n") + "\n",
               mentions: ["line 4", "JSON"]),
        append("an insert of an id inserted by an earlier line", [good, good2, good].joined(separator: "\n") + "\n",
               mentions: ["line 3", "e9"]),
        append("an update of an object deleted by an earlier line",
               [#"{"delete": "Employee", "id": "e1"}"#, good2].joined(separator: "\n") + "\n", mentions: ["line 2", "e1"]),
        append("a bad second change of a transaction",
               #"{"author": "x", "changes": [{"insert": "Employee", "id": "e9", "values": {"name": "X"}}, {"insert": "Employee", "id": "e10", "values": {"name": 5}}]}"# + "\n",
               mentions: ["line 1", "change 2", "name"]),
        append("a second change inserting the id of the first",
               #"{"author": "x", "changes": [{"insert": "Employee", "id": "e9", "values": {"name": "X"}}, {"insert": "Employee", "id": "e9", "values": {"name": "Y"}}]}"# + "\n",
               mentions: ["line 1", "change 2", "e9"]),
        BadInput(name: "--file that does not exist", arguments: ["append", "shop", "--file", "missing.jsonl"],
                 mentions: ["missing.jsonl"]),
        BadInput(name: "--file with a bad line after a good one", arguments: ["append", "shop", "--file", "in.jsonl"],
                 files: ["in.jsonl": good + "\n" + #"{"delete": "Employee", "id": "e99"}"# + "\n"], mentions: ["line 2", "e99"]),
    ]

    static let shorthandCases: [BadInput] = [
        shorthand("shorthand: a word for an int", "insert Employee e9 name=X height=abc", mentions: ["height", "abc"]),
        shorthand("shorthand: 1.5 for an int", "insert Employee e9 name=X height:=1.5", mentions: ["height", "1.5"]),
        shorthand("shorthand: a malformed date", "insert Employee e9 name=X hired=yesterday", mentions: ["hired", "yesterday"]),
        shorthand("shorthand: an update without assignments", "update Employee e1", mentions: ["e1", "KEY=VALUE"]),
        shorthand("shorthand: a date in year 10000", "update Employee e1 hired=9999-12-31T23:00:00-01:00",
                  mentions: ["hired", "9999-12-31T23:00:00-01:00"]),
        shorthand("shorthand: a missing required attribute", "insert Employee e9 height=170", mentions: ["name"]),
        shorthand("shorthand: null for a required attribute", "update Employee e1 name:=null", mentions: ["name"]),
        shorthand("shorthand: bad JSON after :=", "update Employee e1 height:={bad", mentions: ["height", "JSON"]),
        shorthand("shorthand: unknown attribute", "insert Employee e9 name=X foo=1", mentions: ["foo"]),
        shorthand("shorthand: not KEY=VALUE", "insert Employee e9 name", mentions: ["name", "KEY=VALUE"]),
        shorthand("shorthand: unknown entity", "insert Nope e9 name=X", mentions: ["Nope"]),
        shorthand("shorthand: unknown operation", "upsert Employee e1 name=X", mentions: ["upsert"]),
        shorthand("shorthand: insert of an existing id", "insert Employee e1 name=X", mentions: ["e1"]),
        shorthand("shorthand: update of a missing object", "update Employee e99 height=1", mentions: ["e99"]),
        shorthand("shorthand: delete of a missing object", "delete Employee e99", mentions: ["e99"]),
        shorthand("shorthand: too few words", "insert Employee", mentions: ["insert"]),
        shorthand("shorthand: a word for an int id", "insert Author x firstName=A lastName=B", mentions: ["x", "integer"],
                  store: .authors),
        shorthand("shorthand: 1.5 for an int attribute", "update Author 1 books=1.5", mentions: ["books"], store: .authors),
        shorthand("shorthand: delete of a missing int id", "delete Author -4", mentions: ["-4"], store: .authors),
        BadInput(name: "shorthand and --file together", arguments: ["append", "shop", "--file", "in.jsonl", "delete", "Employee", "e1"],
                 files: ["in.jsonl": good + "\n"], mentions: ["--file"]),
    ]

    static let positionCases: [BadInput] = [
        run("query --at past the head", ["query", "shop", "tall", "--at", "5"], mentions: ["5", "head"]),
        run("get --at past the head", ["get", "shop", "Employee", "e1", "--at", "5"], mentions: ["5", "head"]),
        run("log --from past the head", ["log", "shop", "--from", "5"], mentions: ["5", "head"]),
        run("log --to past the head", ["log", "shop", "--to", "5"], mentions: ["5", "head"]),
        run("log --from after --to", ["log", "shop", "--from", "3", "--to", "2"], mentions: ["3", "2"]),
        run("diff --to past the head", ["diff", "shop", "tall", "--from", "0", "--to", "5"], mentions: ["5", "head"]),
        run("diff --from past the head", ["diff", "shop", "tall", "--from", "5", "--to", "0"], mentions: ["5", "head"]),
        run("schema --at past the head", ["schema", "shop", "--at", "5"], mentions: ["5", "head"]),
        run("replay --to past the head", ["replay", "shop", "--into", "copy", "--to", "5"], mentions: ["5", "head"]),
        run("query --at past the head of an int-id store", ["query", "lib", "byInitial", "--at", "4", "--json"],
            mentions: ["4", "head"], store: .authors),
    ]

    static let employeesSchema = try! String(contentsOf: CLI.packageRoot.appendingPathComponent("schema/employees.json"), encoding: .utf8)

    static let otherCases: [BadInput] = [
        run("init on an existing store", ["init", "shop", "--schema", "employees.json"], mentions: ["shop", "exists"],
            files: ["employees.json": employeesSchema]),
        run("init with a missing schema file", ["init", "new", "--schema", "missing.json"], mentions: ["missing.json"]),
        run("init with a malformed schema", ["init", "new", "--schema", "bad.json"], mentions: ["bad.json"],
            files: ["bad.json": #"{"entities": {"#]),
        run("init with an invalid schema", ["init", "new", "--schema", "bad.json"], mentions: ["bad.json", "entity"],
            files: ["bad.json": #"{"entities": {}}"#]),
        run("a directory that is not a store", ["log", "nostore"], mentions: ["nostore"]),
        run("unknown view (query)", ["query", "shop", "nope"], mentions: ["nope"]),
        run("unknown view (diff)", ["diff", "shop", "nope", "--from", "0", "--to", "1"], mentions: ["nope"]),
        run("unknown view (watch)", ["watch", "shop", "nope", "--count", "1"], mentions: ["nope"]),
        run("predicate syntax error", ["query", "shop", "--entity", "Employee", "--where", "height >"], mentions: ["column"]),
        run("predicate syntax error in the middle", ["query", "shop", "--entity", "Employee", "--where", "height > 1 AND AND name == 'x'"],
            mentions: ["column"]),
        run("unknown attribute in --where", ["query", "shop", "--entity", "Employee", "--where", "heigth > 1"], mentions: ["heigth"]),
        run("type mismatch in --where", ["query", "shop", "--entity", "Employee", "--where", "height > 'x'"], mentions: ["height"]),
        run("unknown attribute in --where of diff", ["diff", "shop", "--entity", "Employee", "--where", "heigth > 1", "--from", "0", "--to", "4"],
            mentions: ["heigth"]),
        run("unknown sort key", ["query", "shop", "--entity", "Employee", "--sort", "nope"], mentions: ["nope"]),
        run("unknown section key", ["query", "shop", "--entity", "Employee", "--section", "nope"], mentions: ["nope"]),
        run("unknown entity in --entity", ["query", "shop", "--entity", "Nope"], mentions: ["Nope"]),
        run("a variable without a value", ["query", "shop", "--entity", "Employee", "--where", "height > $min"], mentions: ["min"]),
        run("--var without =", ["query", "shop", "--entity", "Employee", "--where", "height > $min", "--var", "min"], mentions: ["min"]),
        run("--var with a date in year 10000", ["query", "shop", "--entity", "Employee", "--where", "hired > $d",
                                                  "--var", "d=9999-12-31T23:00:00-01:00"], mentions: ["hired", "9999-12-31T23:00:00-01:00"]),
        run("a predicate date literal in year 10000", ["query", "shop", "--entity", "Employee", "--where",
                                                       "hired < '9999-12-31T23:00:00-01:00'"], mentions: ["hired", "9999-12-31T23:00:00-01:00"]),
        run("import of a date in year 10000", ["import", "shop", "in.jsonl"], mentions: ["line 1", "hired"],
            files: ["in.jsonl": #"{"seq": 5, "time": "2026-01-01T00:00:00.000Z", "author": "x", "changes": [{"op": "update", "entity": "Employee", "id": "e1", "values": {"hired": "9999-12-31T23:00:00-01:00"}, "previous": {"hired": null}}]}"# + "\n"]),
        run("import of a time in year 10000", ["import", "shop", "in.jsonl"], mentions: ["line 1", "time"],
            files: ["in.jsonl": #"{"seq": 5, "time": "9999-12-31T23:00:00-01:00", "author": "x", "changes": [{"op": "update", "entity": "Employee", "id": "e1", "values": {"height": 1}, "previous": {"height": 180}}]}"# + "\n"]),
        // Import reads lines as append does (InputLines): `\r\n`, blank lines, errors.
        run("import of bad JSON after a blank \\r\\n line", ["import", "shop", "in.jsonl"],
            mentions: ["line 2", "JSON"], files: ["in.jsonl": "\r\n{\r\n"]),
        run("import of a line of a no-break space, which is not blank", ["import", "shop", "in.jsonl"],
            mentions: ["line 1", "JSON"], files: ["in.jsonl": "\u{a0}\n"]),
        run("get of a missing object", ["get", "shop", "Employee", "e99"], mentions: ["e99"]),
        run("get of a missing object, --json", ["get", "shop", "Employee", "e99", "--json"], mentions: ["e99"]),
        run("get of a missing int id", ["get", "lib", "Author", "42"], mentions: ["42"], store: .authors),
        run("get of an unknown entity", ["get", "shop", "Nope", "e1"], mentions: ["Nope"]),
        run("get with a word for an int id", ["get", "lib", "Author", "x"], mentions: ["x", "integer"], store: .authors),
        run("import of a file whose seqs do not follow the head", ["import", "shop", "in.jsonl"], mentions: ["line 1", "seq"],
            files: ["in.jsonl": #"{"seq": 1, "time": "2026-01-01T00:00:00.000Z", "author": "x", "changes": [{"op": "delete", "entity": "Employee", "id": "e1", "previous": {"name": "Ann"}}]}"# + "\n"]),
        run("import of a bad line after a good one", ["import", "shop", "in.jsonl"], mentions: ["line 2"],
            files: ["in.jsonl": #"{"seq": 5, "time": "2026-01-01T00:00:00.000Z", "author": "x", "changes": [{"op": "update", "entity": "Employee", "id": "e1", "values": {"height": 1}, "previous": {"height": 180}}]}"# + "\n{\n"]),
        run("import of a change that does not apply", ["import", "shop", "in.jsonl"], mentions: ["line 1", "e99"],
            files: ["in.jsonl": #"{"seq": 5, "time": "2026-01-01T00:00:00.000Z", "author": "x", "changes": [{"op": "update", "entity": "Employee", "id": "e99", "values": {"height": 1}, "previous": {"height": 180}}]}"# + "\n"]),
        run("import of an empty file", ["import", "shop", "in.jsonl"], mentions: ["in.jsonl"], files: ["in.jsonl": ""]),
        run("replay into an existing directory", ["replay", "shop", "--into", "lib", "--to", "2"], mentions: ["lib"]),
        run("a breaking schema update", ["schema", "shop", "--update", "v2.json"], mentions: ["v2.json", "active"],
            files: ["v2.json": #"{"entities": {"Employee": {"id": "string", "attributes": {"name": {"type": "string"}}}}}"#]),
        run("schema --update with --at", ["schema", "shop", "--update", "v2.json", "--at", "1"], mentions: ["--at"],
            files: ["v2.json": employeesSchema]),
    ]

    static let usageCases: [BadInput] = [
        run("usage: no view and no --entity", ["query", "shop"], mentions: ["--entity"], status: 64),
        run("usage: a view and --entity", ["query", "shop", "tall", "--entity", "Employee"], mentions: ["not both"], status: 64),
        run("usage: unknown option", ["query", "shop", "tall", "--bogus"], mentions: ["--bogus"], status: 64),
        run("usage: unknown command", ["frobnicate", "shop"], mentions: ["frobnicate"], status: 64),
        run("usage: missing store", ["log"], mentions: ["store"], status: 64),
        run("usage: a position that is not a number", ["log", "shop", "--from", "x"], mentions: ["--from"], status: 64),
        run("usage: a negative limit", ["query", "shop", "tall", "--limit", "-1"], mentions: ["--limit"], status: 64),
        run("usage: a negative count", ["watch", "shop", "tall", "--count", "-1"], mentions: ["--count"], status: 64),
        run("usage: get without an id", ["get", "shop", "Employee"], mentions: ["id"], status: 64),
        run("usage: init without --schema", ["init", "new"], mentions: ["--schema"], status: 64),
        run("usage: diff without --to", ["diff", "shop", "tall", "--from", "1"], mentions: ["--to"], status: 64),
    ]
}

@Suite struct BadInputTests {
    /// The stores the cases run against, built once per test run and copied into each case's sandbox:
    /// `shop` at head 4 (and an empty directory `lib`, so that `replay --into lib` meets an existing directory),
    /// or `lib` at head 3; with their `log --json`.
    struct Template: Sendable {
        let box: Sandbox
        let log: String
    }

    static let employeesTemplate: Result<Template, CLIHarnessError> = template(.employees)
    static let authorsTemplate: Result<Template, CLIHarnessError> = template(.authors)

    static func template(_ store: BadInput.Store) -> Result<Template, CLIHarnessError> {
        do {
            let box = try Sandbox(template: true)
            switch store {
            case .employees:
                try box.exampleSchema("employees.json")
                guard try box.run(["init", "shop", "--schema", "employees.json"]).status == 0,
                      try box.run(["append", "shop"], input: Stories.employeesLines).status == 0 else {
                    return .failure(CLIHarnessError("cannot build the employees store"))
                }
                try FileManager.default.createDirectory(atPath: box.file("lib"), withIntermediateDirectories: false)
                return .success(Template(box: box, log: try box.run(["log", "shop", "--json"]).stdout))
            case .authors:
                try box.exampleSchema("authors.json")
                guard try box.run(["init", "lib", "--schema", "authors.json"]).status == 0,
                      try box.run(["append", "lib"], input: Stories.authorsLines).status == 0 else {
                    return .failure(CLIHarnessError("cannot build the authors store"))
                }
                return .success(Template(box: box, log: try box.run(["log", "lib", "--json"]).stdout))
            }
        } catch {
            return .failure(CLIHarnessError("cannot build a store: \(error)"))
        }
    }

    /// Copies the store a case runs against into `box`, writes the case's files, and returns the store's log.
    @discardableResult
    static func prepare(_ c: BadInput, in box: Sandbox) throws -> String {
        let template = try (c.store == .employees ? employeesTemplate : authorsTemplate).get()
        try box.copyContents(of: template.box)
        for (name, text) in c.files { try box.write(name, text) }
        return template.log
    }

    /// The names in the sandbox (the harness's own files, starting with `.`, left out).
    static func listing(_ box: Sandbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: box.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(arguments: BadInput.all)
    func refused(_ c: BadInput) throws {
        let box = try Sandbox()
        let logBefore = try Self.prepare(c, in: box)
        let filesBefore = try Self.listing(box)

        let r = try box.run(c.arguments, input: c.input)

        #expect(r.status == c.status, "exit status \(r.status), stderr: \(r.stderr)")
        #expect(r.stdout.isEmpty, "printed on standard output: \(r.stdout)")
        let lines = r.errorLines
        #expect(lines.count == 1 && r.stderr.hasSuffix("\n"), "not exactly one line on stderr: \(r.stderr.debugDescription)")
        if let line = lines.first {
            #expect(line.hasPrefix("error: "), "\(line)")
            for m in c.mentions { #expect(line.contains(m), "the error does not mention \(m.debugDescription): \(line)") }
        }
        let logAfter = try box.run(["log", c.storeName, "--json"])
        #expect(logAfter.stdout == logBefore, "the log changed")
        #expect(try Self.listing(box) == filesBefore, "files were created or removed")
    }

    /// All the error lines, in one golden file, to review their wording (the cases share one store per schema:
    /// none of them changes anything, which ``refused(_:)`` checks one by one).
    @Test func errorMessagesGolden() throws {
        let box = try Sandbox()
        try box.copyContents(of: try Self.authorsTemplate.get().box)
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "shop", "--schema", "employees.json"]).status == 0)
        try #require(try box.run(["append", "shop"], input: Stories.employeesLines).status == 0)
        var t = Transcript()
        for c in BadInput.all {
            for (name, text) in c.files where !FileManager.default.fileExists(atPath: box.file(name)) { try box.write(name, text) }
            t.note(c.name)
            t.record(try box.run(c.arguments, input: c.input))
            for name in c.files.keys where name != "employees.json" { try? FileManager.default.removeItem(atPath: box.file(name)) }
        }
        Golden.check("errors.txt", t.text)
    }
}
