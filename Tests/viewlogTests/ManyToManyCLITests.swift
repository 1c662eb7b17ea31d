import Foundation
import Testing

/// A golden of a many-to-many session (DESIGN §10) on `schema/tags.json`, items with tags and tags with items
/// (`Item.tags` ↔ `Tag.items`): sets given, added to and removed from, replaced, and a tag deleted (nullify) — the
/// log shows the members each update added and removed, never the whole set; export, import and `replay --into`
/// reproduce it byte for byte.
@Suite struct ManyToManyCLITests {
    @Test func aSessionOfTagsAndItems() throws {
        let box = try Sandbox()
        var t = Transcript()
        try box.exampleSchema("tags.json")
        func run(_ arguments: [String], input: String? = nil) throws { t.record(try box.run(arguments, input: input)) }
        try run(["init", "st", "--schema", "tags.json"])
        try run(["append", "st"], input: """
            {"changes": [{"insert": "Tag", "id": 1, "values": {"name": "urgent"}}, {"insert": "Tag", "id": 2, "values": {"name": "home"}}, {"insert": "Tag", "id": 3, "values": {"name": "work"}}]}
            {"insert": "Item", "id": "pen", "values": {"name": "Pen", "tags": [3, 1]}}
            {"insert": "Item", "id": "cup", "values": {"name": "Cup"}}

            """)
        t.note("add and remove beside values; adding a member there changes nothing")
        try run(["append", "st"], input: """
            {"update": "Item", "id": "pen", "add": {"tags": [2]}, "remove": {"tags": [1]}}
            {"update": "Item", "id": "cup", "values": {"name": "Mug"}, "add": {"tags": [2, 3]}}

            """)
        t.note("a set replaced: the log keeps the members added and removed")
        try run(["append", "st", "update", "Item", "pen", "tags:=[1,2]"])
        t.note("a tag deleted: nullify takes it out of every set that holds it")
        try run(["append", "st", "delete", "Tag", "2"])
        try run(["log", "st", "--from", "3"])
        try run(["log", "st", "--from", "3", "--json"])
        try run(["get", "st", "Item", "pen", "--json"])
        try run(["get", "st", "Item", "pen", "--at", "4", "--json"])
        try run(["query", "st", "--entity", "Item", "--json"])
        try run(["verify", "st"])
        let exported = try box.run(["export", "st"]).stdout
        _ = try box.write("st.jsonl", exported)
        try run(["init", "copy", "--schema", "tags.json"])
        try run(["import", "copy", "st.jsonl"])
        try run(["verify", "copy"])
        #expect(try box.run(["export", "copy"]).stdout == exported, "export → import → export is byte for byte")
        _ = try box.run(["replay", "st", "--into", "again"])
        #expect(try box.run(["export", "again"]).stdout == exported, "replay --into logs the same")
        Golden.check("tags-session.txt", t.text)
    }
}

/// An object from before its entity gained a to-many relationship holds the empty set there, never `null`
/// (DESIGN §10): in `get`, `query` (ad hoc and a named view's stored rows), at the head and older positions.
@Suite struct ManyToManyAddedLaterCLITests {
    @Test func olderObjectsReadTheEmptySet() throws {
        let box = try Sandbox()
        _ = try box.write("v1.json", #"{"entities": {"Item": {"id": "string", "attributes": {"name": {"type": "string"}}}, "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}}}"#)
        _ = try box.write("v2.json", #"{"entities": {"Item": {"id": "string", "attributes": {"name": {"type": "string"}}, "relationships": {"tags": {"to": "Tag", "toMany": true, "inverse": "items"}}}, "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}}, "views": {"items": {"entity": "Item", "sort": "name"}}}"#)
        for arguments in [["init", "st", "--schema", "v1.json"], ["append", "st", "insert", "Item", "pen", "name=Pen"],
                          ["append", "st", "insert", "Item", "cup", "name=Cup"], ["schema", "st", "--update", "v2.json"],
                          ["append", "st", "update", "Item", "cup", "name=Mug"]] {
            let r = try box.run(arguments)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
        }
        #expect(try box.run(["get", "st", "Item", "pen", "--json"]).stdout == #"{"position": 4, "entity": "Item", "id": "pen", "values": {"name": "Pen", "tags": []}}"# + "\n")
        #expect(try box.run(["get", "st", "Item", "pen", "--at", "3", "--json"]).stdout.contains(#""tags": []"#))
        for arguments in [["query", "st", "items", "--json"], ["query", "st", "--entity", "Item", "--sort", "name desc", "--json"],
                          ["query", "st", "items", "--at", "4", "--json"], ["query", "st", "--entity", "Item", "--sort", "name desc", "--at", "4", "--json"]] {
            let out = try box.run(arguments).stdout
            #expect(!out.contains(#""tags": null"#) && out.components(separatedBy: #""tags": []"#).count == 3, "\(arguments): \(out)")
        }
        #expect(try box.run(["verify", "st"]).status == 0)
    }
}

/// The README's many-to-many example (section "Relationships", paragraph "Many-to-many"): its commands are these,
/// and its output is what they print.
@Suite struct ManyToManyReadmeTests {
    static let commands: [(line: String, arguments: [String], input: String?)] = [
        ("viewlog init shop --schema schema/tags.json", ["init", "shop", "--schema", "schema/tags.json"], nil),
        ("viewlog append shop <<'EOF'", ["append", "shop"], """
            {"changes": [{"insert": "Tag", "id": 1, "values": {"name": "urgent"}}, {"insert": "Tag", "id": 2, "values": {"name": "home"}}]}
            {"insert": "Item", "id": "pen", "values": {"name": "Pen", "tags": [1]}}
            {"update": "Item", "id": "pen", "add": {"tags": [2]}, "remove": {"tags": [1]}}

            """),
        ("viewlog append shop update Item pen 'tags:=[1,2]'", ["append", "shop", "update", "Item", "pen", "tags:=[1,2]"], nil),
        ("viewlog append shop delete Tag 2", ["append", "shop", "delete", "Tag", "2"], nil),
        ("viewlog get shop Item pen --json", ["get", "shop", "Item", "pen", "--json"], nil),
        ("viewlog get shop Item pen --at 3 --json", ["get", "shop", "Item", "pen", "--at", "3", "--json"], nil),
    ]

    @Test func theReadmeExampleIsTheseCommandsAndPrintsWhatItShows() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let paragraph = try #require(readme.components(separatedBy: "**Many-to-many.**").dropFirst().first?
            .components(separatedBy: "\n**").first)
        let script = try #require(paragraph.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let shown = try #require(paragraph.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        for c in Self.commands {
            #expect(script.contains(c.line + "\n"), "the README lacks \(c.line)")
            if let input = c.input { #expect(script.contains(input + "EOF\n"), "the README's input differs") }
        }
        let box = try Sandbox()
        try FileManager.default.createDirectory(atPath: box.file("schema"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.packageRoot.appendingPathComponent("schema/tags.json").path, toPath: box.file("schema/tags.json"))
        var printed = ""
        for c in Self.commands {
            let r = try box.run(c.arguments, input: c.input)
            #expect(r.status == 0, "\(c.line): \(r.stderr)")
            if c.line.hasPrefix("viewlog get") { printed += r.stdout }
        }
        #expect(printed == shown)
    }
}
