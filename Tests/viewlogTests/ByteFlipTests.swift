import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Flip a few random bytes of a store's `data.mdb`, many times; every `verify` and `query` (run as
/// child processes, so a crash is seen) either fails with one `error:` line or returns exactly the right data.
/// Never a crash, never different data. `tools/flip-test` runs it longer (`VIEWLOG_FLIP_ROUNDS`,
/// `VIEWLOG_FLIP_SEED`).
@Suite("Damaged pages")
struct ByteFlipTests {
    struct Tally: CustomStringConvertible {
        var rounds = 0, unchanged = 0, refusedByVerify = 0, refusedByQuery = 0, servedCorrect = 0
        var wrong: [String] = [], crashes: [String] = []
        var description: String {
            "byte-flip: \(rounds) rounds, \(refusedByVerify) refused by verify, \(refusedByQuery) refused by query, "
                + "\(servedCorrect) queries served the right rows, \(wrong.count) wrong data, \(crashes.count) crashes"
        }
    }

    @Test func randomByteFlipsAreRefusedOrHarmless() throws {
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["VIEWLOG_FLIP_ROUNDS"].flatMap(Int.init) ?? 30
        let seed = environment["VIEWLOG_FLIP_SEED"].flatMap(UInt64.init) ?? 20_261_123
        var random = SeededGenerator(seed: seed)
        let (directory, store) = try ReliabilityCLITests.newStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 120 rows, some with names long enough for overflow pages, plus updates and deletes (free pages).
        var lines: [String] = []
        for i in 0..<120 {
            let name = i % 9 == 0 ? String(repeating: "long\(i)-", count: 700) : "name\(i)"
            lines.append(ReliabilityCLITests.insertLine("e\(i)", name: name, height: 150 + i % 50))
        }
        for i in stride(from: 0, to: 120, by: 7) {
            lines.append(#"{"update": "Employee", "id": "e\#(i)", "values": {"height": \#(200 + i)}}"#)
        }
        for i in stride(from: 3, to: 120, by: 11) { lines.append(#"{"delete": "Employee", "id": "e\#(i)"}"#) }
        let appended = try ReliabilityCLITests.appendLines(lines, to: store, in: directory)
        try #require(appended.status == 0, "\(appended)")
        let queryArguments = ["query", "--entity", "Employee", "--sort", "height, name", "--json"]
        let expected = try CLIProcess.run([queryArguments[0], store] + queryArguments.dropFirst(), directory: directory)
        try #require(expected.status == 0, "\(expected)")
        let original = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))

        var tally = Tally()
        let copy = directory + "/flipped"
        for round in 0..<rounds {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            var bytes = original
            let flips = Int.random(in: 1...4, using: &random)
            var changed = false
            for _ in 0..<flips {
                // Past the two meta pages (damage there is refused by LMDB's own checks on open).
                let offset = Int.random(in: 8192..<bytes.count, using: &random)
                let mask = UInt8.random(in: 1...255, using: &random)
                bytes[offset] ^= mask
                changed = true
            }
            try bytes.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            tally.rounds += 1
            let what = "round \(round) (seed \(seed))"
            let verify = try CLIProcess.run(["verify", copy], directory: directory)
            if verify.signaled { tally.crashes.append("verify, \(what): \(verify)") }
            else if verify.status != 0 {
                if verify.isCleanError || verify.stdout.contains("problem") { tally.refusedByVerify += 1 }
                else { tally.crashes.append("verify without a clean error, \(what): \(verify)") }
            }
            let query = try CLIProcess.run([queryArguments[0], copy] + queryArguments.dropFirst(), directory: directory)
            if query.signaled { tally.crashes.append("query, \(what): \(query)") }
            else if query.status == 0 {
                if query.stdout == expected.stdout { tally.servedCorrect += 1 }
                else {
                    let want = Set(CLIProcess.json(expected.stdout).map(CLIProcess.rowIDs) ?? [])
                    let got = CLIProcess.json(query.stdout).map(CLIProcess.rowIDs) ?? []
                    tally.wrong.append("query, \(what): rows missing \(want.subtracting(got).sorted()), "
                        + "extra \(Set(got).subtracting(want).sorted()), \(got.count) rows instead of \(want.count); verify: \(verify.status)")
                    if let keep = environment["VIEWLOG_FLIP_KEEP"] { try? bytes.write(to: URL(fileURLWithPath: keep + "-\(round).mdb")) }
                }
            } else if query.isCleanError { tally.refusedByQuery += 1 }
            else { tally.crashes.append("query without a clean error, \(what): \(query)") }
            if !changed { tally.unchanged += 1 }
        }
        print(tally)
        #expect(tally.crashes.isEmpty, "\(tally)\n\(tally.crashes.prefix(5).joined(separator: "\n"))")
        #expect(tally.wrong.isEmpty, "\(tally)\n\(tally.wrong.prefix(5).joined(separator: "\n"))")
    }
}
