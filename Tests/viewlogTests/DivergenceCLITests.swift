import Foundation
import Testing
import TestSupport

/// DESIGN §9 "Durability of the stream" through the CLI: old servers named, a stream that lost or replaced the
/// replica's transactions refused naming the first seq that differs (watch, sync --follow, append), and
/// `sync --rebuild`.
@Suite(.serialized) struct DivergenceCLITests {
    /// `init --nats` on Debian's nats-server 2.9.10 warns on stderr naming both versions, and goes on.
    @Test func initOnAnOldServerWarnsNamingBothVersions() throws {
        let debian = try #require(NATSServers.debianBinary, "Debian's nats-server is not installed (tools/install-deps)")
        let old = try NATSServers(count: 1, binary: debian, durable: false)
        let version = try #require(try old.varz(0)["version"] as? String)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        let created = try box.run(["init", "a", "--schema", "employees.json", "--nats", old.urlList, "--stream", "shop"])
        #expect(created.status == 0, "\(created.stderr)")
        let warnings = created.stderr.split(separator: "\n")
        #expect(warnings.count == 1 && warnings[0].hasPrefix("warning: "), "\(created.stderr)")
        #expect(created.stderr.contains("nats-server \(version), older than 2.12.4"), "\(created.stderr)")
        let joined = try box.run(["init", "b", "--nats", old.urlList, "--stream", "shop"])
        #expect(joined.status == 0 && joined.stderr.contains(version), "\(joined.stderr)")
        // The durable server: no warning.
        try #require(NATSServers.isInstalled)
        let durable = try NATSServers(count: 1)
        let quiet = try box.run(["init", "c", "--schema", "employees.json", "--nats", durable.urlList, "--stream", "shop"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// A lost stream: `watch` and `sync --follow` run on replica A; the only server is stopped, its stream
    /// files removed and restarted; replica C makes the stream again and appends 7 other transactions. Both end
    /// with one `error:` line naming seq 1; `append` on A is refused the same way, nothing appended; and
    /// `sync --rebuild` makes A a replica of the new stream, keeping the old one beside it.
    @Test func aReplacedStreamStopsWatchFollowAndAppendAndRebuildRecovers() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try box.run(["init", "a", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        for i in 1...5 { try box.run(["append", "a", "insert", "Employee", "a\(i)", "name=A\(i)", "height=180"]) }
        let watch = try box.start(["watch", "a", "tall", "--json"])
        let follow = try box.start(["sync", "a", "--follow"])
        defer {
            for running in [watch, follow] where running.process.isRunning {
                running.process.terminate()
                running.process.waitUntilExit()
            }
        }
        try watch.waitForLines(1)
        try follow.waitForLines(1)
        servers.terminate(0)
        try FileManager.default.removeItem(atPath: servers.storeDirectory(0))
        try servers.start(0)
        try servers.waitUntilReady(0)
        let made = try box.run(["init", "c", "--schema", "employees.json", "--nats", servers.urlList, "--stream", "shop"])
        #expect(made.status == 0 && made.stdout.contains("at seq 0"), "\(made.stdout) \(made.stderr)")
        for i in 1...7 { try box.run(["append", "c", "insert", "Employee", "c\(i)", "name=C\(i)", "height=190"]) }
        for (name, running) in [("watch", watch), ("sync --follow", follow)] {
            let result = try running.wait(timeout: 60)
            #expect(result.status == 1, "\(name): \(result.stdout) \(result.stderr)")
            #expect(result.errorLines.count == 1 && result.stderr.hasPrefix("error: "), "\(name): \(result.stderr)")
            #expect(result.stderr.contains("stream shop at seq 1:"), "\(name): \(result.stderr)")
        }
        #expect(try box.run("log a --json").stdout.split(separator: "\n").count == 5)
        let append = try box.run(["append", "a", "insert", "Employee", "x", "name=X"])
        #expect(append.status == 1 && append.stderr.contains("at seq 1:") && append.errorLines.count == 1, "\(append.stderr)")
        #expect(append.stdout.isEmpty)
        #expect(try box.run("log a --json").stdout.split(separator: "\n").count == 5)
        // Rebuilt from the stream; the diverged replica kept beside it and named.
        let rebuilt = try box.run("sync a --rebuild")
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stdout == "rebuilt a from stream shop at seq 7; the old replica is kept at a.diverged\n", "\(rebuilt.stdout)")
        #expect(try box.run("log a --json").stdout == box.run("log c --json").stdout)
        #expect(try box.run("log a.diverged --json").stdout.split(separator: "\n").count == 5)
        #expect(try box.run("verify a").status == 0)
        let next = try box.run(["append", "a", "insert", "Employee", "x", "name=X"])
        #expect(next.stdout == "8\n", "\(next.stderr)")
        // A second rebuild keeps the first one's copy too.
        let again = try box.run(["sync", "a", "--rebuild", "--json"])
        #expect(again.stdout.contains(#""kept": "a.diverged-2""#), "\(again.stdout)")
    }
}
