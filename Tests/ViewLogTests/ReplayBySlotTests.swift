import LMDB
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `replay --into` and `verify` fold a log without schema changes by slot (``CheckedFold``): entries copied as
/// they are, rows written from their slots, every change checked against them. The other way — change by change,
/// objects as dictionaries — is the reference: over random logs of two entities and every value type, replayed at
/// random positions in chunks of several sizes, the two ways must make the same store byte for byte (every log
/// entry, object row and metadata record), fail the same way on a log that does not replay, and `verify` must
/// find the same problems in the same words on damaged stores.
@Suite("Replay and verify by slot")
struct ReplayBySlotTests {
    static let schemaText = """
        {"entities": {
          "Item": {"id": "int", "attributes": {
            "n": {"type": "int", "default": 0}, "label": {"type": "string", "optional": true},
            "ok": {"type": "bool", "default": false}, "w": {"type": "double", "optional": true},
            "at": {"type": "date", "optional": true}}},
          "Tag": {"id": "string", "attributes": {"w": {"type": "double", "optional": true},
            "name": {"type": "string", "default": ""}}}}}
        """

    static func randomValue(_ name: String, _ g: inout SeededGenerator) -> Value {
        switch name {
        case "n": return .int(Int64.random(in: -1_000...1_000, using: &g))
        case "label": return Bool.random(using: &g) ? .null : .string(["a", "é", "ü", "日本", "x\u{301}", ""].randomElement(using: &g)! + "\(Int.random(in: 0..<50, using: &g))")
        case "ok": return .bool(Bool.random(using: &g))
        case "w": return [.null, .double(-0.0), .double(0.0), .double(Double.random(in: -1e9...1e9, using: &g))].randomElement(using: &g)!
        case "at": return Bool.random(using: &g) ? .null : .date(Timestamp(milliseconds: Int64.random(in: -10_000_000...10_000_000_000, using: &g)))
        default: return .string("t\(Int.random(in: 0..<100, using: &g))")
        }
    }

    /// A store whose log holds `writes` writes of 1–6 changes each: inserts, updates and deletes (and inserts
    /// again) of up to 60 Items and 30 Tags, with values of every type.
    static func randomStore(_ g: inout SeededGenerator, writes: Int) throws -> LogStore {
        let store = try LogStore.create(at: TestScratch.newPath("replay-slot"), schema: try Schema(jsonText: schemaText),
                                        options: StoreOptions(durable: false))
        var exists: Set<ObjectKey> = []
        let attributes = ["Item": ["n", "label", "ok", "w", "at"], "Tag": ["w", "name"]]
        for _ in 0..<writes {
            var requests: [ChangeRequest] = []
            var touched: Set<ObjectKey> = []
            for _ in 0..<Int.random(in: 1...6, using: &g) {
                let entity = Int.random(in: 0..<3, using: &g) == 0 ? "Tag" : "Item"
                let id: ObjectID = entity == "Tag" ? .string("tag-\(Int.random(in: 0..<30, using: &g))")
                                                   : .int(Int64.random(in: -10...50, using: &g))
                let key = ObjectKey(entity: entity, id: id)
                guard !touched.contains(key) else { continue }  // one change per object per write keeps the model simple
                touched.insert(key)
                let names = attributes[entity]!
                if !exists.contains(key) {
                    var values: ObjectValues = [:]
                    for name in names where Bool.random(using: &g) { values[name] = randomValue(name, &g) }
                    if entity == "Item", values["n"] == .null { values["n"] = .int(1) }
                    requests.append(.insert(entity: entity, id: id, values: values))
                    exists.insert(key)
                } else if Int.random(in: 0..<6, using: &g) == 0 {
                    requests.append(.delete(entity: entity, id: id))
                    exists.remove(key)
                } else {
                    var values: ObjectValues = [:]
                    for name in names where values.isEmpty || Int.random(in: 0..<3, using: &g) == 0 {
                        values[name] = randomValue(name, &g)
                    }
                    if entity == "Item", values["n"] == .null { values["n"] = .int(2) }
                    requests.append(.update(entity: entity, id: id, values: values))
                }
            }
            try store.append(requests, author: ["t", "ü", ""].randomElement(using: &g)!)
        }
        return store
    }

    /// Every record of the store's `log`, `objects` and `meta` databases, in key order.
    static func records(_ store: LogStore) throws -> [[[UInt8]]] {
        try store.environment.read { txn in
            try [store.logDB, store.objectsDB, store.metaDB].map { db in
                var out: [[UInt8]] = []
                try txn.scan(db) { e in
                    out.append(Array(e.key))
                    out.append(Array(e.value))
                    return .next
                }
                return out
            }
        }
    }

    /// What a replay made: the records of the new store, or the error and the records of the partial store left.
    typealias Replayed = (result: Result<[[[UInt8]]], StoreError>, partial: [[[UInt8]]])

    /// Replays `store` up to `position` both ways, in chunks of `chunk`, into stores opened with `options`.
    static func replayBothWays(_ store: LogStore, through position: UInt64, chunk: Int,
                               options: StoreOptions = StoreOptions(durable: false)) throws -> (bySlot: Replayed, byChange: Replayed) {
        func run(_ bySlot: Bool) throws -> Replayed {
            let path = TestScratch.newPath("replayed")
            let target: LogStore
            do {
                target = try store.replay(into: path, through: position, options: options, bySlot: bySlot, chunk: chunk,
                                          progress: nil)
            } catch {
                let partial = try LogStore.open(at: path, options: options)
                #expect(try partial.verify().isOK, "a partial store is a sound store")
                return (.failure(error), try records(partial))
            }
            #expect(try target.verify().isOK)
            return (.success(try records(target)), [])
        }
        return (try run(true), try run(false))
    }

    @Test(arguments: [0, 1, 2])
    func replayBySlotMakesTheSameStoreAsReplayByChange(stream: UInt64) throws {
        var g = SeededGenerator(stream: 1_700 + stream)
        let store = try Self.randomStore(&g, writes: 250)
        let head = try store.head
        for (position, chunk) in [(head, 10_000), (head, 7), (UInt64.random(in: 1...head, using: &g), 33),
                                  (UInt64.random(in: 1...head, using: &g), 1), (0, 5)] {
            let (slot, change) = try Self.replayBothWays(store, through: position, chunk: chunk)
            #expect(try slot.result.get() == change.result.get(), "position \(position), chunks of \(chunk)")
        }
        // A map that fills over and over: each write that fills it runs again and must write the same.
        let tiny = StoreOptions(durable: false, mapSizeBytes: 64 * 1024)
        let (slot, change) = try Self.replayBothWays(store, through: head, chunk: 40, options: tiny)
        #expect(try slot.result.get() == change.result.get(), "a small map")
    }

    /// Replaces the entry of `seq` with `transform` of its transaction, with a valid checksum: a log that says
    /// something its state does not allow, as a buggy writer could leave.
    static func rewrite(_ store: LogStore, seq: UInt64, _ transform: (Transaction) -> Transaction) throws {
        let t = try store.transactions(after: seq - 1, through: seq)[0]
        let bytes = TransactionCodec.encode(transform(t))
        try store.environment.write { txn in try txn.put(store.logDB, key: bigEndianBytes(seq), value: bytes) }
    }

    /// Changes of a transaction that no longer fit the state: an update's previous value or a delete's removed
    /// values altered, an insert of the id of the object before it, an update of an object that never was.
    static func unfitting(_ t: Transaction, _ g: inout SeededGenerator) -> Transaction {
        var changes = t.changes
        let i = Int.random(in: 0..<changes.count, using: &g)
        switch changes[i] {
        case let .update(key, values, previous):
            if Bool.random(using: &g), let name = previous.keys.first {
                var p = previous
                p[name] = previous[name] == .int(12_345) ? .int(54_321) : .int(12_345)
                changes[i] = .update(key, values: values, previous: p)
            } else {
                changes[i] = .update(ObjectKey(entity: key.entity, id: key.id.type == .int ? .int(999) : .string("never")),
                                     values: values, previous: previous)
            }
        case let .delete(key, previous):
            var p = previous
            p[p.keys.first!] = .string("not it")
            changes[i] = .delete(key, previous: p)
        case let .insert(key, values):
            let other: ObjectID = key.id.type == .int ? .int(-10) : .string("tag-0")
            changes[i] = .insert(ObjectKey(entity: key.entity, id: other == key.id ? (key.id.type == .int ? .int(50) : .string("tag-29")) : other),
                                 values: values)
        case .schema, .migration: break
        }
        return Transaction(seq: t.seq, time: t.time, author: t.author, changes: changes)
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5])
    func aLogThatDoesNotReplayFailsTheSameWayBothWays(stream: UInt64) throws {
        var g = SeededGenerator(stream: 1_800 + stream)
        let store = try Self.randomStore(&g, writes: 120)
        let seq = UInt64.random(in: 30...120, using: &g)
        switch stream % 3 {
        case 0:  // a change that does not fit its state
            try Self.rewrite(store, seq: seq) { Self.unfitting($0, &g) }
        case 1:  // a value its attribute's type does not store, or an insert without every attribute
            try Self.rewrite(store, seq: seq) { t in
                var changes = t.changes
                switch changes[0] {
                case let .insert(key, values):
                    var v = values
                    v[v.keys.sorted()[0]] = nil
                    changes[0] = .insert(key, values: v)
                case let .update(key, values, previous):
                    var v = values
                    v[v.keys.first!] = .bool(true) == v[v.keys.first!] ? .int(3) : .bool(true)
                    changes[0] = .update(key, values: v, previous: previous)
                case let .delete(key, previous):
                    changes[0] = .delete(ObjectKey(entity: key.entity, id: key.id.type == .int ? .string("s") : .int(1)), previous: previous)
                case .schema, .migration: break
                }
                return Transaction(seq: t.seq, time: t.time, author: t.author, changes: changes)
            }
        default:  // a damaged entry
            try store.environment.write { txn in
                let key = bigEndianBytes(seq)
                var bytes = try txn.value(store.logDB, for: key)!
                bytes[bytes.count - 1] ^= 0x5A
                try txn.put(store.logDB, key: key, value: bytes)
            }
        }
        for chunk in [10_000, 16, 1] {
            let (slot, change) = try Self.replayBothWays(store, through: try store.head, chunk: chunk)
            #expect(throws: (any Error).self) { try change.result.get() }
            #expect(slot.result == change.result, "chunks of \(chunk): \(slot.result) / \(change.result)")
            // The log of a partial store: the chunks before the one that failed. Change by change, a damaged
            // entry fails the read of the entries around it before any of them is appended; by slot, the
            // chunks before it are already written.
            let chunksBefore = Int((seq - 1) / UInt64(chunk)) * chunk
            #expect(slot.partial[0].count / 2 == chunksBefore, "chunks of \(chunk)")
            if stream % 3 != 2 { #expect(slot.partial == change.partial, "chunks of \(chunk)") }
        }
    }

    @Test func aLogWithASchemaChangeReplaysTheSameBothWays() throws {
        var g = SeededGenerator(stream: 1_900)
        let store = try Self.randomStore(&g, writes: 60)
        let extended = Self.schemaText.replacingOccurrences(of: #""name": {"type": "string", "default": ""}}}}}"#,
                                                            with: #""name": {"type": "string", "default": ""}, "extra": {"type": "int", "optional": true}}}}}"#)
        try #require(extended != Self.schemaText)
        try store.updateSchema(try Schema(jsonText: extended), author: "t")
        try store.append([.insert(entity: "Tag", id: .string("new"), values: ["extra": .int(7)])], author: "t")
        let head = try store.head
        for chunk in [10_000, 13] {
            let (slot, change) = try Self.replayBothWays(store, through: head, chunk: chunk)
            #expect(try slot.result.get() == change.result.get())
        }
    }

    /// Damage `verify` must report: entries that no longer fit or are damaged or missing, rows changed, moved,
    /// removed or added.
    static func damage(_ store: LogStore, _ g: inout SeededGenerator) throws -> String {
        let head = try store.head
        let seq = UInt64.random(in: 2...head, using: &g)
        let rows: [(key: [UInt8], value: [UInt8])] = try store.environment.read { txn in
            var out: [(key: [UInt8], value: [UInt8])] = []
            try txn.scan(store.objectsDB) { e in out.append((Array(e.key), Array(e.value))); return .next }
            return out
        }
        let row = rows.randomElement(using: &g)!
        let key = try ObjectRecordCodec.decodeKey(row.key)
        let record = try row.value.withUnsafeBytes { v in try row.key.withUnsafeBytes { k in try ObjectRecordCodec.decode(v, key: k) } }
        func putRow(_ k: [UInt8], _ v: [UInt8]) throws {
            try store.environment.write { txn in try txn.put(store.objectsDB, key: k, value: v) }
        }
        switch Int.random(in: 0..<8, using: &g) {
        case 0:
            try rewrite(store, seq: seq) { unfitting($0, &g) }
            return "entry \(seq) does not fit"
        case 1:
            try store.environment.write { txn in
                var bytes = try txn.value(store.logDB, for: bigEndianBytes(seq))!
                bytes[Int.random(in: 0..<bytes.count, using: &g)] ^= 0x21
                try txn.put(store.logDB, key: bigEndianBytes(seq), value: bytes)
            }
            return "entry \(seq) damaged"
        case 2:
            _ = try store.environment.write { txn in try txn.delete(store.logDB, key: bigEndianBytes(seq)) }
            return "entry \(seq) missing"
        case 3:
            var values = record.values
            values[values.keys.sorted()[0]] = Value.string("changed")
            try putRow(row.key, ObjectRecordCodec.encode(values: values, seq: record.seq, key: row.key))
            return "row \(key) changed"
        case 4:
            try putRow(row.key, ObjectRecordCodec.encode(values: record.values, seq: record.seq + 1, key: row.key))
            return "row \(key) seq changed"
        case 5:
            _ = try store.environment.write { txn in try txn.delete(store.objectsDB, key: row.key) }
            return "row \(key) removed"
        case 6:
            let extra = ObjectRecordCodec.key(ObjectKey(entity: key.entity, id: key.id.type == .int ? .int(77_777) : .string("zzz")))
            try putRow(extra, ObjectRecordCodec.encode(values: record.values, seq: record.seq, key: extra))
            return "row added"
        default:
            var bytes = row.value
            bytes[Int.random(in: 0..<bytes.count, using: &g)] ^= 0x10
            try putRow(row.key, bytes)
            return "row \(key) damaged"
        }
    }

    @Test(arguments: 0..<4)
    func verifyBySlotFindsWhatVerifyByNameFinds(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2_000 + stream)
        for round in 0..<8 {
            let store = try Self.randomStore(&g, writes: 80)
            #expect(try store.verify(bySlot: true) == store.verify(bySlot: false))
            #expect(try store.verify(bySlot: true).isOK)
            var what: [String] = []
            for _ in 0..<Int.random(in: 1...2, using: &g) { what.append(try Self.damage(store, &g)) }
            let bySlot = try store.verify(bySlot: true), byName = try store.verify(bySlot: false)
            #expect(!bySlot.isOK, "round \(round): \(what)")
            #expect(bySlot.problems.sorted() == byName.problems.sorted(), "round \(round): \(what)")
            #expect(bySlot.transactions == byName.transactions && bySlot.objects == byName.objects)
        }
    }
}
