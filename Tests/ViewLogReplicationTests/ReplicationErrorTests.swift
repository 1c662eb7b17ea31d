import Foundation
import Testing
import ViewLog
@testable import ViewLogReplication

/// `localizedDescription` says what went wrong (issue 38): the replication errors are `LocalizedError`s whose
/// `errorDescription` is their `description`.
@Suite struct ReplicationErrorTests {
    @Test func replicationErrorsSayWhatWentWrong() {
        let errors: [any ViewLogError] = [
            ReplicationError.noStream("orders"),
            ReplicationError.unreachable(servers: ["nats://127.0.0.1:4222"], reason: "connection refused"),
            ReplicationError.store(.emptyInput),
            ReplicaAppendError(transaction: 1, committed: [7], reason: .gaveUp(stream: "orders", reason: "timeout")),
        ]
        for error in errors {
            #expect((error as any Error).localizedDescription == error.description)
            #expect(error.errorDescription == error.description)
            #expect(!error.localizedDescription.contains("The operation could not be completed"))
        }
    }
}
