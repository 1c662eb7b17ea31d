import Foundation
import Testing

/// Semantics through the CLI: code-point string identity, the null section's name, and dates that
/// `export` writes and `import` reads.
@Suite struct SemanticsCLITests {
    static let schema = """
    {"entities": {"Item": {"id": "string", "attributes": {
      "label": {"type": "string", "optional": true}, "score": {"type": "double", "optional": true},
      "at": {"type": "date", "optional": true}}}}}
    """
    static let composed = "\u{e9}"
    static let decomposed = "e\u{301}"

    static func store() throws -> Sandbox {
        let box = try Sandbox()
        _ = try box.write("items.json", schema)
        try #require(try box.run(["init", "s", "--schema", "items.json"]).status == 0)
        return box
    }

    static func append(_ box: Sandbox, _ lines: String) throws {
        let r = try box.run(["append", "s"], input: lines + "\n")
        try #require(r.status == 0, "append: \(r.stderr)")
    }

    static func json(_ box: Sandbox, _ arguments: [String]) throws -> String {
        let r = try box.run(arguments + ["--json"])
        try #require(r.status == 0, "\(arguments): \(r.stderr)")
        return r.stdout
    }

    static func verifyOK(_ box: Sandbox) throws {
        let r = try box.run(["verify", "s"])
        #expect(r.status == 0, "verify: \(r.stdout) \(r.stderr)")
    }

    @Test func canonicallyEquivalentIDsAreTwoObjects() throws {
        let box = try Self.store()
        try Self.append(box, #"{"insert": "Item", "id": "\#(Self.composed)", "values": {"label": "one"}}"#)
        try Self.append(box, #"{"insert": "Item", "id": "\#(Self.decomposed)", "values": {"label": "two"}}"#)
        let q = try Self.json(box, ["query", "s", "--entity", "Item"])
        #expect(q.contains(#"{"id": "\#(Self.decomposed)", "values": {"at": null, "label": "two""#))
        #expect(q.contains(#"{"id": "\#(Self.composed)", "values": {"at": null, "label": "one""#))
        #expect(try Self.json(box, ["get", "s", "Item", Self.decomposed]).contains(#""label": "two""#))
        try Self.verifyOK(box)
        let one = try Self.store()
        try Self.append(one, #"{"changes": [{"insert": "Item", "id": "\#(Self.composed)"}, {"insert": "Item", "id": "\#(Self.decomposed)"}]}"#)
        try Self.verifyOK(one)
    }

    @Test func anUpdateToACanonicallyEquivalentStringIsAChange() throws {
        let box = try Self.store()
        try Self.append(box, #"{"insert": "Item", "id": "a", "values": {"label": "\#(Self.decomposed)"}}"#)
        try Self.append(box, #"{"insert": "Item", "id": "b", "values": {"label": "f"}}"#)
        try Self.append(box, #"{"update": "Item", "id": "a", "values": {"label": "\#(Self.composed)"}}"#)
        let diff = try Self.json(box, ["diff", "s", "--entity", "Item", "--sort", "label", "--from", "2", "--to", "3"])
        #expect(diff.contains(#""changed": ["label"]"#), "\(diff)")
        let get = try Self.json(box, ["get", "s", "Item", "a"])
        #expect(get.contains(#""label": "\#(Self.composed)""#))
        try Self.verifyOK(box)
    }

    @Test func canonicallyEquivalentSectionsAreTwoSections() throws {
        let box = try Self.store()
        try Self.append(box, #"{"insert": "Item", "id": "a", "values": {"label": "\#(Self.decomposed)"}}"#)
        try Self.append(box, #"{"insert": "Item", "id": "b", "values": {"label": "\#(Self.composed)"}}"#)
        try Self.append(box, #"{"update": "Item", "id": "a", "values": {"label": "\#(Self.composed)"}}"#)
        let view = ["--entity", "Item", "--sort", "label", "--section", "label"]
        let q = try Self.json(box, ["query", "s"] + view + ["--at", "2"])
        #expect(q.contains(#"{"name": "\#(Self.decomposed)""#) && q.contains(#"{"name": "\#(Self.composed)""#))
        for (from, to) in [(0, 2), (1, 3), (2, 3), (3, 1)] {
            let r = try box.run(["diff", "s"] + view + ["--from", String(from), "--to", String(to), "--json"])
            #expect(r.status == 0, "diff \(from) → \(to): \(r.stderr)")
        }
        let diff = try Self.json(box, ["diff", "s"] + view + ["--from", "2", "--to", "3"])
        #expect(diff.contains(#"{"type": "delete", "index": 0, "name": "\#(Self.decomposed)"}"#), "\(diff)")
    }

    @Test func theNullSectionIsNamedNull() throws {
        let box = try Self.store()
        try Self.append(box, #"{"changes": [{"insert": "Item", "id": "a", "values": {"score": -0.0}}, {"insert": "Item", "id": "b", "values": {"label": "null", "score": 0.0}}]}"#)
        let byLabel = ["query", "s", "--entity", "Item", "--sort", "label", "--section", "label"]
        let q = try Self.json(box, byLabel)
        #expect(q.contains(#"{"name": null, "rows": [{"id": "a""#) && q.contains(#"{"name": "null", "rows": [{"id": "b""#), "\(q)")
        let text = try box.run(byLabel)
        #expect(text.stdout.contains("(null) (1 row)") && text.stdout.components(separatedBy: "(1 row)").count == 3,
                "\(text.stdout)")
        let byScore = try Self.json(box, ["query", "s", "--entity", "Item", "--sort", "score", "--section", "score"])
        #expect(byScore.contains(#""sections": [{"name": "0.0", "rows": [{"id": "a""#), "\(byScore)")
        #expect(try Self.json(box, ["query", "s", "--entity", "Item"]).contains(#""sections": [{"name": null"#))
        let diff = try Self.json(box, ["diff", "s", "--entity", "Item", "--sort", "label", "--section", "label", "--from", "1", "--to", "0"])
        #expect(diff.contains(#"{"type": "delete", "index": 0, "name": null}"#), "\(diff)")
    }

    /// Everything `export` writes, `import` reads, at the edges of the date range.
    @Test func datesAtTheEdgesOfTheRangeExportAndImport() throws {
        let box = try Self.store()
        try Self.append(box, #"{"changes": [{"insert": "Item", "id": "lo", "values": {"at": "0001-01-01T00:00:00Z"}}, {"insert": "Item", "id": "hi", "values": {"at": "9999-12-31T23:59:59.999Z"}}, {"insert": "Item", "id": "off", "values": {"at": "9999-12-31T23:59:59+00:00"}}]}"#)
        let exported = try box.run(["export", "s"])
        try #require(exported.status == 0)
        _ = try box.write("log.jsonl", exported.stdout)
        try #require(try box.run(["init", "t", "--schema", "items.json"]).status == 0)
        let imported = try box.run(["import", "t", "log.jsonl"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let refused = try box.run(["append", "s", "update", "Item", "lo", "at=0000-12-31T23:59:59.999Z"])
        #expect(refused.status != 0 && refused.stderr.contains("0001-01-01"))
    }
}
