import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Log format 2: object rows and metadata records carry a CRC-32C checked on every read (DESIGN §3). A changed
/// byte anywhere in one of them is an error naming the record — never other data, never a crash.
@Suite("Checksummed records")
struct ChecksummedRecordsTests {
    @Test func objectRecordsRoundTripAndEveryTruncationOrFlipIsAnError() throws {
        var g = SeededGenerator(stream: 70)
        for round in 0..<120 {
            let schema = RandomSchemas.schema(using: &g)
            guard let entity = schema.entities.values.first else { continue }
            let values = RandomValues.values(for: entity, jsonSafe: false, using: &g)
            let seq = UInt64.random(in: 1...UInt64(Int64.max), using: &g)
            let key = ObjectRecordCodec.key(ObjectKey(entity: entity.name, id: RandomValues.id(for: entity, using: &g)))
            let bytes = ObjectRecordCodec.encode(values: values, seq: seq, key: key)
            func decode(_ b: [UInt8], _ k: [UInt8] = key) throws(CodecError) -> (values: ObjectValues, seq: UInt64) {
                let r = b.withUnsafeBytes { raw in k.withUnsafeBytes { kb in Result { () throws(CodecError) in try ObjectRecordCodec.decode(raw, key: kb) } } }
                return try r.get()
            }
            let decoded = try decode(bytes)
            #expect(decoded.seq == seq && decoded.values == values || values.values.contains { if case .double(let d) = $0 { d.isNaN } else { false } },
                    "round \(round), \(g.rerunHint)")
            #expect(ObjectRecordCodec.encode(values: decoded.values, seq: decoded.seq, key: key) == bytes, "\(g.rerunHint)")
            for n in 0..<bytes.count {
                #expect(throws: CodecError.self, "truncated to \(n), \(g.rerunHint)") { try decode(Array(bytes[..<n])) }
            }
            for i in 0..<bytes.count {
                var flipped = bytes
                flipped[i] ^= UInt8.random(in: 1...255, using: &g)
                #expect(throws: CodecError.self, "byte \(i) changed, \(g.rerunHint)") { try decode(flipped) }
            }
            #expect(throws: CodecError.self, "the row under another key") { try decode(bytes, key + [0x41]) }
            #expect(throws: CodecError.self, "a format-1 row in a format-2 store") {
                try decode(ObjectRecordCodec.encode(values: values, seq: seq))
            }
        }
    }

    /// A store with a schema change, objects and a few transactions.
    func makeStore() throws -> LogStore {
        let store = try LogStore.create(at: newStorePath(), schema: try employeesSchema(), options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180)]),
                          .insert(entity: "Employee", id: .string("e2"), values: ["name": .string("Bob"), "height": .int(160)])], author: "t")
        let text = employeesSchemaText.replacingOccurrences(of: #""name": {"type": "string"},"#,
                                                            with: #""name": {"type": "string"}, "zone": {"type": "string", "optional": true},"#)
        try #require(try store.updateSchema(try Schema(jsonText: text), author: "t") != nil)
        try store.append([.update(entity: "Employee", id: .string("e2"), values: ["height": .int(190), "zone": .string("z")])], author: "t")
        return store
    }

    /// Everything a reader can be served, as text; or the error it got.
    func reads(_ store: LogStore) -> [String] {
        func attempt(_ body: () throws -> String) -> String {
            do { return try body() } catch let e as StoreError { return "error" + (e.description.isEmpty ? "" : "") } catch { return "other error: \(error)" }
        }
        return [
            attempt { "\(try store.head)" },
            attempt { try store.schema.json.text },
            attempt { try store.schema(at: 1).json.text },
            attempt { "\(try store.objects(of: "Employee").map { "\($0.id) \($0.values.sorted { $0.key < $1.key })" })" },
            attempt { "\(try store.object(employee("e2"), at: 1).map { $0.sorted { $0.key < $1.key } } as Any)" },
            attempt { "\(try store.delta(from: 0, to: 3).objects.count)" },
        ]
    }

    @Test func everyChangedByteOfAMetadataRecordOrObjectRowIsAnErrorNeverOtherData() throws {
        let store = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        #expect(try store.format == LogStore.formatVersion)
        let good = reads(store)
        #expect(!good.contains { $0.hasPrefix("error") || $0.hasPrefix("other") })
        let records: [(db: LMDBDatabaseRef, key: [UInt8])] = [
            (.meta, MetaKey.format), (.meta, MetaKey.head), (.meta, MetaKey.schema(at: 0)), (.meta, MetaKey.schema(at: 2)),
            (.objects, ObjectRecordCodec.key(employee("e1"))), (.objects, ObjectRecordCodec.key(employee("e2"))),
        ]
        var g = SeededGenerator(stream: 71)
        var errors = 0
        for record in records {
            let db = record.db == .meta ? store.metaDB : store.objectsDB
            let original = try #require(try store.environment.read { txn in try txn.value(db, for: record.key) })
            // Every byte of the small records; a seeded sample of the schemas' bytes.
            let positions = original.count <= 64 ? Array(0..<original.count)
                : (0..<48).map { _ in Int.random(in: 0..<original.count, using: &g) }
            for i in positions {
                var damaged = original
                damaged[i] ^= UInt8.random(in: 1...255, using: &g)
                try store.environment.write { txn in try txn.put(db, key: record.key, value: damaged) }
                let got = reads(store)
                for (a, b) in zip(got, good) where a != b {
                    #expect(a == "error", "byte \(i) of \(String(decoding: record.key.prefix(12), as: UTF8.self)) served \(a) instead of \(b), \(g.rerunHint)")
                    errors += 1
                }
                let verified = Result { try store.verify() }
                if case .success(let report) = verified {
                    #expect(!report.isOK, "verify missed byte \(i) of \(record.key), \(g.rerunHint)")
                }
            }
            try store.environment.write { txn in try txn.put(db, key: record.key, value: original) }
            #expect(reads(store) == good)
        }
        #expect(errors > 0)
        #expect(try store.verify().isOK)
    }

    @Test func aChangedNumberInTheStoredSchemaIsAnErrorNamingTheSchema() throws {
        // Unchecked, `height > 170` → `970` would make `query tall` return no rows while verify says ok.
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: Fixtures.employeesJSON), options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180)])], author: "t")
        let key = MetaKey.schema(at: 0)
        try store.environment.write { txn in
            var bytes = try #require(try txn.value(store.metaDB, for: key))
            let text = String(decoding: bytes, as: UTF8.self)
            let at = try #require(text.utf8.firstRange(of: Array("> 170".utf8)))
            bytes[text.utf8.distance(from: text.utf8.startIndex, to: at.lowerBound) + 2] = UInt8(ascii: "9")
            try txn.put(store.metaDB, key: key, value: bytes)
        }
        #expect { try store.schema } throws: { error in
            "\(error)".contains("the schema of position 0") && "\(error)".contains("checksum")
        }
        let report = try store.verify()
        #expect(report.problems.contains { $0.contains("the schema of position 0 in the metadata fails its checksum") }, "\(report)")
    }

    @Test func aChangedHeadIsAnErrorNamingTheHead() throws {
        let store = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.environment.write { txn in
            var bytes = try #require(try txn.value(store.metaDB, for: MetaKey.head))
            bytes[7] = 2  // head 3 → 2, checksum unchanged
            try txn.put(store.metaDB, key: MetaKey.head, value: bytes)
        }
        #expect { try store.head } throws: { "\($0)".contains("the head in the metadata fails its checksum") }
        #expect(throws: StoreError.self) { try store.append([.delete(entity: "Employee", id: .string("e1"))], author: "t") }
    }
}

/// Which database of a store a test damages.
enum LMDBDatabaseRef { case meta, objects }
