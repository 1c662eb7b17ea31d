import Foundation
import Testing
import TestSupport
@testable import ViewLogReplication

/// DESIGN §9's promise under failure: a 3-node cluster (durable servers: `sync_interval: always`), a stream of 3
/// copies, two replicas with a writer each and a `watch` on one; mid-run, one fault (``Fault``). Then both logs
/// are equal, seqs contiguous, every acknowledged append is present once at its printed seq, `verify` passes on
/// both, and the watcher ends at the final view.
///
/// `REPLICATION_TEST_FAULT` runs one fault only (`tools/replication-test` runs it many times);
/// `REPLICATION_TEST_TRANSACTIONS` sets the transactions per writer (default 30); `REPLICATION_TEST_REPORT`
/// names a file that gets one summary line per run.
@Suite(.serialized) struct ReplicationFailoverTests {
    /// What happens to the cluster mid-run.
    enum Fault: String, CaseIterable, Sendable {
        /// The stream leader SIGKILLed, restarted once the writers went on without it.
        case kill
        /// The stream leader paused with SIGSTOP across the election of another, then continued (SIGCONT).
        case stop
        /// The stream leader cut off from the other nodes and from every client (iptables rules on its ports and
        /// on its own packets) across the election of another, then healed (the rules removed however the test ends).
        case partition
        /// Every node SIGKILLed at once, then all restarted (acknowledged appends were fsynced before their ack).
        case killall
        /// A follower of the stream SIGKILLed, its stream's message files cut to half while it is down, restarted;
        /// then the leader SIGKILLed, so that the damaged node takes part in the next election.
        case truncate
        /// As `truncate`, with 8 bytes flipped in its largest message file instead.
        case flip
    }

    /// The faults `swift test` runs: `REPLICATION_TEST_FAULT`, or every one (the partition only where it can run:
    /// root, iptables, cgroup v2).
    static var faults: [Fault] {
        ProcessInfo.processInfo.environment["REPLICATION_TEST_FAULT"].map { [Fault(rawValue: $0)].compactMap { $0 } }
            ?? Fault.allCases
    }

    /// What the test's own probe of the stream's leader saw.
    struct LeaderProbe {
        /// The last leader named (nil: none answered, or the stream had no leader then).
        var leader: String?
        /// Requests made, and the last one's failure (a timeout, a lost connection).
        var requests = 0
        var lastFailure: String?
    }

    /// Asks `servers` for the leader of stream `shop` until `accepted` holds for the answer, for at most `patience`
    /// seconds. The probe's own requests may time out or lose their connection while the cluster elects a leader or
    /// while a node is cut off (its client is a NATS client like the replicas'): that is asked again, never taken
    /// for the fault's outcome — only the answers are.
    static func probeLeader(_ servers: [String], patience: Double = 60,
                            until accepted: (String?) -> Bool) -> LeaderProbe {
        var probe = LeaderProbe()
        var connection: NATSConnection?
        let deadline = Date().addingTimeInterval(patience)
        while true {
            probe.requests += 1
            do {
                let client = try connection ?? NATSConnection(servers: servers)
                connection = client
                probe.leader = try client.streamState("shop")?.leader
                if accepted(probe.leader) { return probe }
            } catch {
                probe.lastFailure = "\(error)"
            }
            if Date() >= deadline { return probe }
            usleep(200_000)
        }
    }

    /// The probe's own failures (here: no server at all, then a node that has no stream yet) are asked again until
    /// its patience ends, and never thrown: a round fails on what the cluster answers, not on its probe's client.
    @Test func theLeaderProbeAsksAgainThroughItsOwnFailures() throws {
        let nobody = Self.probeLeader(["nats://127.0.0.1:\(try NATSServers.freePort())"], patience: 1) { $0 != nil }
        #expect(nobody.leader == nil && nobody.requests >= 2 && nobody.lastFailure != nil)
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let server = try NATSServers(count: 1)
        let noStream = Self.probeLeader(server.urls, patience: 1) { $0 != nil }
        #expect(noStream.leader == nil && noStream.requests >= 2)
    }

    @Test(arguments: faults) func nothingAcknowledgedIsLost(_ fault: Fault) throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        if fault == .partition && !NATSServers.canPartition {
            print("skipped the partition fault: it needs root, iptables (tools/install-deps) and cgroup v2")
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let perWriter = Int(environment["REPLICATION_TEST_TRANSACTIONS"] ?? "") ?? 30
        let started = Date()
        let cluster = try NATSServers(count: 3, partitionable: fault == .partition)
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
        // Both writers are connected before the fault: one that has not connected yet when every server is down
        // fails to connect (no server reachable), which says nothing about acknowledged appends.
        try writerB.waitForLines(1, timeout: 60)
        let first = Self.probeLeader(cluster.urls) { $0 != nil }
        let leaderName = try #require(first.leader, "the stream has no leader (\(first.requests) requests, last failure: \(first.lastFailure ?? "none"))")
        let leader = try #require(cluster.index(ofServerNamed: leaderName))
        func acknowledged() -> Int {
            writerA.stdoutSoFar.split(separator: "\n").count + writerB.stdoutSoFar.split(separator: "\n").count
        }
        /// Waits (at most 60 s) until the writers acknowledged `count` more appends, or ended.
        func progress(_ count: Int) {
            let from = acknowledged(), deadline = Date().addingTimeInterval(60)
            while (writerA.process.isRunning || writerB.process.isRunning) && acknowledged() < from + count && Date() < deadline {
                usleep(20_000)
            }
        }
        let killedAt = acknowledged()
        var detail = ""
        switch fault {
        case .kill:
            // Appends go on through the election, while the killed node is down.
            cluster.kill(leader)
            progress(perWriter / 2)
            try cluster.start(leader)
            try cluster.waitUntilReady(leader)
        case .stop:
            cluster.pause(leader)
            defer { cluster.resume(leader) }
            progress(perWriter / 2)
        case .partition:
            try cluster.partition(leader)
            defer { cluster.heal() }
            progress(perWriter / 2)
            // The others elected a leader of their own: the partition took effect. Asked of a node on their side,
            // through requests that may time out while it elects (the probe's, not the writers').
            let other = (0..<3).first { $0 != leader }!
            let elected = Self.probeLeader([cluster.urls[other]]) { $0 != nil && $0 != leaderName }
            #expect(elected.leader != nil && elected.leader != leaderName,
                    "the stream's leader is still \(elected.leader ?? "none") after \(elected.requests) requests (last failure: \(elected.lastFailure ?? "none"))")
            detail = " elected=\(elected.leader ?? "none") probes=\(elected.requests)"
        case .killall:
            for i in 0..<3 { cluster.kill(i) }
            usleep(500_000)
            for i in 0..<3 { try cluster.start(i) }
            for i in 0..<3 { try cluster.waitUntilReady(i) }
        case .truncate, .flip:
            let follower = (0..<3).first { $0 != leader }!
            cluster.kill(follower)
            detail = " damaged=n\(follower) " + (try Self.damage(streamOf: cluster.storeDirectory(follower), fault: fault))
            try cluster.start(follower)
            try cluster.waitUntilReady(follower)
            progress(perWriter / 4)
            cluster.kill(leader)
            progress(perWriter / 4)
            try cluster.start(leader)
            try cluster.waitUntilReady(leader)
        }
        let resultA = try writerA.wait(timeout: 120), resultB = try writerB.wait(timeout: 120)
        #expect(resultA.status == 0, "writer A: \(resultA.stderr)\(detail)")
        #expect(resultB.status == 0, "writer B: \(resultB.stderr)\(detail)")

        // Both replicas catch up; their logs are equal and contiguous. First the nodes agree on the stream's leader
        // and last sequence: a node back from a pause or a partition may still answer as the leader it was, from
        // its older state, for a moment (a read that is stale, not an append that is lost: the checks below find
        // any lost append once the nodes agree).
        let total = 2 * perWriter
        let agreed = try cluster.waitUntilStreamAgrees("shop")
        #expect(agreed.lastSeq == total, "the nodes agree on \(agreed.lastSeq) transactions\(detail)")
        for replica in ["a", "b"] {
            let synced = try box.run(["sync", replica])
            #expect(synced.stdout == "\(total)\n", "sync \(replica): \(synced.stdout) \(synced.stderr)")
        }
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
            let line = "ok fault=\(fault.rawValue) transactions=\(total) leader=\(leaderName) after=\(killedAt)\(detail) seconds=\(Int(Date().timeIntervalSince(started)))\n"
            if let handle = FileHandle(forWritingAtPath: report) {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                handle.closeFile()
            }
        }
    }

    /// Damages the message files (`*.blk`) of stream `shop` under a stopped node's `store_dir`: the largest one cut to
    /// half (`truncate`) or 8 of its bytes flipped (`flip`). Returns what it did.
    static func damage(streamOf storeDirectory: String, fault: Fault) throws -> String {
        let files = (FileManager.default.enumerator(atPath: storeDirectory)?.allObjects as? [String] ?? [])
            .filter { $0.contains("streams/shop/msgs/") && $0.hasSuffix(".blk") }
            .map { storeDirectory + "/" + $0 }
        let sized = try files.map { ($0, try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0) }
        guard let (file, size) = sized.max(by: { $0.1 < $1.1 }), size > 16 else { return "no-message-file" }
        let name = (file as NSString).lastPathComponent
        if fault == .truncate {
            guard truncate(file, off_t(size / 2)) == 0 else { throw CLIHarnessError("truncate \(file): \(errno)") }
            return "\(name):\(size)->\(size / 2)"
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        var rng = SystemRandomNumberGenerator()
        var offsets: [Int] = []
        for _ in 0..<8 {
            let offset = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            offsets.append(offset)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return "\(name):\(size)B,flipped@\(offsets.sorted().map(String.init).joined(separator: ","))"
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
