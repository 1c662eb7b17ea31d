import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
@testable import ViewLogReplication

/// DESIGN §9 "Durability of the stream": the servers the tests run flush before they acknowledge, old servers
/// are named, and a replica whose stream lost, replaced or reordered its transactions says so, naming the seq.
@Suite(.serialized) struct DurabilityTests {
    typealias F = ReplicationFixtures

    /// Every server the tests start is nats-server >= 2.12.4 with `sync_interval: always`, read back from its
    /// monitoring endpoint (`/varz`: `version`, `jetstream.config.sync_always`).
    @Test func theTestServersFlushBeforeTheyAcknowledge() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 3)
        for i in 0..<3 {
            let varz = try servers.varz(i)
            let version = try #require(varz["version"] as? String)
            #expect(!ReplicationWarning.isVersion(version, olderThan: ReplicationLimits.serverVersionMin), "n\(i) runs \(version)")
            let jetStream = try #require(varz["jetstream"] as? [String: Any])
            let config = try #require(jetStream["config"] as? [String: Any])
            #expect(config["sync_always"] as? Bool == true, "n\(i): \(config)")
        }
    }

    @Test func versionsCompareByTheirNumbers() {
        let older = ReplicationWarning.isVersion
        #expect(older("2.9.10", "2.12.4"))
        #expect(older("2.12.3", "2.12.4"))
        #expect(older("2.12.4-beta.1", "2.12.4"))
        #expect(older("1.99.99", "2.12.4"))
        #expect(older("garbage", "2.12.4"))
        #expect(!older("2.12.4", "2.12.4"))
        #expect(!older("v2.12.8", "2.12.4"))
        #expect(!older("2.13.0", "2.12.4"))
        #expect(!older("3.0", "2.12.4"))
        #expect(ReplicationWarning.forServer(url: "nats://x:1", version: "2.9.10")
                == .oldServer(url: "nats://x:1", version: "2.9.10", required: "2.12.4"))
        #expect(ReplicationWarning.forServer(url: "nats://x:1", version: "2.12.8") == nil)
    }

    /// `create` and `join` on Debian's nats-server 2.9.10 return a warning naming both versions; on the durable
    /// server, none.
    @Test func anOldServerIsNamedInAWarning() throws {
        try #require(NATSServers.isInstalled)
        let scratch = try Scratch()
        let durable = try NATSServers(count: 1)
        let fine = try Replica.create(at: scratch.store("new"), schema: F.schema, servers: durable.urls, stream: "s")
        #expect(fine.warnings.isEmpty)
        let debian = try #require(NATSServers.debianBinary, "Debian's nats-server is not installed (tools/install-deps)")
        let old = try NATSServers(count: 1, binary: debian, durable: false)
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: old.urls, stream: "s")
        let version = try #require(try old.varz(0)["version"] as? String)
        #expect(a.warnings == [.oldServer(url: old.urls[0], version: version, required: "2.12.4")])
        #expect(a.warnings.first?.description.contains("nats-server \(version), older than 2.12.4") == true)
        let b = try Replica.join(at: scratch.store("b"), servers: old.urls, stream: "s")
        #expect(b.warnings == a.warnings)
    }

    /// A replica store opened with `durable: false` is refused: the stream's acknowledged commits must survive.
    @Test func aNonDurableStoreIsRefused() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        do {
            let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
            try a.append([F.insert("e1", height: 180)])
        }
        let store = try LogStore.open(at: scratch.store("a"), options: StoreOptions(durable: false))
        #expect {
            _ = try Replica.open(store, servers: servers.urls)
        } throws: { error in
            guard case .notDurable(let path)? = error as? ReplicationError else { return false }
            return path == store.path
        }
    }

    /// A lost stream: a replica follows; the only server is stopped, its stream files removed (what a
    /// power cut does to files never flushed) and restarted; another replica makes the stream again with other
    /// transactions. The follower ends with an error naming seq 1 — it never takes the new seqs as its own —
    /// and the replica's next append is refused the same way, nothing committed.
    @Test func aFollowerWhoseStreamWasReplacedErrorsNamingTheSeq() async throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try a.append((1...5).map { F.insert("a\($0)", height: 180) })
        let follower = Task.detached { () -> (any Error)? in
            do { for try await _ in a.follow() {} } catch { return error }
            return nil
        }
        defer { follower.cancel() }
        servers.terminate(0)
        try FileManager.default.removeItem(atPath: servers.storeDirectory(0))
        try servers.start(0)
        try servers.waitUntilReady(0)
        let c = try Replica.create(at: scratch.store("c"), schema: F.schema, servers: servers.urls, stream: "s")
        #expect(try c.store.head == 0)
        try c.append((1...7).map { F.insert("c\($0)", height: 170 + Int64($0)) })
        let ended = try #require(await Self.value(of: follower, within: 60), "the follower went on silently")
        guard case let ReplicationError.diverged(stream, seq, _)? = ended as? ReplicationError else {
            Issue.record("\(String(describing: ended))")
            return
        }
        #expect(stream == "s" && seq == 1)
        #expect(try a.store.head == 5)
        #expect(try a.store.objects(of: "Employee").count == 5)
        #expect {
            try a.append([F.insert("x", height: 190)])
        } throws: { error in
            guard let error = error as? ReplicaAppendError, case .diverged(_, 1, _) = error.reason else { return false }
            return true
        }
        #expect(try a.store.head == 5)
    }

    /// A stream that kept the first three transactions and replaced the rest (or lost them): the error names
    /// seq 4, the first that differs, after the reconnect — the head alone (seq 5) would not say where.
    @Test func theFirstDifferingSeqIsNamed() throws {
        try #require(NATSServers.isInstalled)
        for replaced in [true, false] {
            let servers = try NATSServers(count: 1)
            let scratch = try Scratch()
            let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
            try a.append((1...5).map { F.insert("a\($0)", height: 180) })
            let kept = try F.entries(a.store).prefix(3)
            servers.terminate(0)
            try FileManager.default.removeItem(atPath: servers.storeDirectory(0))
            try servers.start(0)
            try servers.waitUntilReady(0)
            let c = try Replica.create(at: scratch.store("c"), schema: F.schema, servers: servers.urls, stream: "s")
            for entry in kept { _ = try c.connection.publishRaw(entry, subject: c.subject) }
            if replaced { _ = try c.connection.publishRaw(try c.store.prepareEncoded(F.insert("c4", height: 1)).bytes, subject: c.subject) }
            // The replica's connection reconnected: its next catch-up checks the head again.
            var ended: ReplicationError?
            for _ in 0..<400 {  // until the client has reconnected (a bounded wait, not a timing assertion)
                do { try a.sync() } catch { ended = error; break }
                usleep(50_000)
            }
            guard case let .diverged(_, seq, reason)? = ended else { Issue.record("\(String(describing: ended))"); continue }
            #expect(seq == 4, "\(reason)")
            #expect(reason.contains(replaced ? "other bytes" : "no transaction at this seq"), "\(reason)")
        }
    }

    /// The value of `task`, or `nil` if it has not ended within `seconds` (then it is cancelled).
    static func value<T: Sendable>(of task: Task<T, Never>, within seconds: Double) async -> T? {
        let timeout = Task.detached { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); task.cancel() }
        defer { timeout.cancel() }
        let value = await task.value
        return task.isCancelled ? nil : value
    }
}
