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
/// This check is structural and conservative: it refuses some harmless patterns (`(ab|cd)*`) and does not
/// bound polynomial backtracking such as `.*a.*a.*a`. That is why a string longer than
/// ``Limits/regexSubjectBytesMax`` bytes never matches (the comparison is false).
final class RegexMatcher: @unchecked Sendable {
    // `Regex` is not `Sendable`, but it is an immutable value whose compiled program is initialised once,
    // atomically, by the `_StringProcessing` runtime; matching from several threads at once is safe.
    private let regex: Regex<AnyRegexOutput>
    private let folding: StringFolding
    /// The pattern as written.
    let pattern: String

    /// Compiles `pattern`. `options`: `[c]` matches case-insensitively; `[d]` strips diacritics from pattern
    /// and subject first.
    init(_ pattern: String, options: ComparisonOptions) throws(QueryError) {
        self.pattern = pattern
        if let reason = RegexMatcher.refusal(of: pattern) {
            throw QueryError("regular expression \(PredicateOperand.quoted(pattern)) is refused: \(reason)")
        }
        folding = StringFolding(options.intersection(.diacriticInsensitive))
        var r: Regex<AnyRegexOutput>
        do {
            r = try Regex(folding.fold(pattern))
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
        guard subject.utf8.count <= Limits.regexSubjectBytesMax else { return false }
        let s = folding.fold(subject)
        return ((try? regex.wholeMatch(in: s)) ?? nil) != nil
    }

    /// Why `pattern` is refused (see the type's documentation), or `nil` when it is accepted.
    static func refusal(of pattern: String) -> String? {
        guard pattern.utf8.count <= Limits.regexPatternBytesMax else {
            return "longer than \(Limits.regexPatternBytesMax) bytes"
        }
        struct Group {
            /// Holds a quantifier or an alternation, itself or in a nested group.
            var isAmbiguous = false
            /// `(?>…)`: never backtracked into.
            var isAtomic = false
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
                previousGroupIsAmbiguous = false
            case ")":
                i += 1
                guard groups.count > 1 else { return nil }  // `Regex` reports the unbalanced parenthesis
                let g = groups.removeLast()
                let ambiguous = g.isAmbiguous && !g.isAtomic
                if ambiguous { groups[groups.count - 1].isAmbiguous = true }
                previousGroupIsAmbiguous = ambiguous
            case "*", "+", "{":
                var end = i + 1
                if c == "{" {
                    guard let e = countedQuantifierEnd(i) else {  // a literal brace
                        i += 1
                        previousGroupIsAmbiguous = false
                        continue
                    }
                    end = e
                }
                let possessive = end < p.count && p[end] == "+"
                if previousGroupIsAmbiguous, !possessive {
                    return "nested quantifier (a repeated group that holds a quantifier or '|')"
                }
                groups[groups.count - 1].isAmbiguous = true
                i = end
                if i < p.count, p[i] == "?" || p[i] == "+" { i += 1 }  // lazy or possessive suffix
                previousGroupIsAmbiguous = false
            case "|":
                groups[groups.count - 1].isAmbiguous = true
                i += 1
                previousGroupIsAmbiguous = false
            case "?":
                i += 1  // optional: at most one more way to match; keeps the group's state for the next check
            default:
                i += 1
                previousGroupIsAmbiguous = false
            }
        }
        return nil
    }
}
