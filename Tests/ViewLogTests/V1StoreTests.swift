import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A store of log format 1, made by the format-1 code (`Tests/ViewLogTests/V1Store`): it must still open and
/// read exactly as that code read it.
@Suite("Version-1 store")
struct V1StoreTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("V1Store")

    /// A copy of the fixture in a new directory, removed when `body` returns.
    static func withCopy(_ body: (String) throws -> Void) throws {
        try withCopyOfStore(fixture, body)
    }

    static func expectedExport() throws -> [String] {
        let text = try String(contentsOf: fixture.appendingPathComponent("export.jsonl"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    @Test func opensAndReadsAsTheFormat1CodeDid() throws {
        try Self.withCopy { path in
            let store = try LogStore.open(at: path)
            #expect(try store.head == 9)
            var schema = try store.schema(at: 0)
            var lines: [String] = []
            try store.forEachTransaction { t in
                for case .schema(let s, _) in t.changes { schema = s }
                lines.append(t.json(schema: schema).text)
            }
            #expect(lines == (try Self.expectedExport()))
            #expect(try store.verify().isOK)
            #expect(try store.schema(at: 5).entities["Badge"]?.attribute(named: "level") == nil)
            #expect(try store.schema(at: 6).entities["Badge"]?.attribute(named: "level")?.defaultValue == .int(1))
            let badges = try store.objects(of: "Badge")
            #expect(badges.map(\.id) == [.int(-7), .int(5), .int(42)])
            #expect(badges.map { $0.values["level"] } == [.int(2), .int(3), .int(1)])
            #expect(try store.object(ObjectKey(entity: "Employee", id: .string("e1")), at: 4)?["hired"]
                    == .date(Timestamp(milliseconds: 1_767_323_045_678)))
            #expect(try store.object(ObjectKey(entity: "Employee", id: .string("e1"))) == nil)
            let e2 = try #require(try store.object(ObjectKey(entity: "Employee", id: .string("e2"))))
            #expect(e2["salary"].map { if case .double(let d) = $0 { d.sign == .minus && d == 0 } else { false } } == true)
        }
    }

    @Test func upgradesToTheCurrentFormatAndReadsTheSame() throws {
        try Self.withCopy { path in
            let store = try LogStore.open(at: path)
            #expect(try store.format == 1)
            #expect(try store.upgrade() == 1)
            #expect(try store.format == LogStore.formatVersion)
            #expect(try store.upgrade() == LogStore.formatVersion, "a second upgrade does nothing")
            var schema = try store.schema(at: 0)
            var lines: [String] = []
            try store.forEachTransaction { t in
                for case .schema(let s, _) in t.changes { schema = s }
                lines.append(t.json(schema: schema).text)
            }
            #expect(lines == (try Self.expectedExport()))
            #expect(try store.verify().isOK)
            #expect(try store.objects(of: "Badge").map { $0.values["level"] } == [.int(2), .int(3), .int(1)])
            // Now checksummed: a changed byte of a row is an error, not other data.
            let key = ObjectRecordCodec.key(ObjectKey(entity: "Badge", id: .int(42)))
            try store.environment.write { txn in
                var row = try #require(try txn.value(store.objectsDB, for: key))
                row[row.count - 6] ^= 0x01
                try txn.put(store.objectsDB, key: key, value: row)
            }
            #expect(throws: StoreError.self) { try store.objects(of: "Badge") }
            #expect(try store.verify().isOK == false)
        }
    }

    @Test func aDamagedV1StoreIsNotUpgraded() throws {
        try Self.withCopy { path in
            let store = try LogStore.open(at: path)
            let key = ObjectRecordCodec.key(ObjectKey(entity: "Badge", id: .int(5)))
            try store.environment.write { txn in
                try txn.put(store.objectsDB, key: key, value: ObjectRecordCodec.encode(values: ["label": .string("z"), "level": .int(3)], seq: 7))
            }
            #expect(throws: StoreError.self) { try store.upgrade() }
            #expect(try store.format == 1, "nothing changed")
        }
    }

    @Test func takesNewAppends() throws {
        try Self.withCopy { path in
            let store = try LogStore.open(at: path)
            let t = try store.append([.update(entity: "Badge", id: .int(42), values: ["label": .string("new")])], author: "now")
            #expect(t.seq == 10)
            #expect(try store.object(ObjectKey(entity: "Badge", id: .int(42)))?["label"] == .string("new"))
            #expect(try store.verify().isOK)
        }
    }
}

/// Runs `body` with the path of a copy of the store fixture in `directory` (its `data.mdb`) in a new directory (opening
/// writes `lock.mdb`, so a fixture is never opened in place); the copy is removed when `body` returns.
func withCopyOfStore(_ directory: URL, _ body: (String) throws -> Void) throws {
    let path = newStorePath()
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try FileManager.default.copyItem(atPath: directory.appendingPathComponent("data.mdb").path, toPath: path + "/data.mdb")
    try body(path)
}
