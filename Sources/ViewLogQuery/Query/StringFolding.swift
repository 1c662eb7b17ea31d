@_spi(Engine) import ViewLogModel
// Canonical decomposition (NFD) through the standard library's `_nfd` (the decomposition its own String
// comparison uses), so the engine needs no full Foundation: on Linux, Foundation brings ICU, whose loading and
// conformance tables cost every CLI start about 4 ms (bench/RESULTS-notes.md, "no Foundation at start-up"). It is SPI, so a
// toolchain may change it; StringFoldingTests pin its results. Foundation's `folding(options:locale:)` is not
// used: it depends on a locale.
@_spi(_Unicode) import Swift

/// The string folding of the `[c]` and `[d]` modifiers, independent of any locale.
///
/// - `[d]`: canonical decomposition (NFD), then every nonspacing mark (general category `Mn`) is dropped:
///   `Crème Brûlée` → `Creme Brulee`. Letters without a decomposition (`ø`, `ł`) are kept.
/// - `[c]`: simple case folding of each scalar, approximated from the standard library's one-scalar case
///   mappings: the lowercase of the uppercase of the lowercase (`ς` → `σ`, `ſ` → `s`, `K` (Kelvin) → `k`).
///   A scalar whose mapping is not a single scalar (`ß` upper-cases to `SS`) folds to its one-scalar lowercase or
///   stays as it is, so every scalar folds to exactly one scalar.
///
/// Both sides of a comparison are folded the same way, then compared by code point.
struct StringFolding: Sendable, Hashable {
    let options: ComparisonOptions

    package init(_ options: ComparisonOptions) {
        self.options = options
    }

    var isIdentity: Bool { options.isEmpty }

    func fold(_ s: String) -> String {
        if options.isEmpty { return s }
        let caseless = options.contains(.caseInsensitive)
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics to decompose; case folding is A-Z → a-z.
            guard caseless, s.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return s }
            return String(decoding: s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
        }
        var out = String.UnicodeScalarView()
        if options.contains(.diacriticInsensitive) {
            for u in s._nfd where u.properties.generalCategory != .nonspacingMark {
                out.append(caseless ? StringFolding.caseFold(u) : u)
            }
        } else {
            for u in s.unicodeScalars { out.append(StringFolding.caseFold(u)) }
        }
        return String(out)
    }

    /// Simple case folding of one scalar (see the type's documentation).
    static func caseFold(_ u: Unicode.Scalar) -> Unicode.Scalar {
        if u.isASCII {
            return u.value >= 65 && u.value <= 90 ? Unicode.Scalar(u.value + 32)! : u
        }
        guard u.properties.changesWhenCaseFolded else { return u }
        let lower = single(u.properties.lowercaseMapping) ?? u
        guard let upper = single(lower.properties.uppercaseMapping),
              let folded = single(upper.properties.lowercaseMapping) else { return lower }
        return folded
    }

    private static func single(_ s: String) -> Unicode.Scalar? {
        var it = s.unicodeScalars.makeIterator()
        guard let first = it.next(), it.next() == nil else { return nil }
        return first
    }
}
