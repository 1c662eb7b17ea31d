import Foundation
import Testing
import TestSupport

/// Stored views through the CLI (DESIGN §11): `query` and `diff` of a windowed named view read its stored rows, and
/// print exactly what the same view given ad hoc (`--entity …`, never stored) prints — stored views change speed,
/// never output. Random appends from a seeded generator; rerun a failure with `VIEWLOG_SEED`.
@Suite struct StoredViewCLITests {
    static let schema = """
    {"entities": {"Item": {"id": "int", "attributes": {
      "label": {"type": "string", "optional": true}, "score": {"type": "double", "optional": true},
      "n": {"type": "int", "default": 0}}}},
     "views": {
      "top": {"entity": "Item", "where": "n >= 0", "sort": "score desc, label", "limit": 4},
      "bySection": {"entity": "Item", "sort": "n desc, score", "section": "label", "limit": 5, "offset": 1}}}
    """
    /// The named views as ad-hoc options.
    static let adHoc: [String: [String]] = [
        "top": ["--entity", "Item", "--where", "n >= 0", "--sort", "score desc, label", "--limit", "4"],
        "bySection": ["--entity", "Item", "--sort", "n desc, score", "--section", "label", "--limit", "5", "--offset", "1"],
    ]

    @Test func queryAndDiffOfAStoredWindowPrintWhatTheViewBuiltInMemoryPrints() throws {
        let seed = SeededGenerator.seed(default: 2811)
        var g = SeededGenerator(seed: seed)
        let box = try Sandbox()
        _ = try box.write("items.json", Self.schema)
        try #require(try box.run(["init", "s", "--schema", "items.json"]).status == 0)
        var existing = Set<Int>()
        var head = 0
        for _ in 0..<24 {
            var lines: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                var changes: [String] = []
                var taken = Set<Int>()
                for _ in 0..<Int.random(in: 1...4, using: &g) {
                    let id = Int.random(in: 1...12, using: &g)
                    guard taken.insert(id).inserted else { continue }
                    let label = ["\"a\"", "\"b\"", "null", "\"c\""].randomElement(using: &g)!
                    let score = ["1.5", "-2", "null", "0", "3.25"].randomElement(using: &g)!
                    let n = Int.random(in: -1...3, using: &g)
                    if existing.contains(id), Int.random(in: 0..<4, using: &g) == 0 {
                        changes.append(#"{"delete": "Item", "id": \#(id)}"#)
                        existing.remove(id)
                    } else if existing.contains(id) {
                        changes.append(#"{"update": "Item", "id": \#(id), "values": {"score": \#(score), "n": \#(n)}}"#)
                    } else {
                        changes.append(#"{"insert": "Item", "id": \#(id), "values": {"label": \#(label), "score": \#(score), "n": \#(n)}}"#)
                        existing.insert(id)
                    }
                }
                lines.append(#"{"changes": [\#(changes.joined(separator: ", "))]}"#)
            }
            let r = try box.run(["append", "s"], input: lines.joined(separator: "\n") + "\n")
            try #require(r.status == 0, "seed \(seed): \(r.stderr)")
            head += lines.count
        }
        #expect(try box.run(["verify", "s"]).status == 0)
        for view in ["top", "bySection"] {
            for json in [true, false] {
                let flag = json ? ["--json"] : []
                for window in [[], ["--limit", "2", "--offset", "3"], ["--limit", "0"]] {
                    let stored = try box.run(["query", "s", view] + window + flag)
                    let memory = try box.run(["query", "s"] + Self.adHoc[view]! + window + flag)
                    #expect(stored.status == 0 && stored.stdout == memory.stdout, "seed \(seed) query \(view) \(window): \(stored.stdout) \(stored.stderr) vs \(memory.stdout)")
                }
                for _ in 0..<6 {
                    let a = Int.random(in: max(0, head - 8)...head, using: &g), b = Int.random(in: max(0, head - 8)...head, using: &g)
                    let positions = ["--from", String(a), "--to", String(b)]
                    let stored = try box.run(["diff", "s", view] + positions + flag)
                    let memory = try box.run(["diff", "s"] + Self.adHoc[view]! + positions + flag)
                    #expect(stored.status == 0 && stored.stdout == memory.stdout, "seed \(seed) diff \(view) \(a)→\(b): \(stored.stdout) \(stored.stderr) vs \(memory.stdout)")
                }
            }
        }
    }

    /// A windowed named view over to-one key paths (DESIGN §10) reads its stored rows too, each row's path values
    /// computed for the window alone: `query` prints what the same view ad hoc prints, after renames of related
    /// objects, re-pointed relationships and deletes with their nullify consequences.
    @Test func queryOfAStoredWindowOverKeyPathsPrintsWhatTheViewBuiltInMemoryPrints() throws {
        let seed = SeededGenerator.seed(default: 2831)
        var g = SeededGenerator(seed: seed)
        let box = try Sandbox()
        _ = try box.write("company.json", """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "int", "attributes": {"name": {"type": "string"}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
             "views": {"byDepartment": {"entity": "Employee", "where": "department.name != 'x'", "sort": "department.name desc, name",
                                        "section": "department.name", "limit": 4}}}
            """)
        try #require(try box.run(["init", "s", "--schema", "company.json"]).status == 0)
        let adHoc = ["--entity", "Employee", "--where", "department.name != 'x'", "--sort", "department.name desc, name",
                     "--section", "department.name", "--limit", "4"]
        var departments = Set<Int>(), employees = Set<Int>()
        for step in 0..<30 {
            var changes: [String] = []
            let d = Int.random(in: 1...4, using: &g), e = Int.random(in: 1...12, using: &g)
            let name = ["\"a\"", "\"b\"", "\"x\"", "\"c\""].randomElement(using: &g)!
            switch Int.random(in: 0..<4, using: &g) {
            case 0 where departments.contains(d):
                changes.append(#"{"update": "Department", "id": \#(d), "values": {"name": \#(name)}}"#)
            case 1 where departments.contains(d) && step % 3 == 0:
                changes.append(#"{"delete": "Department", "id": \#(d)}"#)
                departments.remove(d)
            case 0, 1:
                if !departments.contains(d) {
                    changes.append(#"{"insert": "Department", "id": \#(d), "values": {"name": \#(name)}}"#)
                    departments.insert(d)
                }
            default:
                let target = departments.randomElement(using: &g).map(String.init) ?? "null"
                if employees.contains(e) {
                    changes.append(#"{"update": "Employee", "id": \#(e), "values": {"department": \#(target)}}"#)
                } else {
                    changes.append(#"{"insert": "Employee", "id": \#(e), "values": {"name": "n\#(e % 3)", "department": \#(target)}}"#)
                    employees.insert(e)
                }
            }
            guard !changes.isEmpty else { continue }
            let r = try box.run(["append", "s"], input: #"{"changes": [\#(changes.joined(separator: ", "))]}"# + "\n")
            try #require(r.status == 0, "seed \(seed): \(r.stderr)")
            if step % 5 == 4 {
                for window in [[], ["--limit", "2", "--offset", "1"]] {
                    for flag in [["--json"], []] {
                        let stored = try box.run(["query", "s", "byDepartment"] + window + flag)
                        let memory = try box.run(["query", "s"] + adHoc + window + flag)
                        #expect(stored.status == 0 && stored.stdout == memory.stdout, "seed \(seed) step \(step) \(window): \(stored.stdout) \(stored.stderr) vs \(memory.stdout)")
                    }
                }
            }
        }
        #expect(try box.run(["verify", "s"]).status == 0)
        let views = try box.run(["views", "s", "--storage", "--json"])
        #expect(views.stdout.contains("\"stored\": true"), "\(views.stdout)")
    }

    /// `watch` of a windowed named view starts from its stored rows and pulls the next rows from them as rows leave
    /// the window: it prints what `watch` of the same view ad hoc prints, move after move (each append waited for).
    @Test func watchOfAStoredWindowPrintsWhatTheViewBuiltInMemoryPrints() throws {
        let box = try Sandbox()
        _ = try box.write("items.json", Self.schema)
        try #require(try box.run(["init", "s", "--schema", "items.json"]).status == 0)
        let inserts = (1...9).map { #"{"insert": "Item", "id": \#($0), "values": {"label": "l\#($0 % 3)", "score": \#($0), "n": \#($0 % 2)}}"# }
        try #require(try box.run(["append", "s"], input: inserts.joined(separator: "\n") + "\n").status == 0)
        // Each step changes the window of `top`: its first row deleted or moved to the end, so a row from past the
        // window comes in.
        let steps = [#"{"delete": "Item", "id": 9}"#, #"{"update": "Item", "id": 8, "values": {"score": -1}}"#,
                     #"{"delete": "Item", "id": 7}"#, #"{"update": "Item", "id": 6, "values": {"score": -2}}"#,
                     #"{"delete": "Item", "id": 5}"#]
        for view in ["top"] {
            for json in [true, false] {
                let flag = json ? ["--json"] : []
                let stored = try box.start(["watch", "s", view] + flag)
                let memory = try box.start(["watch", "s"] + Self.adHoc[view]! + flag)
                defer { stored.process.terminate(); memory.process.terminate() }
                func lines(_ r: RunningCLI) -> Int { r.stdoutSoFar.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) } }
                try stored.waitForLines(1)
                try memory.waitForLines(1)
                for step in steps {
                    let (a, b) = (lines(stored), lines(memory))
                    try #require(try box.run(["append", "s"], input: step + "\n").status == 0)
                    try stored.waitForLines(a + 1)
                    try memory.waitForLines(b + 1)
                    usleep(100_000)  // a text change set spans several lines
                }
                #expect(Normalise.times(stored.stdoutSoFar) == Normalise.times(memory.stdoutSoFar), "\(view) json \(json)")
                // Put the store back for the next round.
                try #require(try box.run(["append", "s"], input: steps.indices.map { i in
                    let id = [9, 8, 7, 6, 5][i]
                    return i % 2 == 0 ? #"{"insert": "Item", "id": \#(id), "values": {"label": "l\#(id % 3)", "score": \#(id), "n": \#(id % 2)}}"#
                                      : #"{"update": "Item", "id": \#(id), "values": {"score": \#(id), "n": \#(id % 2)}}"#
                }.joined(separator: "\n") + "\n").status == 0)
            }
        }
    }
}
