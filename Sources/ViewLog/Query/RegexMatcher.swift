/// The compiled regular expression of a `MATCHES` comparison (Swift `Regex` syntax), matched against the
/// **whole** string, by Unicode scalar (not by grapheme cluster), case-insensitively under `[c]`.
///
/// Swift's `Regex` engine backtracks, so some patterns take exponential time on some inputs, and a view
/// evaluates its predicate for every change of the log. To keep views from hanging, a pattern is refused
/// (a ``QueryError`` naming it) when:
/// - it is longer than ``Limits/regexPatternBytesMax`` bytes;
/// - it has a **nested quantifier**: a group that holds a quantifier (`*`, `+`, `{…}`) or an alternation `|`,
///   directly or in a group inside it, and is itself repeated by `*`, `+` or `{…}`: `(a+)+`, `(a*)*`,
///   `(a|a)*`, `((ab)*c)+`, `(x|y){2,5}` are refused. An optional group (`(a+)?`) is fine. To repeat such a
///   group, make it atomic, `(?>a|b)*`, or the outer quantifier possessive, `(a|b)*+`: neither backtracks
///   into the group;
/// - it has a backreference (`\1`, `\k<name>`, `\g1`).
///
/// Combining marks are literal code points, as in ICU (which NSPredicate's `MATCHES` uses): `.́x` is `.` then
/// U+0301 then `x`, and `[é]` with a decomposed é is a class of two code points. (Swift's `Regex` parser refuses a
/// mark right after a metacharacter as "confusable"; each mark is given to it as `\u{…}`, which means the same.)
///
/// This check is structural and conservative: it refuses some harmless patterns (`(ab|cd)*`).
///
/// Without nested quantifiers, backtracking is still polynomial: `.*a.*a.*b` tries every way to split the
/// string in three, about n³/6 attempts (11 s for 1,000 bytes on our machine). So each pattern also gets a
/// **subject bound**: the longest string (at most ``Limits/regexSubjectBytesMax`` bytes) on which the number of
/// ways the pattern can match — the product, over its quantifiers, of how many counts each can take (`*`, `+`,
/// `{n,}`: up to the string's length + 1; `?`: 2; `{n,m}`: m − n + 1; possessive: 1) and over its groups, of
/// their `|` alternatives — times the pattern's length stays within ``Limits/regexBacktrackingStepsMax``.
/// A longer string does not match (the comparison is false). A pattern whose bound would be below
/// ``Limits/regexSubjectBytesMin`` (too many quantifiers in a row, like `.*a.*b.*c.*d.*`) is refused. Bytes
/// over-count the Unicode scalars the engine steps through, so the bound is conservative.
final class RegexMatcher: @unchecked Sendable {
    // `Regex` is not `Sendable`, but it is an immutable value whose compiled program is initialised once,
    // atomically, by the `_StringProcessing` runtime; matching from several threads at once is safe.
    private let regex: Regex<AnyRegexOutput>
    private let folding: StringFolding
    /// The pattern as written.
    let pattern: String
    /// Longest subject, in UTF-8 bytes, the pattern is tried on; a longer one does not match.
    let subjectBytesMax: Int

    /// Compiles `pattern`. `options`: `[c]` matches case-insensitively; `[d]` strips diacritics from pattern
    /// and subject first.
    init(_ pattern: String, options: ComparisonOptions) throws(QueryError) {
        self.pattern = pattern
        let analysis = RegexMatcher.analyze(pattern)
        if let reason = analysis.refusal {
            throw QueryError("regular expression \(PredicateOperand.quoted(pattern)) is refused: \(reason)")
        }
        subjectBytesMax = analysis.subjectBytesMax
        folding = StringFolding(options.intersection(.diacriticInsensitive))
        var r: Regex<AnyRegexOutput>
        do {
            r = try Regex(RegexMatcher.escapingMarks(folding.fold(pattern)))
        } catch {
            throw QueryError("invalid regular expression \(PredicateOperand.quoted(pattern)): \(error)")
        }
        r = r.matchingSemantics(.unicodeScalar)
        if options.contains(.caseInsensitive) { r = r.ignoresCase() }
        do {
            _ = try r.wholeMatch(in: "")  // compiles the program now, not on the first object
        } catch {
            throw QueryError("invalid regular expression \(PredicateOperand.quoted(pattern)): \(error)")
        }
        regex = r
    }

    func matches(_ subject: String) -> Bool {
        guard subject.utf8.count <= subjectBytesMax else { return false }
        let s = folding.fold(subject)
        return ((try? regex.wholeMatch(in: s)) ?? nil) != nil
    }

    /// `pattern` with every combining mark (general categories Mn, Mc, Me) written as `\u{…}`: the same literal
    /// code point (also after a `\`), without the `Regex` parser's "confusable for a metacharacter" refusal.
    /// Inside `\Q…\E`, where an escape would be literal text, the pattern is kept as it is.
    static func escapingMarks(_ pattern: String) -> String {
        func isMark(_ u: Unicode.Scalar) -> Bool {
            switch u.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }
        guard pattern.unicodeScalars.contains(where: isMark) else { return pattern }
        let p = Array(pattern.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0, quoted = false
        while i < p.count {  // one step per scalar
            let u = p[i]
            if quoted {
                if u == "\\", i + 1 < p.count, p[i + 1] == "E" { quoted = false }
                out.append(u)
            } else if u == "\\", i + 1 < p.count {
                let next = p[i + 1]
                if isMark(next) {
                    out.append(contentsOf: "\\u{\(String(next.value, radix: 16))}".unicodeScalars)
                } else {
                    if next == "Q" { quoted = true }
                    out.append(u)
                    out.append(next)
                }
                i += 2
                continue
            } else if isMark(u) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(u)
            }
            i += 1
        }
        return String(out)
    }

    /// Why `pattern` is refused (see the type's documentation), or `nil` when it is accepted.
    static func refusal(of pattern: String) -> String? { analyze(pattern).refusal }

    /// What ``analyze(_:)`` finds: why a pattern is refused, or its subject bound.
    struct Analysis: Equatable {
        /// Why the pattern is refused; `nil` when it is accepted.
        var refusal: String?
        /// The longest subject in UTF-8 bytes (0 when refused).
        var subjectBytesMax: Int
    }

    /// Checks `pattern` and computes its subject bound (see the type's documentation).
    static func analyze(_ pattern: String) -> Analysis {
        guard pattern.utf8.count <= Limits.regexPatternBytesMax else {
            return Analysis(refusal: "longer than \(Limits.regexPatternBytesMax) bytes", subjectBytesMax: 0)
        }
        var choices: [Int] = []  // per quantifier: how many counts it can take (Int.max: unbounded)
        var alternatives = 1     // product of the alternatives of every group, saturating
        if let reason = scan(pattern, choices: &choices, alternatives: &alternatives) {
            return Analysis(refusal: reason, subjectBytesMax: 0)
        }
        let steps = { (subjectBytes: Int) -> Int in
            var product = alternatives
            product = product.multipliedSaturating(by: pattern.unicodeScalars.count + 1)
            for c in choices { product = product.multipliedSaturating(by: min(c, subjectBytes + 1)) }
            return product
        }
        guard steps(Limits.regexSubjectBytesMin) <= Limits.regexBacktrackingStepsMax else {
            return Analysis(refusal: "it could backtrack for too long (\(choices.count) quantifiers and \(alternatives) "
                                + "alternatives allow too many ways to match even a \(Limits.regexSubjectBytesMin)-byte string); "
                                + "use fewer quantifiers, or possessive ones (*+, ++)",
                            subjectBytesMax: 0)
        }
        // The largest bound whose step count fits: `steps` grows with the bound.
        var low = Limits.regexSubjectBytesMin, high = Limits.regexSubjectBytesMax
        while low < high {
            let mid = low + (high - low + 1) / 2
            if steps(mid) <= Limits.regexBacktrackingStepsMax { low = mid } else { high = mid - 1 }
        }
        return Analysis(refusal: nil, subjectBytesMax: low)
    }

    /// Scans `pattern` once: returns why it is refused (nested quantifier, backreference), and collects each
    /// quantifier's number of choices and the product of the groups' alternatives.
    private static func scan(_ pattern: String, choices: inout [Int], alternatives: inout Int) -> String? {
        struct Group {
            /// Holds a quantifier or an alternation, itself or in a nested group.
            var isAmbiguous = false
            /// `(?>…)`: never backtracked into.
            var isAtomic = false
            /// Its `|` branches.
            var branches = 1
        }
        let p = Array(pattern.unicodeScalars)
        var groups = [Group()]
        var previousGroupIsAmbiguous = false  // the atom just before is a group that can match many ways
        var i = 0
        func isDigit(_ k: Int) -> Bool { k < p.count && p[k] >= "0" && p[k] <= "9" }
        /// If a counted quantifier `{n}`, `{n,}`, `{n,m}` or `{,m}` starts at `k`, its end (after `}`).
        func countedQuantifierEnd(_ k: Int) -> Int? {
            var j = k + 1
            var sawDigitOrComma = false
            while j < p.count, isDigit(j) || p[j] == "," || p[j] == " " {
                sawDigitOrComma = true
                j += 1
            }
            guard sawDigitOrComma, j < p.count, p[j] == "}" else { return nil }
            return j + 1
        }
        while i < p.count {
            let c = p[i]
            switch c {
            case "\\":
                guard i + 1 < p.count else { return nil }  // `Regex` reports the dangling backslash
                let e = p[i + 1]
                if (e >= "1" && e <= "9") || e == "k" || e == "g" { return "backreferences are not allowed" }
                if e == "Q" {  // \Q…\E quotes literally
                    i += 2
                    while i + 1 < p.count, !(p[i] == "\\" && p[i + 1] == "E") { i += 1 }
                    i += 2
                } else {
                    i += 2
                    if i < p.count, p[i] == "{", e != "{" {  // \p{…} \u{…} \x{…} \N{…}
                        while i < p.count, p[i] != "}" { i += 1 }
                        i += 1
                    }
                }
                previousGroupIsAmbiguous = false
            case "[":
                var depth = 1
                i += 1
                if i < p.count, p[i] == "^" { i += 1 }
                if i < p.count, p[i] == "]" { i += 1 }
                while i < p.count, depth > 0 {
                    if p[i] == "\\" { i += 1 } else if p[i] == "[" { depth += 1 } else if p[i] == "]" { depth -= 1 }
                    i += 1
                }
                previousGroupIsAmbiguous = false
            case "(":
                var g = Group()
                if i + 2 < p.count, p[i + 1] == "?", p[i + 2] == ">" { g.isAtomic = true }
                groups.append(g)
                i += 1
                if i < p.count, p[i] == "?" { i += 1 }  // `(?:`, `(?>`, `(?<name>`…: not a quantifier
                previousGroupIsAmbiguous = false
            case ")":
                i += 1
                guard groups.count > 1 else { return nil }  // `Regex` reports the unbalanced parenthesis
                let g = groups.removeLast()
                alternatives = alternatives.multipliedSaturating(by: g.branches)
                let ambiguous = g.isAmbiguous && !g.isAtomic
                if ambiguous { groups[groups.count - 1].isAmbiguous = true }
                previousGroupIsAmbiguous = ambiguous
            case "*", "+", "{":
                var end = i + 1
                var count = Int.max
                if c == "{" {
                    guard let e = countedQuantifierEnd(i) else {  // a literal brace
                        i += 1
                        previousGroupIsAmbiguous = false
                        continue
                    }
                    end = e
                    count = countedQuantifierChoices(p[(i + 1)..<(e - 1)])
                }
                let possessive = end < p.count && p[end] == "+"
                if previousGroupIsAmbiguous, !possessive {
                    return "nested quantifier (a repeated group that holds a quantifier or '|')"
                }
                if !possessive { choices.append(count) }
                groups[groups.count - 1].isAmbiguous = true
                i = end
                if i < p.count, p[i] == "?" || p[i] == "+" { i += 1 }  // lazy or possessive suffix
                previousGroupIsAmbiguous = false
            case "|":
                groups[groups.count - 1].isAmbiguous = true
                groups[groups.count - 1].branches += 1
                i += 1
                previousGroupIsAmbiguous = false
            case "?":
                choices.append(2)
                i += 1  // optional: at most one more way to match; keeps the group's state for the next check
            default:
                i += 1
                previousGroupIsAmbiguous = false
            }
        }
        for g in groups { alternatives = alternatives.multipliedSaturating(by: g.branches) }  // top level, unclosed
        return nil
    }

    /// How many counts `{n}`, `{n,}`, `{n,m}` or `{,m}` allows (`text` is between the braces); `Int.max` when
    /// unbounded.
    private static func countedQuantifierChoices(_ text: ArraySlice<Unicode.Scalar>) -> Int {
        func number(_ digits: ArraySlice<Unicode.Scalar>) -> Int? {
            var value: Int?
            for d in digits where d >= "0" && d <= "9" {
                value = (value ?? 0).multipliedSaturating(by: 10).addingSaturating(Int(d.value - 48))
            }
            return value
        }
        guard let comma = text.firstIndex(of: ",") else { return 1 }
        let low = number(text[..<comma]) ?? 0
        guard let high = number(text[(comma + 1)...]) else { return Int.max }
        return high >= low ? (high - low).addingSaturating(1) : 1  // counts may be saturated at Int.max
    }
}

extension Int {
    fileprivate func multipliedSaturating(by other: Int) -> Int {
        let (r, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? Int.max : r
    }
}
