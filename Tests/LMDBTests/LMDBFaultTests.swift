import Foundation
import Testing
@testable import LMDB

#if canImport(Glibc)
import Glibc
#endif

/// Storage faults at the LMDB layer: a failed remap, and `fork()`.
@Suite("LMDB faults", .serialized)
struct LMDBFaultTests {
    /// Runs `body` with a fresh directory, removed afterwards also when `body` fails.
    func withDirectory(_ body: (String) throws -> Void) throws {
        let path = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// When the map cannot be grown (`mdb_env_set_mapsize` fails, as under `ulimit -v`), the write
    /// throws, and every later transaction throws too instead of touching a map LMDB no longer has.
    @Test func failedRemapBreaksTheEnvironmentLoudly() throws {
        try withDirectory { path in
            let env = try LMDBEnvironment.open(path: path, options: EnvironmentOptions(mapSizeBytes: 1 << 20))
            let db = try env.database(named: "things")
            env.injectedMapSizeFailure = ENOMEM
            let value = [UInt8](repeating: 7, count: 64 * 1024)
            #expect(throws: LMDBError.self) {
                try env.write { txn in
                    for i in 0..<64 { try txn.put(db, key: bigEndian(UInt64(i)), value: value) }
                }
            }
            #expect(env.injectedMapSizeFailure == nil, "the remap was not attempted")
            #expect {
                try env.read { txn in try txn.value(db, for: bigEndian(0)) }
            } throws: { error in
                (error as? LMDBError)?.code == ENOMEM && "\(error)".contains("reopened")
            }
        }
    }

    /// After `fork()`, the child gets an environment of its own for the same path, and the parent's
    /// environment refuses to begin a transaction in the child.
    @Test func forkedChildGetsItsOwnEnvironment() throws {
        try withDirectory { path in
            let env = try LMDBEnvironment.open(path: path)
            let db = try env.database(named: "things")
            try env.write { txn in try txn.put(db, key: [1], value: [42]) }
            let child = fork()
            if child == 0 {
                alarm(30)  // a hang in the child becomes a signal the parent sees
                var code: Int32 = 0
                do {
                    let mine = try LMDBEnvironment.open(path: path)
                    if mine === env { code = 2 }
                    let mineDB = try mine.database(named: "things", create: false)
                    if try mine.read({ txn in try txn.value(mineDB, for: [1]) }) != [42] { code = 3 }
                    do {
                        _ = try env.read { txn in try txn.value(db, for: [1]) }
                        code = 4
                    } catch {}
                } catch {
                    code = 5
                }
                _exit(code)
            }
            try #require(child > 0)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            let exited = (status & 0x7f) == 0
            #expect(exited && (status >> 8) & 0xff == 0, "child status \(status)")
            // The parent's environment still works.
            #expect(try env.read { txn in try txn.value(db, for: [1]) } == [42])
        }
    }
}
