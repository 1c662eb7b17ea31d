import Foundation
import Testing

/// `watch --json --seq` prints, for each batch, exactly the document `diff --from A --to B --json --seq`
/// prints for the same A and B — also when batches that did not change the view were folded into it.
@Suite struct WatchEqualsDiffTests {
    @Test func everyWatchDocumentIsTheDiffDocumentOfItsSpan() throws {
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.run(["init", "s", "--schema", "employees.json"])
        try box.run(["append", "s", "insert", "Employee", "a", "name=a", "height=180"])
        try box.run(["append", "s", "insert", "Employee", "b", "name=b", "height=181"])
        let view = ["--entity", "Employee", "--sort", "name", "--limit", "2"]
        let watch = try box.start(["watch", "s"] + view + ["--json", "--seq", "--count", "3"])
        try watch.waitForLines(1)
        // c is inserted outside the window (seq 3: no change to the view), then a's delete
        // (seq 4) brings it in. c was touched by transaction 3, not 4: DESIGN §5's seq is 3.
        try box.run(["append", "s", "insert", "Employee", "c", "name=c", "height=182"])
        try box.run(["append", "s", "delete", "Employee", "a"])
        try box.run(["append", "s", "update", "Employee", "b", "height=175"])            // seq 5: b updated
        try box.run(["append", "s", "insert", "Employee", "d", "name=d", "height=170"])  // seq 6: outside
        try box.run(["append", "s", "insert", "Employee", "aa", "name=aa", "height=160"])  // seq 7: in, c out
        let result = try watch.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let documents = result.stdout.split(separator: "\n").dropFirst().map(String.init)
        try #require(documents.count == 3, "\(result.stdout)")
        for document in documents {
            let json = try #require(CLIProcess.json(document))
            let from = try #require(json["from"] as? Int), to = try #require(json["to"] as? Int)
            let diff = try box.run(["diff", "s"] + view + ["--from", "\(from)", "--to", "\(to)", "--json", "--seq"])
            #expect(diff.stdout == document + "\n", "watch printed \(document)")
        }
        #expect(documents[0].contains(#"{"type": "insert", "id": "c", "to": [0, 1], "seq": 3}"#), "\(documents[0])")
    }
}
