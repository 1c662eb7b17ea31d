@_spi(Engine) import ViewLogModel
/// The exact sum of a multiset of doubles, kept as one fixed-point integer, read as the double nearest to it (ties to
/// even): the value of a double `@sum` and `@avg` (DESIGN §10). Adding and removing a value are exact, O(1) (a few
/// limbs), and the result does not depend on the order the values came in — so a per-target aggregate moves with each
/// member's change, and the in-memory tables and the stored state give the same bits, without keeping or walking the
/// members' values.
///
/// Every finite double is an integer multiple of 2⁻¹⁰⁷⁴ below 2¹⁰²⁴; the sum of at most 2⁶³ of them fits in 2,162
/// bits plus a sign: ``limbCount`` 64-bit limbs in two's complement, least significant first. Infinities and NaNs
/// (which stored objects never hold: inserts refuse them) are counted apart, and give the IEEE result.
package struct ExactSum: Equatable, Sendable {
    package static let limbCount = 34
    /// The sum in units of 2⁻¹⁰⁷⁴, two's complement, least significant limb first.
    private(set) var limbs: [UInt64]
    /// Values that are +∞, −∞, NaN.
    private(set) var positiveInfinities: Int64 = 0
    private(set) var negativeInfinities: Int64 = 0
    private(set) var nans: Int64 = 0

    init() { limbs = Array(repeating: 0, count: Self.limbCount) }

    /// A sum read back from its stored words (``words``); `nil` when they are not `limbCount + 3` words.
    package init?(words: [UInt64]) {
        guard words.count == Self.limbCount + 3 else { return nil }
        limbs = Array(words[0..<Self.limbCount])
        positiveInfinities = Int64(bitPattern: words[Self.limbCount])
        negativeInfinities = Int64(bitPattern: words[Self.limbCount + 1])
        nans = Int64(bitPattern: words[Self.limbCount + 2])
    }

    /// The sum as words to store: the limbs, then the counts of +∞, −∞ and NaN.
    package var words: [UInt64] {
        limbs + [UInt64(bitPattern: positiveInfinities), UInt64(bitPattern: negativeInfinities), UInt64(bitPattern: nans)]
    }

    var isZero: Bool { positiveInfinities == 0 && negativeInfinities == 0 && nans == 0 && limbs.allSatisfy { $0 == 0 } }

    /// Adds (`sign` 1) or removes (`sign` -1) `x`, exactly.
    package mutating func add(_ x: Double, _ sign: Int64) {
        precondition(sign == 1 || sign == -1, "a sum adds or removes one value at a time")
        guard x.isFinite else {
            if x.isNaN { nans += sign } else if x > 0 { positiveInfinities += sign } else { negativeInfinities += sign }
            return
        }
        guard x != 0 else { return }
        // |x| = m · 2^(shift − 1074): m the significand with its implicit bit, shift the biased exponent less one
        // (subnormals: m the fraction, shift 0).
        let biased = Int(x.exponentBitPattern)
        let m = biased == 0 ? x.significandBitPattern : x.significandBitPattern | (1 << 52)
        let shift = Swift.max(biased - 1, 0)
        let negative = (x < 0) != (sign < 0)
        let limb = shift / 64, offset = shift % 64
        // m · 2^offset spans at most two limbs (53 + 63 bits).
        let low = m << UInt64(offset)
        let high = offset == 0 ? 0 : m >> UInt64(64 - offset)
        add(low, high, at: limb, subtracting: negative)
    }

    /// Adds (or subtracts) `high · 2⁶⁴ + low` at limb `limb`, carrying (borrowing) up to the top limb.
    private mutating func add(_ low: UInt64, _ high: UInt64, at limb: Int, subtracting: Bool) {
        let step = subtracting ? Self.subtracting : Self.adding
        var carry: UInt64
        (limbs[limb], carry) = step(limbs[limb], low, 0)
        var i = limb + 1
        var next = high
        while i < Self.limbCount, next != 0 || carry != 0 {  // bounded: limbCount
            (limbs[i], carry) = step(limbs[i], next, carry)
            next = 0
            i += 1
        }
    }

    private static func adding(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
        let (s1, o1) = a.addingReportingOverflow(b)
        let (s2, o2) = s1.addingReportingOverflow(carry)
        return (s2, (o1 ? 1 : 0) + (o2 ? 1 : 0))
    }

    private static func subtracting(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
        let (d1, o1) = a.subtractingReportingOverflow(b)
        let (d2, o2) = d1.subtractingReportingOverflow(borrow)
        return (d2, (o1 ? 1 : 0) + (o2 ? 1 : 0))
    }

    /// The double nearest to the sum (ties to even; ±∞ past the largest double), or the IEEE result of the infinities
    /// and NaNs added.
    package var value: Double {
        if nans > 0 || (positiveInfinities > 0 && negativeInfinities > 0) { return .nan }
        if positiveInfinities > 0 { return .infinity }
        if negativeInfinities > 0 { return -.infinity }
        let negative = limbs[Self.limbCount - 1] >> 63 == 1
        var magnitude = limbs
        if negative {  // two's complement: invert and add one
            var carry: UInt64 = 1
            for i in 0..<Self.limbCount {
                (magnitude[i], carry) = Self.adding(~magnitude[i], 0, carry)
            }
        }
        guard let top = (0..<Self.limbCount).last(where: { magnitude[$0] != 0 }) else { return 0 }
        let highest = top * 64 + (63 - magnitude[top].leadingZeroBitCount)  // the highest set bit's index
        func bit(_ k: Int) -> UInt64 { k < 0 ? 0 : (magnitude[k / 64] >> UInt64(k % 64)) & 1 }
        let result: Double
        if highest < 53 {
            // Below 2^53 units: exact (a subnormal, or a small normal).
            result = Double(sign: .plus, exponent: -1074, significand: Double(magnitude[0]))
        } else {
            // The 53 bits from the highest down, rounded by the next bit and whether any bit below it is set.
            var significand: UInt64 = 0
            for k in stride(from: highest, through: highest - 52, by: -1) { significand = significand << 1 | bit(k) }
            let round = bit(highest - 53)
            var sticky = false
            if highest - 54 >= 0 {
                let k = highest - 54
                sticky = (0..<(k / 64)).contains { magnitude[$0] != 0 }
                    || magnitude[k / 64] & (k % 64 == 63 ? ~0 : (UInt64(1) << UInt64(k % 64 + 1)) - 1) != 0
            }
            if round == 1, sticky || significand & 1 == 1 { significand += 1 }  // at most 2^53: still exact
            result = Double(sign: .plus, exponent: highest - 52 - 1074, significand: Double(significand))
        }
        return negative ? -result : result
    }
}
