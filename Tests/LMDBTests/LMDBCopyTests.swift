import Foundation
import Testing
@testable import LMDB

/// `LMDBEnvironment.copy(to:compact:)`: LMDB's copy of one read snapshot.
@Suite("LMDB copy")
struct LMDBCopyTests {
    @Test func aCopyHoldsTheSnapshotAndOpensAsAnEnvironment() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory(), options: EnvironmentOptions(durable: false))
        let db = try env.database(named: "things")
        try env.write { txn in
            for i in 0..<100 as Range<UInt64> { try txn.put(db, key: bigEndian(i), value: Array(repeating: UInt8(i), count: 500)) }
        }
        try env.write { txn in for i in 0..<90 as Range<UInt64> { _ = try txn.delete(db, key: bigEndian(i)) } }
        let plain = try makeTemporaryDirectory(), compact = try makeTemporaryDirectory()
        try env.copy(to: plain)
        try env.copy(to: compact, compact: true)
        // A write after the copies is in neither.
        try env.write { txn in try txn.put(db, key: bigEndian(1_000), value: [1]) }
        var st = stat(), compactStat = stat()
        #expect(stat(plain + "/data.mdb", &st) == 0 && stat(compact + "/data.mdb", &compactStat) == 0)
        #expect(compactStat.st_size < st.st_size)  // the deleted values' pages left out
        #expect(st.st_mode & 0o777 == 0o600 && compactStat.st_mode & 0o777 == 0o600)
        for directory in [plain, compact] {
            let copy = try LMDBEnvironment.open(path: directory)
            let things = try copy.database(named: "things", create: false)
            let values = try copy.read { txn in (0..<100 as Range<UInt64>).map { (try? txn.value(things, for: bigEndian($0))) ?? nil } }
            #expect(values.prefix(90).allSatisfy { $0 == nil })
            #expect(values[95] == Array(repeating: 95, count: 500))
            #expect(try copy.read { txn in try txn.value(things, for: bigEndian(1_000)) } == nil)
        }
    }

    @Test func aCopyIntoADirectoryThatHoldsADataFileOrIsMissingThrows() throws {
        let env = try LMDBEnvironment.open(path: try makeTemporaryDirectory(), options: EnvironmentOptions(durable: false))
        let target = try makeTemporaryDirectory()
        try env.copy(to: target)
        #expect(throws: LMDBError(code: EEXIST)) { try env.copy(to: target) }
        #expect(throws: LMDBError(code: ENOENT)) { try env.copy(to: target + "/missing") }
    }
}
