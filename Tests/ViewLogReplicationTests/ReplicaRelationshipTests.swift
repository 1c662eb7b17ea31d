import Foundation
import Testing
import TestSupport
@_spi(Replication) import ViewLog
import ViewLogTesting
@testable import ViewLogReplication

/// Relationships on replicas (DESIGN §9 with §10): a delete's rules run once, on the replica that appends it, and the
/// stream carries their logged consequences; every other replica applies them as logged, and a view over key paths
/// on a follower moves exactly the rows a related object's change reaches.
@Suite(.serialized) struct ReplicaRelationshipTests {
    static let schema: Schema = {
        let text = """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "string", "attributes": {"name": {"type": "string"}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}}}
            """
        do { return try Schema(jsonText: text) } catch { preconditionFailure("fixture schema: \(error)") }
    }()

    @Test func aFollowersViewOverKeyPathsMovesTheRowsARenameOnAnotherReplicaReaches() throws {
        try #require(NATSServers.isInstalled, "nats-server is not installed (tools/install-deps)")
        let servers = try NATSServers(count: 1)
        let scratch = try Scratch()
        let a = try Replica.create(at: scratch.store("a"), schema: Self.schema, servers: servers.urls, stream: "company")
        func employee(_ id: String, _ department: Int64?) -> ChangeRequest {
            .insert(entity: "Employee", id: .string(id), values: ["name": .string(id), "department": department.map(Value.int) ?? .null])
        }
        _ = try a.append([TransactionRequest(author: "hr", changes: [
            .insert(entity: "Department", id: .int(1), values: ["name": .string("Sales")]),
            .insert(entity: "Department", id: .int(2), values: ["name": .string("Ops")]),
            employee("ann", 1), employee("bob", 2), employee("cy", 1)])])
        let b = try Replica.join(at: scratch.store("b"), servers: servers.urls, stream: "company")
        let context = try Context(store: b.store, name: "ui")
        let view = try context.makeResultsController(FetchRequest(
            entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")],
            sectionKey: "department.name"))
        #expect(view.snapshot.sections.map(\.rows) == [[.string("bob")], [.string("ann"), .string("cy")]])
        var changes: [ChangeSet] = []
        let o = view.observe { if case .changes(let c) = $0 { changes.append(c) } }
        defer { o.cancel() }
        // A renames Sales (after Ops → before it), then deletes Ops: its rule (nullify) runs on A and is logged.
        _ = try a.append([TransactionRequest(author: "hr", changes: [.update(entity: "Department", id: .int(1), values: ["name": .string("Alpha")])])])
        let deleted = try a.append([TransactionRequest(author: "hr", changes: [.delete(entity: "Department", id: .int(2))])])
        #expect(try b.sync() == deleted.last)
        let before = view.snapshot
        try context.refresh()
        #expect(view.snapshot.sections.map(\.rows) == [[.string("bob")], [.string("ann"), .string("cy")]])
        #expect(view.sections.map(\.name) == [nil, "Alpha"])
        let batch = try #require(changes.last)
        #expect(ChangeSetValidator.validate(batch, from: before, to: view.snapshot).isEmpty)
        #expect(Set(batch.rowChanges.map(\.id)) == [.string("ann"), .string("bob"), .string("cy")])
        // The follower holds the consequence as logged, and its index agrees.
        let logged = try b.store.transactions(after: 2)
        #expect(logged.last?.changes.count == 2)
        #expect(try b.store.object(ObjectKey(entity: "Employee", id: .string("bob")))?["department"] == .null)
        #expect(try b.store.verify().isOK)
    }
}
