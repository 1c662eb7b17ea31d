import Testing
@testable import LMDB

@Suite("LMDB scans")
struct LMDBScanTests {
    /// A database of the even keys 2, 4, …, 20 (8-byte big-endian), each with its number as its value.
    func evens() throws -> (LMDBEnvironment, LMDBDatabase) {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "evens")
        try env.write { txn in
            for i in stride(from: UInt64(2), through: 20, by: 2) { try txn.put(db, key: bigEndian(i), value: [UInt8(i)]) }
        }
        return (env, db)
    }

    func values(_ env: LMDBEnvironment, _ db: LMDBDatabase, from start: LMDBTransaction.ScanStart,
                max: Int = .max) throws -> [UInt8] {
        try env.read { txn in
            var out: [UInt8] = []
            try txn.scan(db, from: start) { e in
                out.append(e.value[0])
                return out.count < max ? .next : .stop
            }
            return out
        }
    }

    @Test func everyStartGoesTheWayItSays() throws {
        let (env, db) = try evens()
        #expect(try values(env, db, from: .first) == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
        #expect(try values(env, db, from: .last) == [20, 18, 16, 14, 12, 10, 8, 6, 4, 2])
        // Between keys, on a key, before the first, past the last.
        #expect(try values(env, db, from: .atLeast(bigEndian(15))) == [16, 18, 20])
        #expect(try values(env, db, from: .atLeast(bigEndian(16))) == [16, 18, 20])
        #expect(try values(env, db, from: .atLeast(bigEndian(0))).count == 10)
        #expect(try values(env, db, from: .atLeast(bigEndian(21))) == [])
        #expect(try values(env, db, from: .after(bigEndian(16))) == [18, 20])
        #expect(try values(env, db, from: .after(bigEndian(15))) == [16, 18, 20])
        #expect(try values(env, db, from: .after(bigEndian(20))) == [])
        #expect(try values(env, db, from: .below(bigEndian(7))) == [6, 4, 2])
        #expect(try values(env, db, from: .below(bigEndian(6))) == [4, 2])
        #expect(try values(env, db, from: .below(bigEndian(2))) == [])
        #expect(try values(env, db, from: .below(bigEndian(99))).first == 20)
    }

    @Test func theBodyStopsTheScan() throws {
        let (env, db) = try evens()
        #expect(try values(env, db, from: .first, max: 3) == [2, 4, 6])
        #expect(try values(env, db, from: .last, max: 1) == [20])
        let seen = try env.read { txn in try txn.scan(db) { _ in .stop } }
        #expect(seen == 1)
    }

    @Test func anEmptyDatabaseHasNothingToVisit() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "empty")
        for start in [LMDBTransaction.ScanStart.first, .last, .atLeast([1]), .after([1]), .below([1])] {
            #expect(try values(env, db, from: start) == [])
        }
        #expect(try env.read { txn in try txn.scan(db, prefix: [1]) { _ in .next } } == 0)
    }

    @Test func aPrefixScanSeesExactlyItsKeys() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "prefixed")
        try env.write { txn in
            for key in ["a", "ab", "abc", "abd", "ac", "b", "abz"] { try txn.put(db, key: Array(key.utf8), value: [1]) }
        }
        let keys = try env.read { txn in
            var out: [String] = []
            let n = try txn.scan(db, prefix: Array("ab".utf8)) { e in
                out.append(String(decoding: e.key, as: UTF8.self))
                return .next
            }
            #expect(n == out.count)
            return out
        }
        #expect(keys == ["ab", "abc", "abd", "abz"])
        // The empty prefix is every key (LMDB refuses to seek to an empty key: the scan starts at the first).
        let all = try env.read { txn in try txn.scan(db, prefix: []) { _ in .next } }
        #expect(all == 7)
    }

    @Test func aThrowingBodyEndsTheScanWithItsError() throws {
        struct Stop: Error {}
        let (env, db) = try evens()
        var visited = 0
        #expect(throws: Stop.self) {
            try env.read { txn in
                try txn.scan(db) { _ in
                    visited += 1
                    if visited == 2 { throw Stop() }
                    return .next
                }
            }
        }
        #expect(visited == 2)
    }
}
