import Foundation
import Testing
import TestSupport
@testable import ViewLogReplication

/// DESIGN §9's promise under failure: a 3-node cluster, a stream of 3 copies, two replicas with a writer each and a
/// `watch` on one; the stream leader is killed with SIGKILL mid-run and restarted. Then both logs are equal, seqs
/// contiguous, every acknowledged append is present once at its printed seq, `verify` passes on both, and the
/// watcher ends at the final view.
///
/// `REPLICATION_TEST_TRANSACTIONS` sets the transactions per writer (default 30); `REPLICATION_TEST_REPORT`
/// names a file that gets one summary line per run (`tools/replication-test` runs this test many times).
@Suite(.serialized) struct ReplicationFailoverTests {
    @Test func killingTheStreamLeaderLosesNothingAcknowledged() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let environment = ProcessInfo.processInfo.environment
        let perWriter = Int(environment["REPLICATION_TEST_TRANSACTIONS"] ?? "") ?? 30
        let started = Date()
        let cluster = try NATSServers(count: 3)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        let created = try box.run(["init", "a", "--schema", "employees.json", "--nats", cluster.urlList,
                                   "--stream", "shop", "--replicas", "3"])
        try #require(created.status == 0, "\(created.stderr)")
        let joined = try box.run(["init", "b", "--nats", cluster.urls.reversed().joined(separator: ","), "--stream", "shop"])
        try #require(joined.status == 0, "\(joined.stderr)")
        let watch = try box.start(["watch", "b", "--entity", "Employee", "--sort", "name", "--json"])
        defer { if watch.process.isRunning { watch.process.terminate(); watch.process.waitUntilExit() } }
        try watch.waitForLines(1)

        func lines(_ prefix: String) -> String {
            (0..<perWriter).map { #"{"insert": "Employee", "id": "\#(prefix)\#($0)", "values": {"name": "\#(prefix)\#($0)", "height": \#(150 + $0)}}"# }
                .joined(separator: "\n") + "\n"
        }
        let writerA = try box.start(["append", "a"], input: lines("a"))
        let writerB = try box.start(["append", "b"], input: lines("b"))
        defer {
            for w in [writerA, writerB] where w.process.isRunning { w.process.terminate(); w.process.waitUntilExit() }
        }
        try writerA.waitForLines(perWriter / 4, timeout: 60)
        let probe = try NATSConnection(servers: cluster.urls)
        let leaderName = try #require(try probe.streamState("shop")?.leader, "the stream has no leader")
        let leader = try #require(cluster.index(ofServerNamed: leaderName))
        cluster.kill(leader)
        let killedAt = writerA.stdoutSoFar.split(separator: "\n").count + writerB.stdoutSoFar.split(separator: "\n").count
        // Appends go on through the election, while the killed node is down.
        let deadline = Date().addingTimeInterval(60)
        while writerA.process.isRunning || writerB.process.isRunning {
            let done = writerA.stdoutSoFar.split(separator: "\n").count + writerB.stdoutSoFar.split(separator: "\n").count
            if done >= killedAt + perWriter / 2 || Date() > deadline { break }
            usleep(20_000)
        }
        try cluster.start(leader)
        try cluster.waitUntilReady(leader)
        let resultA = try writerA.wait(timeout: 120), resultB = try writerB.wait(timeout: 120)
        #expect(resultA.status == 0, "writer A: \(resultA.stderr)")
        #expect(resultB.status == 0, "writer B: \(resultB.stderr)")

        // Both replicas catch up; their logs are equal and contiguous.
        let total = 2 * perWriter
        #expect(try box.run("sync a").stdout == "\(total)\n")
        #expect(try box.run("sync b").stdout == "\(total)\n")
        let logA = try box.run("log a --json").stdout, logB = try box.run("log b --json").stdout
        #expect(logA == logB)
        let entries = logA.split(separator: "\n").compactMap { CLIProcess.json($0) }
        #expect(entries.compactMap { $0["seq"] as? Int } == Array(1...total))
        // Every acknowledged (printed) seq holds its line's insert, and every id is in the log once.
        var idAt: [Int: String] = [:]
        for e in entries {
            let changes = e["changes"] as? [[String: Any]] ?? []
            if let seq = e["seq"] as? Int, changes.count == 1, let id = changes[0]["id"] as? String { idAt[seq] = id }
        }
        #expect(Set(idAt.values).count == total)
        for (prefix, result) in [("a", resultA), ("b", resultB)] {
            let printed = result.stdout.split(separator: "\n").compactMap { Int($0) }
            #expect(printed.count == perWriter)
            for (line, seq) in printed.enumerated() {
                #expect(idAt[seq] == "\(prefix)\(line)", "line \(line + 1) of writer \(prefix) printed seq \(seq)")
            }
        }
        #expect(try box.run("verify a").status == 0)
        #expect(try box.run("verify b").status == 0)

        // The watcher on B reaches the final view.
        let watchDeadline = Date().addingTimeInterval(30)
        while Date() < watchDeadline, !(watch.stdoutSoFar.split(separator: "\n").last?.contains(#""to": \#(total),"#) ?? false) {
            usleep(20_000)
        }
        watch.process.terminate()
        let watched = try watch.wait(timeout: 10)
        let documents = watched.stdout.split(separator: "\n").compactMap { CLIProcess.json($0) }
        let final = try #require(try Self.replay(documents))
        let query = try #require(CLIProcess.json(try box.run("query b --entity Employee --sort name --json").stdout))
        let expected = ((query["sections"] as? [[String: Any]])?.first?["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(final == expected)
        #expect(expected.count == total)
        if let report = environment["REPLICATION_TEST_REPORT"] {
            let line = "ok transactions=\(total) killed=\(leaderName) after=\(killedAt) seconds=\(Int(Date().timeIntervalSince(started)))\n"
            if let handle = FileHandle(forWritingAtPath: report) {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                handle.closeFile()
            }
        }
    }

    /// The ids of a one-section view after the watch's documents: the query document, then each change set
    /// applied with UITableView's rules (deletes and moves' sources by `from`, then inserts and moves by `to`).
    static func replay(_ documents: [[String: Any]]) throws -> [String]? {
        guard let first = documents.first, let sections = first["sections"] as? [[String: Any]] else { return nil }
        var ids = (sections.first?["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        for document in documents.dropFirst() {
            let rows = document["rows"] as? [[String: Any]] ?? []
            let removed = rows.filter { ["delete", "move"].contains($0["type"] as? String) }
                .compactMap { ($0["from"] as? [Int])?.last }.sorted(by: >)
            for index in removed { ids.remove(at: index) }
            let added = rows.filter { ["insert", "move"].contains($0["type"] as? String) }
                .compactMap { row -> (Int, String)? in
                    guard let to = (row["to"] as? [Int])?.last, let id = row["id"] as? String else { return nil }
                    return (to, id)
                }
                .sorted { $0.0 < $1.0 }
            for (index, id) in added { ids.insert(id, at: index) }
        }
        return ids
    }
}
