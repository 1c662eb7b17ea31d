import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A store of log format 2 made before the `checkpoints` database existed (`Tests/ViewLogTests/V2StoreBeforeCheckpoints`):
/// it must open, read-only too, read exactly as that code exported it, and take checkpoints from its next appends.
@Suite("Version-2 store made before checkpoints")
struct V2StoreBeforeCheckpointsTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("V2StoreBeforeCheckpoints")

    static func withCopy(_ body: (String) throws -> Void) throws {
        try withCopyOfStore(fixture, body)
    }

    static func export(_ store: LogStore) throws -> [String] {
        let schema = try store.schema
        var lines: [String] = []
        try store.forEachTransaction { lines.append($0.json(schema: schema).text) }
        return lines
    }

    static func expectedExport() throws -> [String] {
        try String(contentsOf: fixture.appendingPathComponent("export.jsonl"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    @Test func opensReadOnlyWithoutCheckpoints() throws {
        try Self.withCopy { path in
            let store = try LogStore.open(at: path, options: StoreOptions(readOnly: true))
            #expect(store.checkpointsDB == nil, "a read-only open adds nothing")
            #expect(try store.format == 2)
            #expect(try Self.export(store) == (try Self.expectedExport()))
            #expect(try store.verify().isOK)
            let stats = try store.statistics()
            #expect(stats.checkpoints.isEmpty && stats.checkpointBuilding == nil)
            for p in 0...(try store.head) {
                #expect(try store.objects(of: "Employee", at: p).count == (try store.objects(of: "Employee", at: p, via: .foldFromStart)).count)
            }
        }
    }

    @Test func opensForWritingAndBuildsCheckpoints() throws {
        try Self.withCopy { path in
            let policy = CheckpointPolicy(minimumEntries: 5, entriesPerRow: 0, rowsCopiedPerChange: 1, rowsCopiedPerWrite: 1)
            let store = try LogStore.open(at: path, options: StoreOptions(durable: false, checkpoints: policy))
            #expect(store.checkpointsDB != nil, "the database is added")
            #expect(try Self.export(store) == (try Self.expectedExport()))
            let before = try store.head
            let alive = try #require(try store.objects(of: "Employee").first?.id)
            for i in 0..<30 {
                try store.append([.update(entity: "Employee", id: alive, values: ["height": .int(Int64(150 + i))]),
                                  .insert(entity: "Employee", id: .string("n\(i)"), values: ["name": .string("n")])], author: "t")
            }
            let directory = try store.perform(read: true) { txn in try store.checkpointDirectory(in: txn) }
            #expect(directory.complete.count >= 3 && directory.complete[0] > before, "\(directory.complete)")
            let report = try store.verify()
            #expect(report.isOK && report.checkpoints >= 3, "\(report)")
            for p in 0...(try store.head) {
                let viaCheckpoints = try store.objects(of: "Employee", at: p).map { "\($0.id) \($0.values.sorted { $0.key < $1.key })" }
                let fromStart = try store.objects(of: "Employee", at: p, via: .foldFromStart).map { "\($0.id) \($0.values.sorted { $0.key < $1.key })" }
                #expect(viaCheckpoints == fromStart, "at \(p)")
            }
            #expect(Array(try Self.export(store).prefix(Int(before))) == (try Self.expectedExport()))
        }
    }
}
