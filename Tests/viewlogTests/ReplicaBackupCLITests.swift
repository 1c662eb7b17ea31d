import Foundation
import Testing
import TestSupport
import ViewLog
@testable import ViewLogReplication

/// DESIGN §13 "Replicas and retention" through the CLI: `init --from-backup`, and `replication.compacted` on a
/// stream with `max_msgs` (made through the library: the CLI makes streams without limits).
@Suite(.serialized) struct ReplicaBackupCLITests {
    /// `a`, a replica that created stream `shop` with at most 3 messages, in the sandbox.
    static func limitedStream(_ box: Sandbox, _ servers: NATSServers) throws {
        let schema = try Schema(jsonText: String(contentsOfFile: CLI.packageRoot.appendingPathComponent("schema/employees.json").path,
                                                 encoding: .utf8))
        _ = try Replica.create(at: box.file("a"), schema: schema, servers: servers.urls, stream: "shop", replicas: 1,
                               maxMessages: 3)
    }

    static func insert(_ box: Sandbox, _ id: String) throws {
        let result = try box.run(["append", "a", "insert", "Employee", id, "name=\(id)", "height=180", "sectionName=A"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func initFromABackupFollowsTheStreamFromItsPosition() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try Self.limitedStream(box, servers)
        for id in ["e1", "e2"] { try Self.insert(box, id) }
        #expect(try box.run("backup a a.bak").status == 0)
        for id in ["e3", "e4"] { try Self.insert(box, id) }  // the stream holds 2…4; the backup needs 3
        let created = try box.run(["init", "c", "--nats", servers.urlList, "--stream", "shop", "--from-backup", "a.bak"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "created c, a replica of stream shop at seq 4, from the backup a.bak at seq 2\n")
        #expect(try box.run("log c --json --from 2").stdout == box.run("log a --json --from 2").stdout)
        #expect(try box.run("verify c").status == 0)
        // The new replica appends through the stream; the first one follows it.
        #expect(try box.run(["append", "c", "insert", "Employee", "c1", "name=C"]).stdout == "5\n")
        #expect(try box.run("sync a").stdout == "5\n")
    }

    @Test func refusalsAreOneErrorLineAndCreateNothing() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try Self.limitedStream(box, servers)
        try Self.insert(box, "e1")
        #expect(try box.run("backup a a.bak").status == 0)
        #expect(try box.run(["init", "b", "--nats", servers.urlList, "--stream", "shop"]).status == 0)  // at seq 1
        for id in ["e2", "e3", "e4", "e5"] { try Self.insert(box, id) }  // the stream holds 3…5
        try box.exampleSchema("employees.json")
        try box.run(["init", "plain", "--schema", "employees.json"])
        try FileManager.default.createDirectory(atPath: box.file("empty"), withIntermediateDirectories: false)
        let cases: [(backup: String, error: String)] = [
            ("a.bak", "error: stream shop starts at seq 3: it no longer holds seq 2, the next this replica needs"),
            ("plain", "error: plain is not a replica"),
            ("empty", "error: "),
        ]
        for (backup, message) in cases {
            let result = try box.run(["init", "c", "--nats", servers.urlList, "--stream", "shop", "--from-backup", backup])
            #expect(result.status != 0)
            #expect(result.stdout.isEmpty)
            #expect(result.errorLines.count == 1 && result.stderr.hasPrefix(message), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: box.file("c")))
        }
        let other = try box.run(["init", "c", "--nats", servers.urlList, "--stream", "other", "--from-backup", "a.bak"])
        #expect(other.errorLines.count == 1 && other.stderr.contains("a replica of stream shop, not of other"), "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.file("c")))
        // The replica that fell behind stops with the same code, naming the first seq; its log is as it was.
        let sync = try box.run("sync b")
        #expect(sync.status != 0)
        #expect(sync.errorLines.count == 1 && sync.stderr.hasPrefix("error: stream shop starts at seq 3:"), "\(sync.stderr)")
        #expect(try box.run("log b --json").stdout.split(separator: "\n").count == 1)
    }
}
