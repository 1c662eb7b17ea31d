import Foundation
import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

/// `[d]` decomposes through the standard library's NFD (SPI), so that the engine needs no full Foundation. These
/// tests pin it to Foundation's supported `decomposedStringWithCanonicalMapping`, which it replaced: a toolchain
/// that changed the SPI's results would fail here, not silently change which rows a predicate matches.
@Suite("String folding")
struct StringFoldingTests {
    /// The folding built on Foundation, as a reference: NFD, nonspacing marks dropped, then the scalar case fold.
    private func reference(_ s: String, _ options: ComparisonOptions) -> String {
        var out = String.UnicodeScalarView()
        let caseless = options.contains(.caseInsensitive)
        if options.contains(.diacriticInsensitive) {
            for u in s.decomposedStringWithCanonicalMapping.unicodeScalars
            where u.properties.generalCategory != .nonspacingMark {
                out.append(caseless ? StringFolding.caseFold(u) : u)
            }
        } else if caseless {
            for u in s.unicodeScalars { out.append(StringFolding.caseFold(u)) }
        } else {
            return s
        }
        return String(out)
    }

    @Test func knownFoldings() {
        let cd = StringFolding([.caseInsensitive, .diacriticInsensitive])
        #expect(cd.fold("Crème Brûlée") == "creme brulee")
        #expect(StringFolding(.diacriticInsensitive).fold("Ǘber ÅNGSTRÖM") == "Uber ANGSTROM")
        #expect(cd.fold("ø ł") == "ø ł")  // no decomposition: kept
        #expect(cd.fold("\u{1E9B}\u{0323}") == "ſ".lowercased().uppercased().lowercased())  // ẛ̣ → s
        #expect(cd.fold("한국어") == "한국어".decomposedStringWithCanonicalMapping)  // Hangul decomposes to jamo
        #expect(cd.fold("\u{0301}\u{0323}") == "")  // only marks
    }

    /// Random strings drawn from scripts with decompositions, marks in every order (canonical reordering),
    /// Hangul syllables and singletons (Ω, Å), against the Foundation reference, for all three option sets.
    @Test func matchesFoundationsDecompositionOnRandomText() {
        let pools: [ClosedRange<UInt32>] = [
            0x41...0x7A, 0xC0...0x24F, 0x300...0x36F, 0x370...0x3FF, 0x400...0x4FF, 0x1E00...0x1FFF,
            0x2126...0x212B, 0xAC00...0xAC40, 0x3040...0x30FF, 0x0591...0x05C7, 0x0900...0x097F, 0xFB1D...0xFB4F,
            0x1D15E...0x1D164, 0x2F800...0x2F810,
        ]
        var rng = SeededGenerator(seed: 0x5F01D)
        let optionSets: [ComparisonOptions] = [.caseInsensitive, .diacriticInsensitive,
                                               [.caseInsensitive, .diacriticInsensitive]]
        for _ in 0..<3_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                let pool = pools[Int.random(in: 0..<pools.count, using: &rng)]
                if let u = Unicode.Scalar(UInt32.random(in: pool, using: &rng)) { scalars.append(u) }
            }
            let s = String(scalars)
            for options in optionSets {
                let folded = StringFolding(options).fold(s)
                let expected = reference(s, options)
                #expect(Array(folded.unicodeScalars) == Array(expected.unicodeScalars),
                        "\(options.rawValue) of \(s.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }
}
