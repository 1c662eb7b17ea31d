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
