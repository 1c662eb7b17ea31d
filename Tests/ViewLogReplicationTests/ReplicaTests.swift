import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
@testable import ViewLogReplication

/// The library API against one `nats-server` on loopback.
@Suite(.serialized) struct ReplicaTests {
    @Test func createAppendJoinAndSync() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: ReplicationFixtures.schema, servers: servers.urls, stream: "shop")
        let seqs = try a.append([ReplicationFixtures.insert("e1", height: 180), ReplicationFixtures.insert("e2", height: 160)])
        #expect(seqs == [1, 2])
        #expect(try a.store.head == 2)
        #expect(try a.store.replicaLink?.stream == "shop")
        // A joiner needs nothing but the stream: schema from its description, transactions from its messages.
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "shop")
        #expect(try b.store.head == 2)
        #expect(try b.store.schema == ReplicationFixtures.schema)
        #expect(try ReplicationFixtures.entries(a.store) == ReplicationFixtures.entries(b.store))
        // An append on B, then A syncs.
        #expect(try b.append([ReplicationFixtures.update("e1", height: 150)]) == [3])
        #expect(try a.sync() == 3)
        #expect(try ReplicationFixtures.entries(a.store) == ReplicationFixtures.entries(b.store))
        let state = try a.state()
        #expect(state.lastApplied == 3 && state.streamLast == 3 && state.lag == 0 && state.stream == "shop")
    }

    @Test func aReplicaRefusesLocalOnlyAppends() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: ReplicationFixtures.schema, servers: servers.urls, stream: "s1")
        #expect(throws: StoreError.replica(path: a.store.path, stream: "s1")) {
            try a.store.append([ReplicationFixtures.insert("e1", height: 180)])
        }
        #expect(try a.store.head == 0)
    }
}

/// Semantics §9 relies on, and the faults it must refuse.
@Suite(.serialized) struct ReplicaFaultTests {
    typealias F = ReplicationFixtures

    @Test func noServerCreatesNothing() throws {
        let scratch = try Scratch()
        let port = try NATSServers.freePort()
        #expect {
            _ = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: ["nats://127.0.0.1:\(port)"], stream: "s")
        } throws: { error in
            guard case ReplicationError.unreachable = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.store("a")))
    }

    @Test func noServerAppendsNothingAndReadsStillWork() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try a.append([F.insert("e1", height: 180)])
        servers.stop()
        // A new connection to a dead server fails at once; the store still reads.
        #expect(throws: ReplicationError.self) { _ = try Replica.open(at: scratch.store("a")) }
        let store = try LogStore.open(at: scratch.store("a"))
        #expect(try store.head == 1)
        #expect(try store.object(ObjectKey(entity: "Employee", id: .string("e1"))) != nil)
    }

    /// A publish retried after a lost acknowledgement is stored once: nats-server 2.9 answers it with the first
    /// one's sequence, marked duplicate; 2.12 checks the expected last sequence first and answers "wrong last
    /// sequence" (then the append's catch-up finds the transaction by its message id:
    /// `aCrashBetweenAckAndCommitIsRepairedByCatchUp`).
    @Test func aRetriedPublishIsDeduplicated() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        let prepared = try a.store.prepareEncoded(F.insert("e1", height: 180))
        let first = try a.connection.publish(prepared.bytes, subject: a.subject, messageID: "m1", expectedLastSeq: 0, expectedStream: "s")
        let again = try a.connection.publish(prepared.bytes, subject: a.subject, messageID: "m1", expectedLastSeq: 0, expectedStream: "s")
        #expect(first == .stored(seq: 1, duplicate: false))
        #expect(again == .stored(seq: 1, duplicate: true) || again == .wrongLastSequence)
        #expect(try a.state().streamLast == 1)
        // Another message id with a stale expected sequence is refused.
        let stale = try a.connection.publish(prepared.bytes, subject: a.subject, messageID: "m2", expectedLastSeq: 0, expectedStream: "s")
        #expect(stale == .wrongLastSequence)
    }

    /// A crash between the acknowledgement and the local commit: the transaction is in the stream, not in the
    /// store. The next append of it (same message id) finds it by its id on catch-up and does not publish it again.
    @Test func aCrashBetweenAckAndCommitIsRepairedByCatchUp() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        let request = F.insert("e1", height: 180)
        let prepared = try a.store.prepareEncoded(request)
        _ = try a.connection.publish(prepared.bytes, subject: a.subject, messageID: "m-lost", expectedLastSeq: 0, expectedStream: "s")
        #expect(try a.store.head == 0)
        #expect(try a.appendOne(request, messageID: "m-lost") == 1)
        #expect(try a.store.head == 1)
        #expect(try a.state().streamLast == 1)
        #expect(try a.store.encodedTransaction(at: 1) == prepared.bytes)
    }

    /// The same, when another process sharing the store (a `watch` following the stream) committed the
    /// transaction before the writer's catch-up: it is found by its message id in the stream, not refused as
    /// "the id exists already" (a partition in tools/replication-test makes this happen).
    @Test func aLostAckCommittedByAnotherFollowerIsFoundByItsID() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        let request = F.insert("e1", height: 180)
        let prepared = try a.store.prepareEncoded(request)
        _ = try a.connection.publish(prepared.bytes, subject: a.subject, messageID: "m-lost", expectedLastSeq: 0, expectedStream: "s")
        let follower = try Replica.open(a.store, servers: servers.urls)  // another follower of the same store
        #expect(try follower.sync() == 1)
        #expect(try a.appendOne(request, messageID: "m-lost", publishedAfter: 0) == 1)
        #expect(try a.state().streamLast == 1)
        #expect(try a.store.head == 1)
    }

    @Test func aMessageFailingItsChecksumIsRefusedNamingItsSeq() throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try a.append([F.insert("e1", height: 180)])
        var damaged = try a.store.prepareEncoded(F.insert("e2", height: 170)).bytes
        damaged[damaged.count - 1] ^= 0x40
        #expect(try a.connection.publishRaw(damaged, subject: a.subject) == 2)
        #expect(throws: (any Error).self) { try a.sync() }
        do { try a.sync(); Issue.record("a damaged message was applied") } catch {
            guard case let .corruptMessage(stream, seq, reason) = error else { Issue.record("\(error)"); return }
            #expect(stream == "s" && seq == 2)
            #expect(error.description.contains("seq 2"), "\(reason)")
        }
        #expect(try a.store.head == 1)
        #expect(throws: (any Error).self) { _ = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s") }
        #expect(try LogStore.open(at: scratch.store("b")).head == 1)
    }

    /// Two streams of the same name on two servers with other transactions at seq 1: a replica of one, pointed
    /// at the other, is refused naming seq 1.
    @Test func aReplicaWhoseLogDisagreesWithTheStreamIsRefusedNamingTheSeq() throws {
        try #require(NATSServers.isInstalled)
        let one = try NATSServers(count: 1), two = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: one.urls, stream: "s")
        try a.append([F.insert("e1", height: 180)])
        let c = try Replica.create(at: scratch.store("c"), schema: F.schema, servers: two.urls, stream: "s")
        try c.append([F.insert("e2", height: 180), F.insert("e3", height: 180)])
        let moved = try Replica.open(at: scratch.store("a"), servers: two.urls)
        do { try moved.sync(); Issue.record("a diverged log was accepted") } catch {
            guard case let .diverged(_, seq, _) = error else { Issue.record("\(error)"); return }
            #expect(seq == 1)
        }
        #expect(throws: ReplicaAppendError.self) { try moved.append([F.insert("e4", height: 180)]) }
        #expect(try a.store.head == 1)
        // A local log longer than the stream is refused too, naming the first seq that differs (1: e2 is not e1).
        let back = try Replica.open(at: scratch.store("c"), servers: one.urls)
        do { try back.sync(); Issue.record("a longer local log was accepted") } catch {
            guard case let .diverged(_, seq, _) = error else { Issue.record("\(error)"); return }
            #expect(seq == 1)
        }
    }

    /// Two writers on two replicas of one stream, racing: every append lands once, seqs are contiguous, and
    /// both logs end equal (wrong-last-sequence → catch up → validate → retry).
    @Test func racingWritersOnTwoReplicas() async throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        let perWriter = 25
        async let fromA = Task.detached { try (0..<perWriter).flatMap { i in try a.append([F.insert("a\(i)", height: 160 + Int64(i))]) } }.value
        async let fromB = Task.detached { try (0..<perWriter).flatMap { i in try b.append([F.insert("b\(i)", height: 160 + Int64(i))]) } }.value
        let seqs = try await fromA + fromB
        #expect(Set(seqs).count == 2 * perWriter)
        #expect(seqs.sorted() == Array(1...UInt64(2 * perWriter)))
        try a.sync()
        try b.sync()
        #expect(try F.entries(a.store) == F.entries(b.store))
        #expect(try a.store.objects(of: "Employee").count == 2 * perWriter)
    }
}

/// A view on replica B reports the insert and the delete that appends on replica A cause — the sibling-context
/// case of DESIGN's introduction, across machines: B's context merges automatically while B follows the stream.
@Suite(.serialized) struct ReplicaViewTests {
    typealias F = ReplicationFixtures

    @MainActor @Test func aContextOnAReplicaMergesAnotherReplicasAppends() async throws {
        try #require(NATSServers.isInstalled)
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try a.append([F.insert("e1", height: 150)])  // not in the view "tall" (height > 170)
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        let context = try Context(store: b.store, name: "ui")
        let controller = try context.makeResultsController(view: "tall")
        #expect(controller.fetchedObjects.isEmpty)
        var events = controller.changes.makeAsyncIterator()
        let merging = Task { @MainActor in try await context.mergeChangesAutomatically() }
        let following = Task.detached { for try await _ in b.follow() {} }
        defer { merging.cancel(); following.cancel() }
        // e1 was never registered in B's context: an update on A makes it match, then stop matching.
        try a.append([F.update("e1", height: 180)])
        let first = try #require(await Self.nextChangeSet(&events))
        #expect(first.rowChanges.map(\.id) == [.string("e1")])
        #expect(first.rowChanges.first?.kind == .insert)
        try a.append([F.update("e1", height: 160)])
        let second = try #require(await Self.nextChangeSet(&events))
        #expect(second.rowChanges.first?.kind == .delete)
        #expect(controller.fetchedObjects.isEmpty)
        #expect(context.position == 3)
    }

    /// The next batch of a view's events, past the snapshot a subscription starts with.
    static func nextChangeSet(_ events: inout AsyncStream<ViewEvent>.Iterator) async -> ChangeSet? {
        while let event = await events.next() {
            if case .changes(let changes) = event { return changes }
        }
        return nil
    }
}
