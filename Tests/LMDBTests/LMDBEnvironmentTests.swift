import Foundation
import Testing
@testable import LMDB

/// This process's scratch root, removed when the process exits (passed or failed), so runs leave nothing behind.
private let lmdbTestsRoot: String = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-lmdb-tests-\(getpid())").path
    atexit { try? FileManager.default.removeItem(atPath: FileManager.default.temporaryDirectory
        .appendingPathComponent("viewlog-lmdb-tests-\(getpid())").path) }
    return root
}()

/// A fresh empty directory under this process's scratch root.
func makeTemporaryDirectory(_ name: String = #function) throws -> String {
    let base = URL(fileURLWithPath: lmdbTestsRoot).appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    return base.path
}

func bigEndian(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

@Suite("LMDB environment")
struct LMDBEnvironmentTests {
    @Test func putGetDeleteRoundTrip() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "things")
        try env.write { txn in
            try txn.put(db, key: Array("a".utf8), value: [1, 2, 3])
            try txn.put(db, key: Array("b".utf8), value: [4])
        }
        let a = try env.read { txn in try txn.value(db, for: Array("a".utf8)) }
        #expect(a == [1, 2, 3])
        let missing = try env.read { txn in try txn.value(db, for: Array("zz".utf8)) }
        #expect(missing == nil)
        let deleted = try env.write { txn in try txn.delete(db, key: Array("a".utf8)) }
        #expect(deleted)
        let again = try env.write { txn in try txn.delete(db, key: Array("a".utf8)) }
        #expect(!again)
    }

    @Test func aThrowingWriteLeavesNothing() throws {
        struct Boom: Error {}
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "things")
        #expect(throws: Boom.self) {
            try env.write { txn in
                try txn.put(db, key: [1], value: [1])
                throw Boom()
            }
        }
        let v = try env.read { txn in try txn.value(db, for: [1]) }
        #expect(v == nil)
    }

    @Test func appendRejectsNonIncreasingKeysWithoutPoisoning() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "log")
        try env.write { txn in
            try txn.put(db, key: bigEndian(1), value: [1], flags: .append)
            try txn.put(db, key: bigEndian(2), value: [2], flags: .append)
            #expect(throws: LMDBError.keyExists) {
                try txn.put(db, key: bigEndian(2), value: [9], flags: .append)
            }
            try txn.put(db, key: bigEndian(3), value: [3], flags: .append)
        }
        let count = try env.read { txn in try txn.statistics(db).entries }
        #expect(count == 3)
    }

    @Test func cursorWalksInKeyOrderBothWays() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "log")
        try env.write { txn in
            for i in UInt64(1)...100 { try txn.put(db, key: bigEndian(i), value: [UInt8(i)], flags: .append) }
        }
        let (forward, backward, fromFifty) = try env.read { txn in
            try txn.withCursor(db) { c in
                var f: [UInt8] = [], b: [UInt8] = [], s: [UInt8] = []
                var e = try c.first()
                while let entry = e { f.append(entry.value[0]); e = try c.next() }
                e = try c.last()
                while let entry = e { b.append(entry.value[0]); e = try c.previous() }
                e = try c.seek(atLeast: bigEndian(50))
                while let entry = e, s.count < 3 { s.append(entry.value[0]); e = try c.next() }
                return (f, b, s)
            }
        }
        #expect(forward == (1...100).map { UInt8($0) })
        #expect(backward == forward.reversed())
        #expect(fromFifty == [50, 51, 52])
    }

    @Test func reservedPutsAreFilledInPlaceAndRefuseAPresentKeyWithoutWriting() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "objects")
        try env.write { txn in
            try txn.put(db, key: bigEndian(500), value: [0xEE])
            try txn.withCursor(db) { c in
                // Increasing keys through one cursor, values of several sizes (one past a page: an overflow page).
                for i in UInt64(1)...1000 where i != 500 {
                    let n = i == 999 ? 5000 : Int(i % 7)
                    try bigEndian(i).withUnsafeBytes { k in
                        try c.put(key: k, reserving: n) { buffer in
                            #expect(buffer.count == n)
                            for j in 0..<n { buffer[j] = UInt8(truncatingIfNeeded: Int(i) &+ j) }
                        }
                    }
                }
                var called = false
                #expect(throws: LMDBError.keyExists) {
                    try bigEndian(500).withUnsafeBytes { k in
                        try c.put(key: k, reserving: 3, flags: .noOverwrite) { _ in called = true }
                    }
                }
                #expect(!called)
                // The transaction stays usable after the refusal.
                try bigEndian(1001).withUnsafeBytes { k in try c.put(key: k, reserving: 1, flags: .noOverwrite) { $0[0] = 9 } }
            }
        }
        try env.read { txn throws in
            #expect(try txn.value(db, for: bigEndian(500)) == [0xEE])
            #expect(try txn.value(db, for: bigEndian(1001)) == [9])
            for i in UInt64(1)...1000 where i != 500 {
                let n = i == 999 ? 5000 : Int(i % 7)
                #expect(try txn.value(db, for: bigEndian(i)) == (0..<n).map { UInt8(truncatingIfNeeded: Int(i) &+ $0) })
            }
            #expect(try txn.statistics(db).entries == 1001)
        }
    }

    @Test func mapGrowsByItselfWhenFull() throws {
        let options = EnvironmentOptions(mapSizeBytes: 64 * 1024, durable: false)
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory(), options: options)
        let db = try env.database(named: "log")
        let value = [UInt8](repeating: 7, count: 100)
        for batch in 0..<20 {
            try env.write { txn in
                for i in 0..<500 {
                    try txn.put(db, key: bigEndian(UInt64(batch * 500 + i + 1)), value: value, flags: .append)
                }
            }
        }
        let count = try env.read { txn in try txn.statistics(db).entries }
        #expect(count == 10_000)
        #expect(env.mapGrowCount > 0)
        #expect(env.mapSizeBytes > 64 * 1024)
    }

    @Test func onePathOneEnvironmentPerProcess() throws {
        let dir = try makeTemporaryDirectory()
        let a = try LMDBEnvironment.open(path: dir)
        let b = try LMDBEnvironment.open(path: dir + "/.")
        #expect(a === b)
    }

    @Test func aFileThatIsNotLMDBIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        let junk = Data((0..<16384).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try junk.write(to: URL(fileURLWithPath: dir + "/data.mdb"))
        #expect(throws: LMDBError.self) { _ = try LMDBEnvironment.open(path: dir) }
    }

    @Test func missingDirectoryIsAnErrorNamingThePath() throws {
        do {
            _ = try LMDBEnvironment.open(path: "/nonexistent/viewlog/store")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("/nonexistent/viewlog/store"))
        }
    }

    @Test func readersEndWithTheirClosure() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory())
        let db = try env.database(named: "x")
        try env.write { txn in try txn.put(db, key: [1], value: [1]) }
        let inside = try env.read { _ in env.readersInUse }
        #expect(inside >= 1)
        // MDB_NOTLS: a slot is kept for reuse by the environment, but no transaction holds it.
        _ = try env.read { txn in try txn.value(db, for: [1]) }
    }

    @Test func filesAreCreatedOwnerOnly() throws {
        let dir = try makeTemporaryDirectory()
        _ = try LMDBEnvironment.open(path: dir)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/data.mdb")
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        #expect(mode & 0o077 == 0)
    }
}
