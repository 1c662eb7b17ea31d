import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `viewlog checkpoints` and what the CLI says about a damaged checkpoint: the error names it and how to repair it,
/// and `--drop` repairs it. The store is made through the library with a policy that builds checkpoints within a
/// few dozen appends (the CLI always uses the standard policy, which needs 65,536 entries).
@Suite("Checkpoints (CLI)")
struct CheckpointsCLITests {
    @Test func listsDropsAndRepairs() throws {
        let box = try Sandbox()
        let schema = try Schema(jsonText: """
            {"entities": {"Item": {"id": "int", "attributes": {"n": {"type": "int"}}}}}
            """)
        let policy = CheckpointPolicy(minimumEntries: 8, entriesPerRow: 0, rowsCopiedPerChange: 2, rowsCopiedPerWrite: 2)
        let complete: [UInt64]
        do {
            let store = try LogStore.create(at: box.file("s"), schema: schema, options: StoreOptions(durable: false, checkpoints: policy))
            for i in 0..<40 {
                try store.append([.insert(entity: "Item", id: .int(Int64(i)), values: ["n": .int(Int64(i))]),
                                  .update(entity: "Item", id: .int(Int64(i / 2)), values: ["n": .int(-1)])], author: "t")
            }
            complete = try store.statistics().checkpoints
            try #require(complete.count >= 2, "\(complete)")
        }
        let listed = try box.run(["checkpoints", "s", "--json"])
        #expect(listed.status == 0)
        let json = try JSONValue.parse(listed.stdout.trimmingCharacters(in: .newlines))
        #expect(json["complete"] == .array(complete.map { .int(Int64($0)) }), "\(listed.stdout)")
        let human = try box.run(["checkpoints", "s"])
        #expect(human.stdout.hasPrefix("complete  \(complete.map(String.init).joined(separator: ", "))\n"), "\(human.stdout)")
        let stats = try box.run(["stats", "s"])
        #expect(stats.stdout.contains("checkpoints       \(complete.count), the newest at seq \(complete.last!)"), "\(stats.stdout)")

        // Damage one row of the first checkpoint: a query through it fails, naming it and the repair.
        let first = complete[0]
        do {
            let store = try LogStore.open(at: box.file("s"))
            try store.perform { txn in
                var found: ([UInt8], [UInt8])?
                try txn.scan(store.checkpointsDB!, prefix: bigEndianBytes(first)) { e in
                    found = (Array(e.key), Array(e.value))
                    return .stop
                }
                var (key, value) = try #require(found)
                value[value.count - 1] ^= 0x01
                try txn.put(store.checkpointsDB!, key: key, value: value)
            }
        }
        let broken = try box.run(["query", "s", "--entity", "Item", "--at", String(first)])
        #expect(broken.status != 0 && broken.errorLines.count == 1, "\(broken)")
        #expect(broken.errorLines.first?.hasPrefix("error: ") == true && broken.stderr.contains("checkpoint at seq \(first)")
                && broken.stderr.contains("viewlog checkpoints STORE --drop"), "\(broken.stderr)")
        let verify = try box.run(["verify", "s"])
        #expect(verify.status != 0 && verify.stdout.contains("the checkpoint at seq \(first)"), "\(verify)")

        let dropped = try box.run(["checkpoints", "s", "--drop"])
        #expect(dropped.status == 0 && dropped.stdout.hasPrefix("dropped the checkpoints of s ("), "\(dropped)")
        #expect(try box.run(["checkpoints", "s"]).stdout.hasPrefix("complete  none\nbuilding  none\n"))
        let repaired = try box.run(["query", "s", "--entity", "Item", "--at", String(first), "--json"])
        #expect(repaired.status == 0, "\(repaired)")
        #expect(try box.run(["verify", "s"]).status == 0)
    }
}
