import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

/// The initial load's sort of rows (a radix sort by key prefix, then comparisons within equal prefixes) against
/// sorting by the whole keys' bytes: random unique keys of every length around the 12-byte prefix, with many
/// shared prefixes and zero bytes (a short key pads its prefix with zeros, as a longer one may hold them).
@Suite struct RowSlotSortTests {
    @Test func sortsAsTheWholeKeysCompare() {
        var g = SeededGenerator(stream: 63)
        for round in 0..<30 {
            let count = round % 3 == 0 ? Int.random(in: 0...100, using: &g) : Int.random(in: RowSlot.radixSortMinimum...9000, using: &g)
            let alphabet: [UInt8] = round % 2 == 0 ? [0, 1, 0xFF] : Array(0...255)
            var seen = Set<[UInt8]>(), keys: [[UInt8]] = []
            let shared = (0..<Int.random(in: 0...12, using: &g)).map { _ in alphabet.randomElement(using: &g)! }
            while keys.count < count {  // bounded: a new key is added in most steps
                var key = Bool.random(using: &g) ? shared : []
                for _ in 0..<Int.random(in: 0...16, using: &g) { key.append(alphabet.randomElement(using: &g)!) }
                if seen.insert(key).inserted { keys.append(key) }
            }
            var slots = keys.enumerated().map { i, key in key.withUnsafeBytes { RowSlot(raw: UInt32(i), key: $0) } }
            let precedes = { (a: RowSlot, b: RowSlot) -> Bool in
                keys[Int(a.raw)].withUnsafeBytes { x in keys[Int(b.raw)].withUnsafeBytes { y in compareBytes(x, y) < 0 } }
            }
            RowSlot.sort(&slots, precedes: precedes)
            let expected = keys.indices.sorted { a, b in
                keys[a].withUnsafeBytes { x in keys[b].withUnsafeBytes { y in compareBytes(x, y) < 0 } }
            }
            #expect(slots.map { Int($0.raw) } == expected, "round \(round): \(count) keys")
        }
    }
}
