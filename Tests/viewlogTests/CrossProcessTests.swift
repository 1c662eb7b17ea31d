import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The Core Data sibling-stack scenario across processes: `viewlog watch` follows a view while other
/// `viewlog append` processes insert objects that do not match, then update some so that they do — and the
/// other way round. Every change reaches the watcher, registered or not.
@Suite("Cross-process watch")
struct CrossProcessTests {
    @Test func aWatcherSeesObjectsAnotherProcessUpdatesIntoAndOutOfItsView() throws {
        let box = try Sandbox()
        try box.exampleSchema("testdummy.json")
        try #require(box.run(["init", "lab", "--schema", "testdummy.json"]).status == 0)
        let watcher = try box.start(["watch", "lab", "evens", "--json", "--count", "2"])
        try watcher.waitForLines(1)  // the initial (empty) view

        // Another process: inserts that do not match (no change set), then updates that make some match.
        let inserts = (0..<6).map { #"{"insert": "TestDummy", "id": \#($0), "values": {"value": \#($0), "isEven": false}}"# }
        try #require(box.run(["append", "lab"], input: inserts.joined(separator: "\n")).status == 0)
        let updates = #"{"author": "background", "changes": [{"update": "TestDummy", "id": 0, "values": {"isEven": true}}, {"update": "TestDummy", "id": 2, "values": {"isEven": true}}, {"update": "TestDummy", "id": 4, "values": {"isEven": true}}]}"#
        try #require(box.run(["append", "lab"], input: updates).status == 0)
        try watcher.waitForLines(2)
        // And back: updated so that they stop matching.
        let revert = #"{"update": "TestDummy", "id": 2, "values": {"isEven": false}}"#
        try #require(box.run(["append", "lab"], input: revert).status == 0)
        let result = try watcher.wait()
        #expect(result.status == 0)

        let documents = result.stdout.split(separator: "\n").map { try? JSONValue.parse(String($0)) }
        #expect(documents.count == 3)
        let entered = try #require(documents[1])
        #expect(entered["rows"] == .array([0, 2, 4].enumerated().map { index, id in
            .object([("type", .string("insert")), ("id", .int(Int64(id))), ("to", .array([.int(0), .int(Int64(index))]))])
        }))
        let left = try #require(documents[2])
        #expect(left["rows"] == .array([.object([("type", .string("delete")), ("id", .int(2)), ("from", .array([.int(0), .int(1)]))])]))

        // The watcher's final view equals a fresh query.
        let fresh = try box.run(["query", "lab", "evens", "--json"])
        #expect(try JSONValue.parse(fresh.stdout.trimmingCharacters(in: .newlines))["sections"]
                == .array([.object([("name", .null), ("rows", .array([0, 4].map { id in
                    .object([("id", .int(Int64(id))), ("values", .object([("isEven", .bool(true)), ("label", .null), ("value", .int(Int64(id)))]))])
                }))])]))
    }

    @Test func chunkedAppendsReportWhatWasCommittedAndWhichLineFailed() throws {
        let box = try Sandbox()
        try box.exampleSchema("testdummy.json")
        try #require(box.run(["init", "lab", "--schema", "testdummy.json"]).status == 0)
        let lines = (0..<5).map { #"{"insert": "TestDummy", "id": \#($0), "values": {"value": \#($0)}}"# }
            + [#"{"insert": "TestDummy", "id": 2, "values": {}}"#]
        let input = lines.joined(separator: "\n")
        let whole = try box.run(["append", "lab"], input: input)
        #expect(whole.status != 0)
        #expect(whole.stderr == "error: line 6: insert of TestDummy 2: the id exists already; nothing appended\n")
        #expect(try box.run(["log", "lab", "--json"]).stdout.isEmpty)

        let chunked = try box.run(["append", "lab", "--chunked", "--chunk-size", "2"], input: input)
        #expect(chunked.status != 0)
        #expect(chunked.stdout == "1\n2\n3\n4\n")
        #expect(chunked.stderr == "error: line 6: insert of TestDummy 2: the id exists already; seqs 1…4 (the input before line 5) were committed, nothing from line 5 on\n")
        #expect(try box.run(["verify", "lab"]).status == 0)
    }

    /// An input longer than one batch of lines (`append` reads it into its one write a batch at a time): the
    /// first bad line is named by its number whether its JSON or its change is wrong and whichever batch it is in,
    /// nothing is appended; a good input prints every seq.
    @Test func anInputOfManyBatchesIsOneWriteNamingItsFirstBadLine() throws {
        let box = try Sandbox()
        try box.exampleSchema("testdummy.json")
        try #require(box.run(["init", "lab", "--schema", "testdummy.json"]).status == 0)
        let count = 10_000  // more than two batches of 4,096 lines
        let good = (0..<count).map { #"{"insert": "TestDummy", "id": \#($0), "values": {"value": \#($0)}}"# }
        var updateOfAbsent = good
        updateOfAbsent[9_000] = #"{"update": "TestDummy", "id": 123456, "values": {"value": 1}}"#
        updateOfAbsent[9_500] = #"{"insert": "TestDummy", "id": oops}"#
        let refused = try box.run(["append", "lab"], input: updateOfAbsent.joined(separator: "\n"))
        #expect(refused.status != 0)
        #expect(refused.stderr.hasPrefix("error: line 9001: update of TestDummy 123456:"), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("; nothing appended\n"))
        var reinserted = good
        reinserted[8_500] = #"{"insert": "TestDummy", "id": 17, "values": {}}"#  // inserted 8,483 lines before
        let existing = try box.run(["append", "lab"], input: reinserted.joined(separator: "\n"))
        #expect(existing.stderr == "error: line 8501: insert of TestDummy 17: the id exists already; nothing appended\n")
        var badJSON = good
        badJSON[5_000] = #"{"insert": "TestDummy", "id": 1"#
        let malformed = try box.run(["append", "lab"], input: badJSON.joined(separator: "\n"))
        #expect(malformed.stderr.hasPrefix("error: line 5001: "), "\(malformed.stderr)")
        #expect(try box.run(["log", "lab", "--json"]).stdout.isEmpty)

        let appended = try box.run(["append", "lab"], input: good.joined(separator: "\n") + "\n")
        #expect(appended.status == 0)
        #expect(appended.stdout == (1...count).map { "\($0)\n" }.joined())
        #expect(try box.run(["verify", "lab"]).status == 0)
    }

    /// An input of more changes than one all-or-nothing write holds (`Limits.singleWriteChangesMax`) is refused
    /// whole, saying how big it is, once its batches cross the limit: five lines of 200,001 inserts each (a line
    /// holds at most 16 MiB), 1,000,005 changes in about 40 MB.
    @Test func anInputOverOneWritesChangeLimitIsRefusedWhole() throws {
        let box = try Sandbox()
        _ = try box.write("one.json", #"{"entities": {"Item": {"id": "int", "attributes": {"n": {"type": "int", "default": 0}}}}}"#)
        try #require(box.run(["init", "lab", "--schema", "one.json"]).status == 0)
        let perLine = 200_001, lines = 5
        var text = ""
        text.reserveCapacity(lines * perLine * 40)
        for line in 0..<lines {
            text += #"{"author": "t", "changes": ["#
            for k in 0..<perLine {
                if k > 0 { text += ", " }
                text += #"{"insert": "Item", "id": \#(line * perLine + k + 1), "values": {}}"#
            }
            text += "]}\n"
        }
        let input = try box.write("big.jsonl", text)
        let refused = try box.run(["append", "lab", "--file", input])
        #expect(refused.status != 0)
        #expect(refused.stderr == "error: the input has \(lines * perLine) changes in \(text.utf8.count) bytes, more than one "
            + "all-or-nothing write holds (1000000 changes, 268435456 bytes); use --chunked to commit it in chunks; "
            + "nothing appended\n", "\(refused.stderr)")
        #expect(try box.run(["log", "lab", "--json"]).stdout.isEmpty)
        #expect(try box.run(["verify", "lab"]).status == 0)
    }
}
