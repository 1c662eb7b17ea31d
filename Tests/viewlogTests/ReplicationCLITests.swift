import Foundation
import Testing
import TestSupport

/// DESIGN §9 through the CLI, against `nats-server` processes on loopback (stopped however a test ends).
@Suite(.serialized) struct ReplicationCLITests {
    /// Two replicas on one server (two machines in the README's story): a live `watch` on B reports the insert
    /// and the delete that appends on A cause.
    @Test func aWatchOnOneReplicaReportsAppendsOnTheOther() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        let created = try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        #expect(created.status == 0, "\(created.stderr)")
        try box.run(["append", "a", "insert", "Employee", "e1", "name=Ann", "height=150", "sectionName=A"])
        let joined = try box.run(["init", "b", "--nats", servers.urlList, "--stream", "shop"])
        #expect(joined.status == 0 && joined.stdout.contains("at seq 1"), "\(joined.stdout) \(joined.stderr)")
        let watch = try box.start(["watch", "b", "tall", "--json", "--count", "2"])
        try watch.waitForLines(1)
        let up = try box.run(["append", "a", "update", "Employee", "e1", "height=180"])
        #expect(up.stdout == "2\n", "\(up.stderr)")
        let down = try box.run(["append", "a", "update", "Employee", "e1", "height=160"])
        #expect(down.stdout == "3\n", "\(down.stderr)")
        let result = try watch.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 3, "\(result.stdout)")
        #expect(lines[1].contains(#""type": "insert", "id": "e1""#), "\(lines[1])")
        #expect(lines[2].contains(#""type": "delete", "id": "e1""#), "\(lines[2])")
        // B applied them: its log equals A's, and verify passes on both.
        #expect(try box.run("log b --json").stdout == box.run("log a --json").stdout)
        #expect(try box.run("verify a").status == 0)
        #expect(try box.run("verify b").status == 0)
    }

    @Test func appendOnAReplicaIsLineByLineAndNamesTheFirstLineNotAppended() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        let input = """
            {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}
            {"insert": "Employee", "id": "e2", "values": {"name": "Bob", "height": 170}}
            {"insert": "Employee", "id": "e1", "values": {"name": "Again"}}
            {"insert": "Employee", "id": "e3", "values": {"name": "Cy"}}

            """
        let result = try box.run(["append", "a"], input: input)
        #expect(result.stdout == "1\n2\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: line 3: "), "\(result.stderr)")
        #expect(result.stderr.contains("seqs 1…2"), "\(result.stderr)")
        #expect(result.errorLines.count == 1)
        #expect(try box.run("sync a").stdout == "2\n")
        // A replica takes no local-only append: import goes through the store, and is refused.
        let exported = try box.run("export a").stdout
        try box.run(["init", "plain", "--schema", "employees.json"])
        try box.run(["import", "plain", "/dev/stdin"], input: exported)
        try box.run(["init", "r", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "other"])
        let refused = try box.run(["import", "r", "/dev/stdin"], input: exported)
        #expect(refused.status == 1 && refused.stderr.contains("replica of stream other"), "\(refused.stderr)")
        #expect(try box.run("sync r").stdout == "0\n")
    }

    @Test func withoutAServerInitAndAppendFailAndReadsWork() throws {
        try #require(NATSServers.isInstalled)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        let port = try NATSServers.freePort()
        let dead = try box.run(["init", "x", "--schema", "employees.json", "--nats", "nats://127.0.0.1:\(port)", "--stream", "s"])
        #expect(dead.status == 1 && dead.stderr.hasPrefix("error: no NATS server reachable"), "\(dead.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.file("x")))
        let servers = try NATSServers(count: 1)
        try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "s"])
        try box.run(["append", "a", "insert", "Employee", "e1", "name=Ann", "height=180"])
        servers.stop()
        let refused = try box.run(["append", "a", "insert", "Employee", "e2", "name=Bob"])
        #expect(refused.status == 1 && refused.stderr.hasPrefix("error: ") && refused.errorLines.count == 1, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(try box.run("log a --json").stdout.split(separator: "\n").count == 1)
        #expect(try box.run("query a tall --json").status == 0)
        #expect(try box.run("verify a").status == 0)
    }

    @Test func joiningNeedsTheStreamAndItsSchema() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.exampleSchema("authors.json")
        let missing = try box.run(["init", "b", "--nats", servers.urlList, "--stream", "nothing"])
        #expect(missing.status == 1 && missing.stderr.contains("no stream nothing"), "\(missing.stderr)")
        try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        let other = try box.run(["init", "c", "--schema", "authors.json", "--nats", servers.urlList, "--stream", "shop"])
        #expect(other.status == 1 && other.stderr.contains("another schema"), "\(other.stderr)")
        let same = try box.run(["init", "d", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try box.run("schema d").stdout == box.run("schema a").stdout)
        let usage = try box.run(["init", "e", "--stream", "shop"])
        #expect(usage.status == 64)
    }

    /// The only server is lost mid-append and comes back: the append in flight waits (same message id, same
    /// expected sequence) and completes exactly once; every printed seq holds its line.
    @Test func aServerLostMidAppendCompletesExactlyOnce() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        let count = 40
        let input = (0..<count).map { #"{"insert": "Employee", "id": "e\#($0)", "values": {"name": "n\#($0)"}}"# }.joined(separator: "\n")
        let writer = try box.start(["append", "a"], input: input + "\n")
        defer { if writer.process.isRunning { writer.process.terminate(); writer.process.waitUntilExit() } }
        try writer.waitForLines(count / 4, timeout: 60)
        servers.kill(0)
        usleep(1_500_000)
        try servers.start(0)
        try servers.waitUntilReady(0)
        let result = try writer.wait(timeout: 90)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").compactMap { Int($0) } == Array(1...count))
        #expect(try box.run("sync a").stdout == "\(count)\n")
        let log = try box.run("log a --json").stdout.split(separator: "\n").compactMap { CLIProcess.json($0) }
        let ids = log.compactMap { (($0["changes"] as? [[String: Any]])?.first?["id"] as? String) }
        #expect(ids == (0..<count).map { "e\($0)" })
        #expect(try box.run("verify a").status == 0)
    }
}
