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

    /// A windowed named view over key paths (DESIGN §10) reads its stored rows too, each row's path values computed
    /// for the window alone: `query` and `diff` print what the same view ad hoc prints, after renames of related
    /// objects, re-pointed relationships and deletes with their nullify consequences.
    @Test func queryAndDiffOfAStoredWindowOverKeyPathsPrintWhatTheViewBuiltInMemoryPrints() throws {
        let seed = SeededGenerator.seed(default: 2831)
        var g = SeededGenerator(seed: seed)
        let box = try Sandbox()
        _ = try box.write("company.json", """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "int", "attributes": {"name": {"type": "string"}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
             "views": {"byDepartment": {"entity": "Employee", "where": "department.name != 'x'", "sort": "department.name desc, name",
                                        "section": "department.name", "limit": 4},
                       "headcount": {"entity": "Department", "where": "ANY employees.name != 'n2' OR employees.@count == 0",
                                     "sort": "employees.@count desc, employees.@max.name, name", "section": "employees.@min.name"}}}
            """)
        try #require(try box.run(["init", "s", "--schema", "company.json"]).status == 0)
        let adHoc = ["byDepartment": ["--entity", "Employee", "--where", "department.name != 'x'", "--sort", "department.name desc, name",
                                      "--section", "department.name", "--limit", "4"],
                     "headcount": ["--entity", "Department", "--where", "ANY employees.name != 'n2' OR employees.@count == 0",
                                   "--sort", "employees.@count desc, employees.@max.name, name", "--section", "employees.@min.name"]]
        var departments = Set<Int>(), employees = Set<Int>()
        var head = 0
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
                    changes.append(#"{"insert": "Employee", "id": \#(e), "values": {"name": "n\#(Int.random(in: 0...3, using: &g))", "department": \#(target)}}"#)
                    employees.insert(e)
                }
            }
            guard !changes.isEmpty else { continue }
            let r = try box.run(["append", "s"], input: #"{"changes": [\#(changes.joined(separator: ", "))]}"# + "\n")
            try #require(r.status == 0, "seed \(seed): \(r.stderr)")
            head += 1
            if step % 5 == 4 {
                for (view, options) in adHoc {
                    for window in [[], ["--limit", "2", "--offset", "1"]] {
                        for flag in [["--json"], []] {
                            let stored = try box.run(["query", "s", view] + window + flag)
                            let memory = try box.run(["query", "s"] + options + window + flag)
                            #expect(stored.status == 0 && stored.stdout == memory.stdout, "seed \(seed) step \(step) \(view) \(window): \(stored.stdout) \(stored.stderr) vs \(memory.stdout)")
                        }
                        // `diff` between positions near the head: the stored window, the rows the changes reach and
                        // their path values from the stored state; every line as the view in memory prints it.
                        for flag in [["--json", "--seq"], []] {
                            let a = Int.random(in: max(0, head - 6)...head, using: &g), b = Int.random(in: max(0, head - 6)...head, using: &g)
                            let positions = ["--from", String(a), "--to", String(b)]
                            let stored = try box.run(["diff", "s", view] + window + positions + flag)
                            let memory = try box.run(["diff", "s"] + options + window + positions + flag)
                            #expect(stored.status == 0 && stored.stdout == memory.stdout, "seed \(seed) step \(step) diff \(view) \(window) \(a)→\(b): \(stored.stdout) \(stored.stderr) vs \(memory.stdout)")
                        }
                    }
                }
            }
        }
        #expect(try box.run(["verify", "s"]).status == 0)
        let views = try box.run(["views", "s", "--storage", "--json"])
        #expect(views.stdout.components(separatedBy: "\"stored\": true").count == 3, "\(views.stdout)")
    }

    /// An `append` killed (SIGKILL) at some point of a long input leaves the stored views — over own attributes, over
    /// a to-one key path, over aggregates and quantifiers of a to-many inverse, with their state — exactly as the
    /// objects it committed make them: `verify` recomputes them all. Where the kill lands varies from run to run; each
    /// outcome must verify.
    @Test func appendsKilledMidwayLeaveEveryStoredViewEqualToItsObjects() throws {
        var g = SeededGenerator(seed: SeededGenerator.seed(default: 2841))
        let box = try Sandbox()
        _ = try box.write("company.json", """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "string", "attributes": {"name": {"type": "string"}, "height": {"type": "int", "optional": true}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
             "views": {"byName": {"entity": "Employee", "sort": "name"},
                       "byDepartment": {"entity": "Employee", "sort": "department.name, name"},
                       "departments": {"entity": "Department", "where": "ANY employees.height > 180",
                                       "sort": "employees.@count desc, employees.@max.height, name"}}}
            """)
        try #require(try box.run(["init", "s", "--schema", "company.json"]).status == 0)
        let departments = (1...20).map { #"{"insert": "Department", "id": \#($0), "values": {"name": "d\#($0)"}}"# }
        try #require(try box.run(["append", "s"], input: departments.joined(separator: "\n") + "\n").status == 0)
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for round in 0..<3 {
            // 10,000 transactions, three writes: an employee inserted, one of this round's moved, a department renamed.
            var lines: [String] = []
            for i in 0..<10_000 {
                var changes = [#"{"insert": "Employee", "id": "r\#(round)-\#(i)", "values": {"name": "n\#(Int.random(in: 0..<500, using: &g))", "height": \#(Int.random(in: 150...200, using: &g)), "department": \#(Int.random(in: 1...20, using: &g))}}"#]
                if i > 0 {
                    changes.append(#"{"update": "Employee", "id": "r\#(round)-\#(Int.random(in: 0..<i, using: &g))", "values": {"department": \#(Int.random(in: 1...20, using: &g)), "height": \#(Int.random(in: 150...200, using: &g))}}"#)
                }
                if i % 97 == 0 {
                    changes.append(#"{"update": "Department", "id": \#(Int.random(in: 1...20, using: &g)), "values": {"name": "d\#(i)"}}"#)
                }
                lines.append(#"{"changes": [\#(changes.joined(separator: ", "))]}"#)
            }
            let input = try box.write("round\(round).jsonl", lines.joined(separator: "\n") + "\n")
            func head() throws -> Int {
                let stats = try box.run(["stats", "s", "--json"])
                return (CLIProcess.json(stats.stdout)?["head"] as? Int) ?? -1
            }
            let start = try head()
            let (process, _, _) = try CLIProcess.start(["append", box.file("s")], stdinFile: input, directory: directory)
            // Killed once a first write has committed, a little later: most often during a later write.
            for _ in 0..<3_000 where process.isRunning {  // bounded: 30 s of polls
                if try head() > start { break }
                usleep(10_000)
            }
            usleep(UInt32.random(in: 0...150_000, using: &g))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let verify = try box.run(["verify", "s"])
            #expect(verify.status == 0, "round \(round): \(verify.stdout) \(verify.stderr)")
            #expect(try head() > start, "round \(round): a write committed before the kill")
        }
        let views = try box.run(["views", "s", "--storage", "--json"])
        #expect(views.stdout.components(separatedBy: "\"stored\": true").count == 4, "\(views.stdout)")
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

    /// `watch` of a windowed named view over key paths — to-one paths, and aggregates and a quantifier of a to-many
    /// inverse — starts from its stored window (rows and path values from the stored state) and prints what `watch` of
    /// the same view ad hoc prints, move after move: members joining and leaving, related objects renamed.
    @Test func watchOfAStoredWindowOverKeyPathsPrintsWhatTheViewBuiltInMemoryPrints() throws {
        let box = try Sandbox()
        _ = try box.write("company.json", """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "int", "attributes": {"name": {"type": "string"}, "height": {"type": "int", "optional": true}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
             "views": {"byDepartment": {"entity": "Employee", "sort": "department.name, name", "limit": 3, "offset": 1},
                       "headcount": {"entity": "Department", "where": "ANY employees.height > 150",
                                     "sort": "employees.@count desc, employees.@max.height, name", "limit": 2}}}
            """)
        try #require(try box.run(["init", "s", "--schema", "company.json"]).status == 0)
        let setup = (1...4).map { #"{"insert": "Department", "id": \#($0), "values": {"name": "d\#($0)"}}"# }
            + (1...9).map { #"{"insert": "Employee", "id": \#($0), "values": {"name": "e\#($0)", "height": \#(140 + 5 * $0), "department": \#($0 % 4 + 1)}}"# }
        try #require(try box.run(["append", "s"], input: setup.joined(separator: "\n") + "\n").status == 0)
        let adHoc = ["byDepartment": ["--entity", "Employee", "--sort", "department.name, name", "--limit", "3", "--offset", "1"],
                     "headcount": ["--entity", "Department", "--where", "ANY employees.height > 150",
                                   "--sort", "employees.@count desc, employees.@max.height, name", "--limit", "2"]]
        // Members move between departments, a department is renamed, a tall member leaves: each step moves a window.
        let steps = [#"{"update": "Employee", "id": 4, "values": {"department": 2}}"#, #"{"update": "Department", "id": 2, "values": {"name": "a"}}"#,
                     #"{"update": "Employee", "id": 8, "values": {"height": 120}}"#, #"{"delete": "Employee", "id": 3}"#,
                     #"{"update": "Employee", "id": 1, "values": {"department": null}}"#]
        for view in ["byDepartment", "headcount"] {
            for json in [true, false] {
                let flag = json ? ["--json"] : []
                let stored = try box.start(["watch", "s", view] + flag)
                let memory = try box.start(["watch", "s"] + adHoc[view]! + flag)
                defer { stored.process.terminate(); memory.process.terminate() }
                func lines(_ r: RunningCLI) -> Int { r.stdoutSoFar.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) } }
                try stored.waitForLines(1)
                try memory.waitForLines(1)
                for step in steps {
                    try #require(try box.run(["append", "s"], input: step + "\n").status == 0)
                    usleep(150_000)
                }
                // Not every step changes every window: wait until both have printed the same, and nothing more comes.
                var same = 0
                for _ in 0..<100 where same < 3 {  // bounded: 10 s
                    usleep(100_000)
                    same = lines(stored) == lines(memory) && lines(stored) > 1 ? same + 1 : 0
                }
                #expect(Normalise.times(stored.stdoutSoFar) == Normalise.times(memory.stdoutSoFar), "\(view) json \(json)")
                #expect(lines(stored) > 2, "\(view): the steps moved its window")
                // Put the store back for the next round.
                try #require(try box.run(["append", "s"], input: [
                    #"{"update": "Employee", "id": 4, "values": {"department": 1}}"#, #"{"update": "Department", "id": 2, "values": {"name": "d2"}}"#,
                    #"{"update": "Employee", "id": 8, "values": {"height": 180}}"#,
                    #"{"insert": "Employee", "id": 3, "values": {"name": "e3", "height": 155, "department": 4}}"#,
                    #"{"update": "Employee", "id": 1, "values": {"department": 2}}"#,
                ].joined(separator: "\n") + "\n").status == 0)
            }
        }
    }
}
