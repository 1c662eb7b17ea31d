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
}
