import Foundation
import LMDB
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Damaged stores: an entry whose bytes no longer match its checksum is reported by
/// `verify` and by every read that needs it, naming its seq — never a crash or wrong data; a file that is not a
/// store, or a store of a newer format, is refused.
@Suite("Corruption")
struct CorruptionTests {
    /// A store with five transactions: e1…e4 inserted (seqs 1–4), then e2 updated (seq 5).
    static func fiveTransactions() throws -> LogStore {
        let store = try makeStore()
        for i in 1...4 {
            try store.append([.insert(entity: "Employee", id: .string("e\(i)"),
                                      values: ["name": .string("N\(i)"), "height": .int(Int64(160 + i))])], author: "t")
        }
        try store.append([.update(entity: "Employee", id: .string("e2"), values: ["height": .int(190)])], author: "t")
        return store
    }

    /// Flips bits of the log entry of `seq` at byte `offset` (from the end when negative), under LMDB: what a
    /// bad disk or a stray write would do. The entry keeps its length; only its bytes change.
    static func damage(_ store: LogStore, seq: UInt64, offset: Int, xor mask: UInt8 = 0x5A) throws {
        try store.environment.write { txn in
            let key = bigEndianBytes(seq)
            guard var bytes = try txn.value(store.logDB, for: key) else { throw StoreError.corrupt(seq: seq, reason: "absent") }
            let i = offset >= 0 ? offset : bytes.count + offset
            bytes[i] ^= mask
            try txn.put(store.logDB, key: key, value: bytes)
        }
    }

    struct Row: Equatable {
        var id: ObjectID
        var values: ObjectValues
    }

    static func isCorrupt(_ error: any Error, seq: UInt64) -> Bool {
        if case .corrupt(let s, _)? = error as? StoreError { return s == seq }
        return false
    }

    /// Every read that needs entry `seq` throws ``StoreError/corrupt(seq:reason:)`` naming it; every other read
    /// gives what the same read gives on `intact`, an undamaged store with the same history.
    static func expectEveryReadRefuses(_ store: LogStore, seq: UInt64, intact: LogStore) throws {
        let report = try store.verify()
        #expect(!report.isOK)
        #expect(report.problems.first?.hasPrefix("corrupt log entry at seq \(seq): ") == true, "\(report.problems)")
        // log
        #expect { try store.transactions() } throws: { isCorrupt($0, seq: seq) }
        #expect { try store.transactions(after: seq - 1, through: seq) } throws: { isCorrupt($0, seq: seq) }
        #expect(try store.transactions(through: seq - 1).map(\.seq) == Array(1..<seq))
        // get --at: e2 last changed at seq 5, so reading it at p = seq − 1 undone from the head reads entries
        // seq … 5 and meets the damage; folded forwards from the empty store it reads entries 1 … p only and
        // answers as the intact store does. Which way the read goes is whichever reads fewer entries.
        let p = seq - 1
        #expect { try store.object(employee("e2"), at: p, via: .undoFromHead) } throws: { isCorrupt($0, seq: seq) }
        #expect(try store.object(employee("e2"), at: p, via: .foldFromStart) == intact.object(employee("e2"), at: p))
        if p >= 5 - p {
            #expect { try store.object(employee("e2"), at: p) } throws: { isCorrupt($0, seq: seq) }
        } else {
            #expect(try store.object(employee("e2"), at: p) == intact.object(employee("e2"), at: p))
        }
        // diff
        #expect { try store.delta(from: seq - 1, to: seq) } throws: { isCorrupt($0, seq: seq) }
        #expect { try store.delta(from: 5, to: 0) } throws: { isCorrupt($0, seq: seq) }
        // Every object and view read at every position: the damaged entry's error, or the intact answer.
        func same<T: Equatable>(_ read: (LogStore) throws -> T, _ what: String) {
            let expected: T
            do { expected = try read(intact) } catch { Issue.record("intact store: \(error)"); return }
            do {
                #expect(try read(store) == expected, "\(what) gave wrong data")
            } catch {
                #expect(isCorrupt(error, seq: seq), "\(what): \(error)")
            }
        }
        for travel in [LogStore.TimeTravel.automatic, .foldFromStart, .undoFromHead] {
            for p in UInt64(0)...5 {
                for i in 1...4 {
                    same({ try $0.object(employee("e\(i)"), at: p, via: travel) }, "get e\(i) --at \(p) (\(travel))")
                }
                same({ try $0.objects(of: "Employee", at: p, via: travel).map { Row(id: $0.id, values: $0.values) } },
                     "query --at \(p) (\(travel))")
                for q in UInt64(0)...5 {
                    same({ try $0.delta(from: p, to: q, entities: nil, via: travel).objects }, "diff --from \(p) --to \(q) (\(travel))")
                    same({ try $0.delta(from: p, to: q, entities: ["Employee"], via: travel).objects },
                         "diff --entity Employee --from \(p) --to \(q) (\(travel))")
                }
            }
        }
    }

    @Test(arguments: [
        (seq: UInt64(5), offset: -1),   // the last byte of the last entry (an update's previous value)
        (seq: UInt64(3), offset: 40),   // in the body of an entry in the middle
        (seq: UInt64(4), offset: 16),   // the seq field, covered by the checksum
        (seq: UInt64(4), offset: 12),   // the checksum itself
    ])
    func aDamagedEntryIsReportedByEveryRead(seq: UInt64, offset: Int) throws {
        let store = try Self.fiveTransactions()
        try Self.damage(store, seq: seq, offset: offset)
        try Self.expectEveryReadRefuses(store, seq: seq, intact: try Self.fiveTransactions())
        // A read at the head that needs no log entry is still served from the objects.
        #expect(try store.object(employee("e2"))?["height"] == .int(190))
        #expect(try store.objects(of: "Employee").count == 4)
    }

    @Test func damageInTheHeaderIsReportedToo() throws {
        for (offset, what) in [(0, "magic"), (4, "version"), (6, "flags"), (8, "length")] {
            let store = try Self.fiveTransactions()
            try Self.damage(store, seq: 3, offset: offset)
            let problems = try store.verify().problems
            #expect(problems.first?.hasPrefix("corrupt log entry at seq 3: ") == true, "\(what): \(problems)")
            #expect { try store.transactions() } throws: { Self.isCorrupt($0, seq: 3) }
        }
    }

    @Test func aMissingOrTruncatedEntryIsReported() throws {
        let store = try Self.fiveTransactions()
        _ = try store.environment.write { txn in try txn.delete(store.logDB, key: bigEndianBytes(3)) }
        #expect(try store.verify().problems.contains("corrupt log entry at seq 3: missing from the log"))
        #expect { try store.transactions() } throws: { Self.isCorrupt($0, seq: 3) }

        let other = try Self.fiveTransactions()
        try other.environment.write { txn in
            let key = bigEndianBytes(4)
            let bytes = try txn.value(other.logDB, for: key) ?? []
            try txn.put(other.logDB, key: key, value: Array(bytes.dropLast(3)))
        }
        #expect(try other.verify().problems.first?.hasPrefix("corrupt log entry at seq 4: ") == true)
        // e2 at 3 is undone from the head (entries 4 … 5); at 1 it is folded forwards (entry 1 only): no damage met.
        #expect { try other.object(employee("e2"), at: 3) } throws: { Self.isCorrupt($0, seq: 4) }
        #expect(try other.object(employee("e2"), at: 1) == nil)
    }

    @Test func aDamagedObjectRecordIsReported() throws {
        let store = try Self.fiveTransactions()
        try store.environment.write { txn in
            let key = ObjectRecordCodec.key(employee("e3"))
            var bytes = try txn.value(store.objectsDB, for: key) ?? []
            bytes[bytes.count - 1] ^= 0xFF
            bytes.removeLast(2)
            try txn.put(store.objectsDB, key: key, value: bytes)
        }
        #expect(!(try store.verify().isOK))
        #expect { try store.objects(of: "Employee") } throws: { error in
            if case .corrupt? = error as? StoreError { return true }
            return false
        }
        // A context's controller decodes the rows itself (only the view's attributes, in place): the damaged row
        // is reported there too, never skipped.
        #expect { try Context(store: store, name: "c").makeResultsController(FetchRequest(entity: "Employee")) } throws: { error in
            if case .corrupt? = error as? StoreError { return true }
            return false
        }
    }

    // MARK: Files that are not stores

    @Test func aFileThatIsNotLMDBIsRefused() throws {
        let path = newStorePath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        var garbage = [UInt8](repeating: 0, count: 64 * 1024)
        var g = SystemRandomNumberGenerator()
        for i in garbage.indices { garbage[i] = g.next() }
        try Data(garbage).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(throws: StoreError.notAStore(path: path, reason: "its data.mdb is not an LMDB file of this version")) {
            try LogStore.open(at: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == Data(garbage))  // untouched
    }

    @Test func anEmptyDataFileIsRefusedAndLeftEmpty() throws {
        let path = newStorePath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data()))
        #expect(throws: StoreError.notAStore(path: path, reason: "its data.mdb is empty")) { try LogStore.open(at: path) }
        #expect(try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int == 0)
    }

    @Test func anLMDBFileOfAnotherProgramIsRefusedAndNotChanged() throws {
        let path = newStorePath()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        do {
            let env = try LMDBEnvironment.open(path: path)
            let db = try env.database(named: "other")
            try env.write { txn in try txn.put(db, key: [1], value: [2]) }
        }
        // This process still has the environment open (one per path); the store shares it.
        #expect(throws: StoreError.notAStore(path: path, reason: "its LMDB file has no ViewLog databases")) {
            try LogStore.open(at: path)
        }
        let env = try LMDBEnvironment.open(path: path)
        #expect(throws: LMDBError.notFound) { try env.database(named: "log", create: false) }
    }

    @Test func aNewerFormatIsRefused() throws {
        let store = try Self.fiveTransactions()
        try store.environment.write { txn in
            try txn.put(store.metaDB, key: MetaKey.format, value: bigEndianBytes(UInt64(LogStore.formatVersion + 1)))
        }
        #expect(throws: StoreError.unsupportedFormat(path: store.path, found: LogStore.formatVersion + 1,
                                                     supported: LogStore.formatVersion)) {
            try LogStore.open(at: store.path)
        }
        #expect(StoreError.unsupportedFormat(path: "s", found: 2, supported: 1).description
            == "s has log format version 2; this viewlog reads up to version 1")
    }

    @Test func anEntryOfANewerFormatIsReported() throws {
        let store = try Self.fiveTransactions()
        try store.environment.write { txn in  // version 2 in entry 2, with a checksum that fits
            let key = bigEndianBytes(2)
            var bytes = try txn.value(store.logDB, for: key) ?? []
            bytes[4] = 2
            try txn.put(store.logDB, key: key, value: bytes)
        }
        #expect(try store.verify().problems.first?.hasPrefix("corrupt log entry at seq 2: ") == true)
        #expect { try store.transactions() } throws: { Self.isCorrupt($0, seq: 2) }
    }
}
