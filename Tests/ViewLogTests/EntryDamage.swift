import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Damaged log entries for the tests of the readers that fold the log (by name and by slot): each reader must
/// refuse every truncation and every changed byte with the full decoder's error, and never trap on a corruption
/// resealed with a valid checksum.
enum EntryDamage {
    /// For `rounds` random entries of seq 7: every truncation makes `read` throw, and every single changed byte
    /// makes it throw exactly the full decoder's error. `read` gets the damaged bytes, the entry's schema and the
    /// generator (for its own random choices).
    static func checkTruncationsAndFlips(stream: UInt64, rounds: Int, reader: String,
                                         read: ([UInt8], Schema, inout SeededGenerator) throws(CodecError) -> Void) {
        var g = SeededGenerator(stream: stream)
        for i in 0..<rounds {
            let schema = RandomSchemas.schema(using: &g)
            let bytes = TransactionCodec.encode(RandomSchemas.transaction(schema: schema, seq: 7, using: &g))
            for n in 0..<bytes.count {
                #expect(throws: CodecError.self, "\(g.rerunHint), transaction \(i), \(n) bytes") {
                    try read(Array(bytes[..<n]), schema, &g)
                }
            }
            for position in 0..<bytes.count {
                var corrupt = bytes
                corrupt[position] ^= UInt8.random(in: 1...255, using: &g)
                var full: CodecError?
                do { _ = try TransactionCodec.decode(corrupt, expectedSeq: 7) } catch { full = error }
                #expect(full != nil)
                do {
                    try read(corrupt, schema, &g)
                    Issue.record("\(g.rerunHint), transaction \(i), byte \(position): the \(reader) accepted a damaged entry")
                } catch {
                    #expect(error == full, "\(g.rerunHint), transaction \(i), byte \(position)")
                }
            }
        }
    }

    /// Calls `check` with `rounds` × 20 random corruptions of random entries of seq 4, each resealed (a valid
    /// checksum over the damaged bytes), its schema and the generator; `check` reads them (it must not trap) and
    /// compares with the full decoder where that decodes, returning whether it compared.
    /// - Returns: how many corruptions were compared.
    static func resealedCorruptions(stream: UInt64, rounds: Int,
                                    check: ([UInt8], Schema, inout SeededGenerator) throws -> Bool) rethrows -> Int {
        var g = SeededGenerator(stream: stream)
        var compared = 0
        for _ in 0..<rounds {
            let schema = RandomSchemas.schema(using: &g)
            let bytes = TransactionCodec.encode(RandomSchemas.transaction(schema: schema, seq: 4, using: &g))
            for _ in 0..<20 {
                var corrupt = bytes
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    let p = Int.random(in: 32..<corrupt.count, using: &g)
                    corrupt[p] = UInt8.random(in: 0...255, using: &g)
                }
                if Bool.random(using: &g) { corrupt.removeLast(Int.random(in: 0...min(4, corrupt.count - 32), using: &g)) }
                TransactionCodecTests.reseal(&corrupt)
                if try check(corrupt, schema, &g) { compared += 1 }
            }
        }
        return compared
    }
}
