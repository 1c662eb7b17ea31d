import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog

/// A random workload written through the CLI, from a seeded generator (rerun a failure with the `VIEWLOG_SEED`
/// printed in its message).
struct Workload {
    var g: SeededGenerator
    var schema: Schema
    let entityName: String
    /// The objects at the head, as the workload has changed them.
    var objects: [ObjectID: ObjectValues] = [:]
    let ids: [ObjectID]

    init(schema: Schema, entity: String, stream: UInt64) {
        var g = SeededGenerator(stream: stream)
        let e = schema.entities[entity]!
        var ids: [ObjectID] = []
        for i in 0..<24 { ids.append(e.idType == .string ? .string("e\(i)") : .int(Int64(i) - 5)) }
        // A few ids that are hard to carry: control characters, quotes, astral scalars, extreme integers.
        for _ in 0..<6 { ids.append(RandomValues.id(for: e, using: &g)) }
        self.g = g
        self.schema = schema
        self.entityName = entity
        self.ids = ids
    }

    var entity: EntityDescription { schema.entities[entityName]! }

    /// One change as an append input object, applied to ``objects``.
    mutating func change() -> (json: JSONValue, plainID: Bool) {
        let id = ids.randomElement(using: &g)!
        let plain: Bool = if case .string(let s) = id { s.hasPrefix("e") && s.dropFirst().allSatisfy(\.isNumber) } else { true }
        let e = entity
        if let current = objects[id] {
            if Int.random(in: 0..<4, using: &g) == 0 {
                objects[id] = nil
                return (.object([("delete", .string(e.name)), ("id", id.json)]), plain)
            }
            let values = RandomValues.someValues(for: e, jsonSafe: true, using: &g)
            objects[id] = current.merging(values) { $1 }
            return (.object([("update", .string(e.name)), ("id", id.json), ("values", e.json(values))]), plain)
        }
        var values = RandomValues.values(for: e, jsonSafe: true, using: &g)
        // Leave out some attributes that have a default or are optional: the store fills them.
        for a in e.attributes where (a.defaultValue != nil || a.isOptional) && Bool.random(using: &g) { values[a.name] = nil }
        var stored = values
        for a in e.attributes where stored[a.name] == nil { stored[a.name] = a.defaultValue ?? .null }
        objects[id] = stored
        return (.object([("insert", .string(e.name)), ("id", id.json), ("values", e.json(values))]), plain)
    }

    /// A transaction as one input line: a single change, or `{"author": …, "changes": […]}`.
    mutating func transactionLine() -> String {
        let n = Int.random(in: 1...4, using: &g)
        if n == 1 { return change().json.text }
        var changes: [JSONValue] = []
        for _ in 0..<n { changes.append(change().json) }
        let author = ["sync", "import", "bot 7", "ünï"][Int.random(in: 0..<4, using: &g)]
        return JSONValue.object([("author", .string(author)), ("changes", .array(changes))]).text
    }

    /// Appends `transactions` transactions to `store` through the CLI, in stdin batches of random size and now and
    /// then as one shorthand change with `KEY:=JSON` arguments.
    mutating func append(_ transactions: Int, to store: String, in box: Sandbox) throws {
        var done = 0
        while done < transactions {
            if Int.random(in: 0..<5, using: &g) == 0 {
                let saved = objects
                let (json, plain) = change()
                if plain, case .object(let members) = json {
                    let op = members[0].0, id: String = members[1].1.text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    var words = ["append", store, op, entityName, id]
                    if members.count > 2, case .object(let values) = members[2].1 {
                        for (k, v) in values { words.append("\(k):=\(v.text)") }
                    }
                    let r = try box.run(words)
                    try #require(r.status == 0, "\(words): \(r.stderr) — \(g.rerunHint)")
                    done += 1
                    continue
                }
                objects = saved
            }
            let n = min(transactions - done, Int.random(in: 1...12, using: &g))
            var lines: [String] = []
            for _ in 0..<n { lines.append(transactionLine()) }
            let r = try box.run(["append", store], input: lines.joined(separator: "\n") + "\n")
            try #require(r.status == 0, "append: \(r.stderr) — \(g.rerunHint)")
            try #require(r.stdout.split(separator: "\n").count == n)
            done += n
        }
    }
}

@Suite struct RoundTripTests {
    static let employees = try! Schema(jsonText: String(contentsOf: CLI.packageRoot.appendingPathComponent("schema/employees.json"), encoding: .utf8))
    static let authors = try! Schema(jsonText: String(contentsOf: CLI.packageRoot.appendingPathComponent("schema/authors.json"), encoding: .utf8))

    /// The queries compared between stores: the schema's named views and some ad hoc ones.
    static func queries(_ schema: Schema, entity: String) -> [[String]] {
        var out = schema.views.keys.sorted().map { [$0] }
        out.append(["--entity", entity])
        if entity == "Employee" {
            out.append(["--entity", entity, "--where", "height != nil AND active == YES", "--sort", "height desc, name",
                        "--section", "sectionName", "--limit", "7", "--offset", "2"])
            out.append(["--entity", entity, "--where", "name CONTAINS[c] 'a' OR hired > $t", "--var", "t=1970-01-01T00:00:00Z",
                        "--sort", "hired"])
        } else {
            out.append(["--entity", entity, "--where", "books > 0", "--sort", "born desc", "--section", "books"])
        }
        return out
    }

    /// `query STORE Q --json` (at `position` when given), required to succeed.
    static func query(_ box: Sandbox, _ store: String, _ q: [String], at position: Int? = nil) throws -> String {
        let arguments = ["query", store] + q + ["--json"] + (position.map { ["--at", String($0)] } ?? [])
        let r = try box.run(arguments)
        try #require(r.status == 0, "\(arguments): \(r.stderr)")
        return r.stdout
    }

    static func verifyOK(_ box: Sandbox, _ store: String) throws {
        let r = try box.run(["verify", store, "--json"])
        #expect(r.status == 0 && r.stdout.hasPrefix(#"{"ok": true"#), "verify \(store): \(r.stdout) \(r.stderr)")
    }

    @Test(arguments: [("employees.json", "Employee", UInt64(1)), ("authors.json", "Author", UInt64(2))])
    func exportImport(schemaFile: String, entity: String, stream: UInt64) throws {
        let box = try Sandbox()
        try box.exampleSchema(schemaFile)
        let schema = entity == "Employee" ? Self.employees : Self.authors
        try #require(try box.run(["init", "src", "--schema", schemaFile]).status == 0)
        var w = Workload(schema: schema, entity: entity, stream: stream)
        try w.append(80, to: "src", in: box)

        let exported = try box.run(["export", "src"])
        try #require(exported.status == 0)
        try box.write("src.jsonl", exported.stdout)
        try #require(try box.run(["init", "dst", "--schema", schemaFile]).status == 0)
        let imported = try box.run(["import", "dst", "src.jsonl"])
        try #require(imported.status == 0, "import: \(imported.stderr) — \(w.g.rerunHint)")

        let logSource = try box.run(["log", "src", "--json"]).stdout
        #expect(try box.run(["log", "dst", "--json"]).stdout == logSource, "the imported log differs — \(w.g.rerunHint)")
        #expect(logSource == exported.stdout, "export and log --json differ")
        #expect(try box.run(["export", "dst"]).stdout == exported.stdout)
        #expect(try box.run(["log", "dst"]).stdout == box.run(["log", "src"]).stdout, "human logs differ")
        let head = logSource.split(separator: "\n").count
        // The workload did what it is meant to: every kind of change, multi-change transactions, shorthand.
        #expect(head == 80)
        for op in [#""op": "insert""#, #""op": "update""#, #""op": "delete""#, #""author": "sync""#, #""author": "cli""#] {
            #expect(logSource.contains(op), "no \(op) in the workload — \(w.g.rerunHint)")
        }
        #expect(w.objects.count > 5)
        for q in Self.queries(schema, entity: entity) {
            for position in [nil, head / 3, head / 2] {
                #expect(try Self.query(box, "dst", q, at: position) == Self.query(box, "src", q, at: position),
                        "query \(q) at \(position.map(String.init) ?? "head") differs — \(w.g.rerunHint)")
            }
        }
        // The model of the workload agrees with the store at the head.
        let all = try Self.query(box, "src", ["--entity", entity])
        #expect(all.components(separatedBy: #"{"id": "#).count - 1 == w.objects.count, "object count — \(w.g.rerunHint)")
        try Self.verifyOK(box, "src")
        try Self.verifyOK(box, "dst")
    }

    /// `replay --to P` equals the source at P (views, log, objects) for several P, before and after a schema update
    /// that adds an optional and a defaulted attribute and a view.
    @Test func replayAcrossSchemaUpdate() throws {
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "src", "--schema", "employees.json"]).status == 0)
        var w = Workload(schema: Self.employees, entity: "Employee", stream: 3)
        try w.append(30, to: "src", in: box)
        let k = try box.run(["log", "src", "--json"]).stdout.split(separator: "\n").count + 1

        try box.write("v2.json", Stories.employeesV2)
        let update = try box.run(["schema", "src", "--update", "v2.json"])
        try #require(update.status == 0 && update.stdout == "\(k)\n", "schema --update: \(update.stdout) \(update.stderr)")
        w.schema = try Schema(jsonText: Stories.employeesV2)
        for id in Array(w.objects.keys) { w.objects[id]?["level"] = .int(1) }
        try w.append(30, to: "src", in: box)
        let head = try box.run(["log", "src", "--json"]).stdout.split(separator: "\n").count

        let schemaBefore = try box.run(["schema", "src", "--at", String(k - 1)]).stdout
        let schemaAfter = try box.run(["schema", "src"]).stdout
        #expect(schemaBefore != schemaAfter)
        for p in [0, 1, k / 2, k - 1, k, k + 1, head] {
            let name = "r\(p)"
            let r = try box.run(["replay", "src", "--into", name, "--to", String(p)])
            try #require(r.status == 0, "replay --to \(p): \(r.stderr)")
            try Self.verifyOK(box, name)
            #expect(try box.run(["schema", name]).stdout == (p >= k ? schemaAfter : schemaBefore), "schema of the replay to \(p)")
            #expect(try box.run(["schema", "src", "--at", String(p)]).stdout == (p >= k ? schemaAfter : schemaBefore))
            #expect(try box.run(["log", name, "--json"]).stdout == box.run(["log", "src", "--to", String(p), "--json"]).stdout,
                    "log of the replay to \(p)")
            let schema = p >= k ? w.schema : Self.employees
            for q in Self.queries(schema, entity: "Employee") {
                #expect(try Self.query(box, name, q) == Self.query(box, "src", q, at: p),
                        "query \(q) of the replay to \(p) — \(w.g.rerunHint)")
            }
        }
        // The view added by the update does not exist before it.
        let early = try box.run(["query", "src", "seniors", "--at", String(k - 1)])
        #expect(early.status == 1 && early.stderr.hasPrefix("error: unknown view 'seniors'"))
        try Self.verifyOK(box, "src")
    }
}
