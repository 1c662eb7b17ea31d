import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
@testable import ViewLogReplication

/// DESIGN §13 "Replicas and retention": a stream with `max_msgs` (the pinned nats-server removes the oldest
/// messages past it). A replica goes on while the stream holds its next transaction, and stops with
/// `replication.compacted` naming the first seq the stream holds when it does not — never a gap.
@Suite(.serialized) struct StreamLimitsTests {
    typealias F = ReplicationFixtures

    /// A replica creating stream `s` with at most `limit` messages.
    static func limited(_ servers: NATSServers, _ scratch: Scratch, _ name: String = "a", limit: Int64) throws -> Replica {
        try Replica.create(at: scratch.store(name), schema: F.schema, servers: servers.urls, stream: "s",
                           replicas: 1, maxMessages: limit)
    }

    /// Appends `count` inserts to `replica`, one transaction each, ids `prefix1`, `prefix2`, …
    static func appendInserts(_ replica: Replica, _ count: Int, prefix: String = "e") throws {
        let first = try replica.store.head + 1
        for i in 0..<UInt64(count) {
            try replica.append([F.insert("\(prefix)\(first + i)", height: Int64(150 + (first + i) % 50))])
        }
    }

    /// The entries of `store` from `first` to its head.
    static func entries(_ store: LogStore, from first: UInt64) throws -> [[UInt8]] {
        try (first...max(first, try store.head)).prefix(Int(try store.head - first + 1)).map { seq in
            try #require(try store.encodedTransaction(at: seq))
        }
    }

    /// Two streams named `s` of the same schema on two servers, `count` transactions each, other ones at the same
    /// seqs: replica `x` of the first; `y` of the second, which keeps at most `limitOfY` messages (`nil`: all).
    struct TwoLogs {
        let one: NATSServers, other: NATSServers, scratch: Scratch, x: Replica, y: Replica
    }

    static func twoLogs(_ count: Int, limitOfY: Int64?) throws -> TwoLogs {
        let one = try NATSServers(count: 1), other = try NATSServers(count: 1)
        let scratch = try Scratch()
        let x = try Replica.create(at: scratch.store("x"), schema: F.schema, servers: one.urls, stream: "s")
        try appendInserts(x, count, prefix: "x")
        let y = try Replica.create(at: scratch.store("y"), schema: F.schema, servers: other.urls, stream: "s",
                                   replicas: 1, maxMessages: limitOfY)
        try appendInserts(y, count, prefix: "y")
        return TwoLogs(one: one, other: other, scratch: scratch, x: x, y: y)
    }

    /// Expects `body` to throw `replication.compacted` naming `firstSeq` and `next`.
    static func expectCompacted(firstSeq: UInt64, next: UInt64, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("a replica went on past a message the stream no longer holds")
        } catch {
            let error = (error as? ReplicaAppendError)?.reason ?? error as? ReplicationError
            guard case let .compacted(stream, first, needed)? = error, let error else { Issue.record("\(String(describing: error))"); return }
            #expect(stream == "s" && first == firstSeq && needed == next)
            #expect(error.code == .streamCompacted && error.code.rawValue == "replication.compacted")
            #expect(error.description.contains("starts at seq \(firstSeq)"), "\(error.description)")
            #expect(!error.description.contains("diverged") && !error.description.contains("disagrees"))
        }
    }

    @Test func aReplicaThatKeepsUpGoesOnPastTheLimit() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Self.limited(servers, scratch, limit: 3)
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        for _ in 0..<4 {
            try Self.appendInserts(a, 2)
            try b.sync()
        }
        let state = try #require(try NATSConnection(servers: servers.urls).streamState("s"))
        #expect(state.firstSeq == 6 && state.lastSeq == 8)  // the limit removed 1…5
        #expect(try a.store.head == 8 && b.store.head == 8)
        #expect(try F.entries(a.store) == F.entries(b.store))
        // A replica opened again checks its head against the stream (seq 8, still held) and goes on; so does an
        // append of the one that keeps up, whose own head the stream still holds.
        let reopened = try Replica.open(b.store)
        try Self.appendInserts(b, 1)
        #expect(try reopened.sync() == 9)
        #expect(try F.entries(a.store).count == 8)
        #expect(try a.sync() == 9)
        #expect(try F.entries(a.store) == F.entries(b.store))
    }

    @Test func aReplicaThatFellBehindStopsNamingTheFirstSeqHeld() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Self.limited(servers, scratch, limit: 3)
        try Self.appendInserts(a, 2)
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        let before = try F.entries(b.store)
        try Self.appendInserts(a, 5)  // the stream holds 5…7; b needs 3
        Self.expectCompacted(firstSeq: 5, next: 3) { _ = try b.sync() }
        #expect(try F.entries(b.store) == before)  // nothing appended
        // An append on it is refused the same way, before anything is published.
        Self.expectCompacted(firstSeq: 5, next: 3) {
            _ = try b.append([F.insert("x", height: 100)])
        }
        #expect(try NATSConnection(servers: servers.urls).streamState("s")?.lastSeq == 7)
        #expect(try F.entries(b.store) == before)
        // A replica that joins a stream that no longer holds seq 1 has nothing to start from.
        Self.expectCompacted(firstSeq: 5, next: 1) {
            _ = try Replica.join(at: scratch.store("c"), servers: servers.urls, stream: "s")
        }
    }

    /// A follower whose next message the limits removed after its head was checked (its catch-up then reads a
    /// message the stream no longer holds) ends with the same error, not a wait for a message that will not come.
    @Test func aFollowerWhoseNextMessageWentEndsWithCompacted() async throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Self.limited(servers, scratch, limit: 2)
        try Self.appendInserts(a, 1)
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        try Self.appendInserts(a, 4)  // the stream holds 4…5; b needs 2
        var ended: (any Error)?
        do {
            for try await _ in b.follow() {}
        } catch {
            ended = error
        }
        guard case let .compacted(_, first, next)? = ended as? ReplicationError else {
            Issue.record("\(String(describing: ended))")
            return
        }
        #expect(first == 4 && next == 2)
        #expect(try b.store.head == 1)
    }

    /// A local log that differs from a stream with limits is a divergence, named at the first seq both hold
    /// (the stream's first): the search for it starts there, not at seq 1, which the stream no longer holds.
    @Test func aDivergenceOnAStreamWithLimitsIsNamedFromItsFirstSeq() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let logs = try Self.twoLogs(6, limitOfY: 3)
        let scratch = logs.scratch
        _ = try logs.x.store.backup(to: scratch.store("x.bak"))
        do {
            _ = try Replica.start(at: scratch.store("c"), fromBackup: scratch.store("x.bak"), servers: logs.other.urls, stream: "s")
            Issue.record("a replica of another log followed the stream")
        } catch {
            guard case let .diverged(stream, seq, reason) = error else { Issue.record("\(error)"); return }
            #expect(stream == "s" && seq == 4, "\(reason)")
            #expect(reason.contains("same seq, other bytes"), "\(reason)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.store("c")))
    }
}

/// `init --from-backup` in the library: ``Replica/start(at:fromBackup:servers:stream:)``.
@Suite(.serialized) struct StartFromBackupTests {
    typealias F = ReplicationFixtures
    typealias L = StreamLimitsTests

    @Test func aReplicaStartsFromABackupAndFollowsTheStream() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try L.limited(servers, scratch, limit: 5)
        try L.appendInserts(a, 3)
        let backup = try a.store.backup(to: scratch.store("a.bak"))
        #expect(backup.position == 3)
        try L.appendInserts(a, 4)  // the stream holds 3…7: the backup's next, 4, is held
        let (c, position) = try Replica.start(at: scratch.store("c"), fromBackup: scratch.store("a.bak"),
                                              servers: servers.urls, stream: "s")
        #expect(position == 3)
        #expect(try c.store.head == 7)
        #expect(try F.entries(c.store) == F.entries(a.store))
        #expect(try c.store.replicaLink == ReplicaLink(stream: "s", servers: servers.urls))
        #expect(try c.store.verify().isOK)
        // It is a replica like any other: it appends, and the others follow.
        #expect(try c.append([F.insert("c1", height: 190)]) == [8])
        #expect(try a.sync() == 8)
        #expect(try F.entries(c.store) == F.entries(a.store))
        // The backup is left as it was.
        #expect(try LogStore.open(at: scratch.store("a.bak"), options: StoreOptions(readOnly: true)).head == 3)
    }

    @Test func aBackupOlderThanTheStreamsFirstMessageIsRefused() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try L.limited(servers, scratch, limit: 3)
        try L.appendInserts(a, 2)
        _ = try a.store.backup(to: scratch.store("a2.bak"))
        try L.appendInserts(a, 1)
        _ = try a.store.backup(to: scratch.store("a3.bak"))
        try L.appendInserts(a, 3)  // the stream holds 4…6
        L.expectCompacted(firstSeq: 4, next: 3) {
            _ = try Replica.start(at: scratch.store("c"), fromBackup: scratch.store("a2.bak"), servers: servers.urls, stream: "s")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.store("c")))
        // A backup at 3, whose next (4) is the stream's first message, starts.
        let d = try Replica.start(at: scratch.store("d"), fromBackup: scratch.store("a3.bak"), servers: servers.urls, stream: "s")
        #expect(try d.replica.store.head == 6)
        #expect(try L.entries(d.replica.store, from: 4) == L.entries(a.store, from: 4))
    }

    @Test func whatIsNotABackupOfAReplicaOfTheStreamIsRefused() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try L.appendInserts(a, 1)
        let t = try Replica.create(at: scratch.store("t"), schema: F.schema, servers: servers.urls, stream: "t")
        _ = try t.store.backup(to: scratch.store("t.bak"))
        let plain = try LogStore.create(at: scratch.store("plain"), schema: F.schema)
        try plain.append([F.insert("p", height: 100)])
        try FileManager.default.createDirectory(atPath: scratch.store("empty"), withIntermediateDirectories: false)
        func refusal(_ backup: String) -> ReplicationError? {
            do {
                _ = try Replica.start(at: scratch.store("c"), fromBackup: scratch.store(backup), servers: servers.urls, stream: "s")
                return nil
            } catch {
                return error
            }
        }
        guard case .store(let notAStore)? = refusal("empty") else { Issue.record("an empty directory started a replica"); return }
        #expect(notAStore.code == .notAStore, "\(notAStore)")
        guard case .store? = refusal("missing") else { Issue.record("a missing directory started a replica"); return }
        guard case .notAReplica(let path)? = refusal("plain") else { Issue.record("a plain store started a replica"); return }
        #expect(path == scratch.store("plain"))
        guard case .streamMismatch(let stream, let reason)? = refusal("t.bak") else { Issue.record("another stream's backup started"); return }
        #expect(stream == "s" && reason.contains("stream t, not of s"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: scratch.store("c")))
        // A path that exists is refused too, and left as it was.
        try FileManager.default.createDirectory(atPath: scratch.store("c"), withIntermediateDirectories: false)
        _ = try a.store.backup(to: scratch.store("a.bak"))
        guard case .store(.alreadyExists)? = refusal("a.bak") else { Issue.record("started over an existing path"); return }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.store("c")).isEmpty)
    }
}

/// DESIGN §13 on a replica: its own `compact` is local; the next catch-up must not take the removed entries for a
/// stream that lost them.
@Suite(.serialized) struct ReplicaCompactionTests {
    typealias F = ReplicationFixtures
    typealias L = StreamLimitsTests

    @Test func aReplicaCompactedToItsHeadSyncsAndFollowsOn() async throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try L.appendInserts(a, 3)
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        let result = try b.store.compact(.keepLast(0))
        #expect(result.horizon == 3 && result.moved)
        #expect(try b.store.encodedTransaction(at: 3) == nil)
        try L.appendInserts(a, 2)
        // A replica opened again checks its head first: seq 3, which the local log no longer holds.
        let reopened = try Replica.open(b.store)
        #expect(try reopened.sync() == 5)
        #expect(try L.entries(b.store, from: 4) == L.entries(a.store, from: 4))
        // Its appends and a follower go on too.
        #expect(try reopened.append([F.insert("b1", height: 160)]) == [6])
        try reopened.store.compact(.keepLast(0))
        let follower = try Replica.open(b.store)
        try L.appendInserts(a, 1)
        for try await head in follower.follow() where head >= 7 { break }
        #expect(try L.entries(b.store, from: 7) == L.entries(a.store, from: 7))
        #expect(try b.store.verify().isOK)
    }

    /// The compaction does not weaken the check where the local log still holds the head: a stream that replaced
    /// it is still a divergence.
    @Test func aCompactedReplicaStillSeesADivergenceAtItsHead() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let logs = try L.twoLogs(4, limitOfY: nil)
        try logs.x.store.compact(.keepLast(2))
        let moved = try Replica.open(logs.x.store, servers: logs.other.urls)
        do {
            try moved.sync()
            Issue.record("a replica followed a stream with other transactions")
        } catch {
            guard case let .diverged(_, seq, _) = error else { Issue.record("\(error)"); return }
            #expect(seq == 3)  // the first seq the compacted local log holds
        }
    }
}
