import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

/// The exact sum behind a double `@sum`/`@avg` (DESIGN §10): the double nearest to the true sum, whatever the order the
/// values came and went in.
@Suite("Exact sum of doubles")
struct ExactSumTests {
    static func sum(_ xs: [Double]) -> Double {
        var s = ExactSum()
        for x in xs { s.add(x, 1) }
        return s.value
    }

    @Test func sumsThatFloatingPointAdditionGetsWrong() {
        #expect(Self.sum([0.1, 1e16, -1e16]) == 0.1)
        #expect(Self.sum([1e16, 1, 1]) == 1e16 + 2)  // left to right gives 1e16
        #expect(Self.sum([1, 1e100, 1, -1e100]) == 2)
        #expect(Self.sum([0.1, 0.2]) == 0.30000000000000004)  // one rounding: what one addition gives
        #expect(Self.sum([]) == 0)
        #expect(Self.sum([.leastNonzeroMagnitude, .leastNonzeroMagnitude]) == 2 * .leastNonzeroMagnitude)
        #expect(Self.sum([.greatestFiniteMagnitude, .greatestFiniteMagnitude]) == .infinity)
        #expect(Self.sum([.greatestFiniteMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]) == .greatestFiniteMagnitude)
        #expect(Self.sum([-2.5, -0.25]) == -2.75)
        #expect(Self.sum([.infinity, 1]) == .infinity)
        #expect(Self.sum([.infinity, -.infinity]).isNaN)
        // Ties to even: 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
        #expect(Self.sum([9007199254740992, 1]) == 9007199254740992)
        #expect(Self.sum([9007199254740994, 1]) == 9007199254740996)
        #expect(Self.sum([9007199254740992, 1, 0x1p-60]) == 9007199254740994)  // just above halfway: up
    }

    @Test func removingEveryValueInAnyOrderLeavesZero() {
        var g = SeededGenerator(stream: 4101)
        var s = ExactSum()
        let xs = (0..<500).map { _ in Double(sign: Bool.random(using: &g) ? .plus : .minus, exponent: Int.random(in: -1074...1000, using: &g),
                                             significand: Double.random(in: 1..<2, using: &g)) }
        for x in xs { s.add(x, 1) }
        for x in xs.shuffled(using: &g) { s.add(x, -1) }
        #expect(s.isZero)
        #expect(s.value == 0)
        #expect(ExactSum(words: s.words) == s)
    }

    #if arch(x86_64)
    /// Values whose bits span fewer than 64 (40-bit significands, exponents in a window of 10, 1,000 values) add
    /// exactly in Float80; rounding that once to a double is the correctly rounded sum.
    @Test(arguments: 0..<20)
    func theNearestDoubleAsFloat80ComputesIt(stream: UInt64) {
        var g = SeededGenerator(stream: 4110 + stream)
        let base = Int.random(in: -1000...960, using: &g)
        var exact: Float80 = 0
        var s = ExactSum()
        var xs: [Double] = []
        for _ in 0..<1000 {
            let x = Double(sign: Bool.random(using: &g) ? .plus : .minus, exponent: base + Int.random(in: 0..<10, using: &g),
                           significand: 1 + Double(UInt64.random(in: 0..<(1 << 39), using: &g)) * 0x1p-39)
            xs.append(x)
            exact += Float80(x)
            s.add(x, 1)
        }
        #expect(s.value == Double(exact), "stream \(stream)")
        var shuffled = ExactSum()
        for x in xs.shuffled(using: &g) { shuffled.add(x, 1) }
        #expect(shuffled == s)
    }
    #endif
}
