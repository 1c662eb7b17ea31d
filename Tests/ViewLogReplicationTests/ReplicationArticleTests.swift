import Foundation
import Testing
import TestSupport
import ViewLog
import ViewLogReplication

/// The Replication article's code, run against a real nats-server on loopback (`DocArticleTests` checks that every
/// block of the article appears here).
@Suite struct ReplicationArticleTests {
    @Test func theArticleRuns() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let cluster = try NATSServers(count: 1)
        let scratch = try Scratch()
        let (pathA, pathB, servers, schema) = (scratch.store("a"), scratch.store("b"), cluster.urls, ReplicationFixtures.schema)
        let a = try Replica.create(at: pathA, schema: schema, servers: servers, stream: "shop")
        let b = try Replica.join(at: pathB, servers: servers, stream: "shop")
        let seqs = try a.append([TransactionRequest(author: "web", changes: [
            .insert(entity: "Employee", id: "e1", values: ["name": "Ann", "height": 180]),
        ])])
        #expect(seqs == [1])
        try b.sync()                                   // apply everything past the local head
        let state = try b.state()                      // stream, last applied seq, lag
        #expect(state.lastApplied == 1 && state.lag == 0)
        #expect(try b.store.object(ObjectKey(entity: "Employee", id: "e1"))?["name"] == "Ann")
    }
}
