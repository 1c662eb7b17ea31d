import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
@testable import ViewLogReplication

/// A catch-up during a failover: a server that does not hold a message yet (a leader paused across the election of
/// another, then resumed) answers that the stream has none. The replica asks again before it calls it missing. The
/// answer is injected (``ReplicaFaults``), so each test does the same thing every run.
@Suite(.serialized) struct CatchUpTests {
    typealias F = ReplicationFixtures

    /// A replica one transaction behind, and a stream that holds 3: replica `b` at seq 1, its writer `a` at 3.
    static func behind(_ servers: NATSServers, _ scratch: Scratch) throws -> (a: Replica, b: Replica) {
        let a = try Replica.create(at: scratch.store("a"), schema: F.schema, servers: servers.urls, stream: "s")
        try a.append([F.insert("e1", height: 180)])
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "s")
        try a.append([F.insert("e2", height: 170), F.insert("e3", height: 160)])
        #expect(try b.store.head == 1)
        return (a, b)
    }

    @Test func aMessageMissingForAFewAnswersIsAskedAgain() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let (a, b) = try Self.behind(servers, scratch)
        b.faults.answerMissing(seq: 2, times: 3)
        #expect(try b.sync() == 3)
        #expect(b.faults.reads(of: 2) == 4)  // three "none" answers, then the message
        #expect(try F.entries(a.store) == F.entries(b.store))
    }

    /// The same in an append's catch-up: `b` publishes against its stale head, is refused (wrong last sequence),
    /// catches up through the missing answers, and appends at 4.
    @Test func anAppendsCatchUpAsksAgainToo() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let (a, b) = try Self.behind(servers, scratch)
        b.faults.answerMissing(seq: 3, times: 2)
        #expect(try b.append([F.insert("e4", height: 150)]) == [4])
        #expect(b.faults.reads(of: 3) == 3)
        #expect(try a.sync() == 4)
        #expect(try F.entries(a.store) == F.entries(b.store))
    }

    /// A message still missing after ``ReplicationLimits/missingMessageChecksMax`` more asks is an error naming its
    /// seq, and nothing past it is applied: never a silent gap.
    @Test func aMessageThatStaysMissingIsAnErrorNamingItsSeq() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let (_, b) = try Self.behind(servers, scratch)
        b.faults.answerMissing(seq: 2, times: .max)
        do {
            try b.sync()
            Issue.record("a missing message was skipped")
        } catch {
            guard case let .corruptMessage(stream, seq, reason) = error else { Issue.record("\(error)"); return }
            #expect(stream == "s" && seq == 2)
            #expect(reason.contains("no message at this seq"), "\(reason)")
            #expect(error.code == .corruptMessage)
        }
        #expect(b.faults.reads(of: 2) == ReplicationLimits.missingMessageChecksMax + 1)
        #expect(try b.store.head == 1)
    }
}
