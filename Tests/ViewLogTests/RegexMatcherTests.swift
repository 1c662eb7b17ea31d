import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `MATCHES`: the linear-time matcher answers what Swift's backtracking `Regex` answers, on every string, and
/// refuses what it cannot run.
@Suite("Regex matcher")
struct RegexMatcherTests {
    // MARK: Differential test against Swift `Regex`

    /// A random pattern over a small alphabet, from the syntax both engines share with the same meaning.
    /// (`\b` is left out: Swift's is the Unicode word boundary of UAX #29, ours ICU's simple `\w` boundary;
    /// `$` only ends the pattern: before a final line terminator they differ, ICU's way is ours.)
    static func pattern(_ g: inout SeededGenerator, depth: Int = 0, names: inout Int) -> String {
        let atoms = ["a", "b", "c", "1", "é", "e\u{301}", ".", "[ab]", "[^a]", "[a-c]", "[^a-b1]", "\\d", "\\w", "\\s",
                     "\\D", "\\W", "\\S", "[\\d\\s]", "\\.", "\\x61", "\\u{62}", "[[:alpha:]]", "\\p{L}", "\\p{Nd}",
                     "\\P{L}", "[a-c&&[^b]]", "(?:\\Qa.\\E)", " ", "\\n", "\\h", "\\v"]
        var text = ""
        let items = Int.random(in: 1...3, using: &g)
        for _ in 0..<items {
            var item: String
            if depth < 2, Int.random(in: 0..<4, using: &g) == 0 {
                names += 1
                let open = ["(", "(?:", "(?<n\(names)>"].randomElement(using: &g)!
                var branches: [String] = []
                for _ in 0..<Int.random(in: 1...3, using: &g) { branches.append(pattern(&g, depth: depth + 1, names: &names)) }
                item = open + branches.joined(separator: "|") + ")"
            } else {
                item = atoms.randomElement(using: &g)!
                if item == "e\u{301}" { item = "(?:e\u{301})" }  // one atom
            }
            // Swift's `Regex` matches a repeated `\W` wrongly (`\W{,2}` matches "1\u{661}", though `1` is `\w` and
            // `\W\W` does not match it), so `\W` is not repeated here.
            if Int.random(in: 0..<3, using: &g) == 0, item != "\\W" {
                item += ["*", "+", "?", "{2}", "{1,3}", "{0,}", "{,2}", "*?", "+?", "??", "{1,2}?"].randomElement(using: &g)!
            }
            text += item
        }
        if depth == 0 {
            if Int.random(in: 0..<8, using: &g) == 0 { text = "^" + text }
            if Int.random(in: 0..<8, using: &g) == 0 { text += "$" }
            if Int.random(in: 0..<6, using: &g) == 0 { text = "(?s)" + text }
        }
        return text
    }

    static func subject(_ g: inout SeededGenerator) -> String {
        // No `\r`: Swift's `Regex` takes `\r\n` as one scalar for `\v` and `\s` (`\D+?\v` does not match "\r\n").
        // No combining mark: Swift's repeated classes sometimes take a digit and its mark as one (`\W[^a]+[^a]`
        // matches "1\u{301} ."); marks are covered by the explicit tests of `SemanticsTests`.
        let scalars: [Unicode.Scalar] = ["a", "b", "c", "A", "B", "1", "2", " ", "\n", ".", "é", "e",
                                         "\u{0661}", "\u{00BD}", "_", "\t"]
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...7, using: &g) { s.append(scalars.randomElement(using: &g)!) }
        return String(s)
    }

    /// Swift's answer: the whole string, by Unicode scalar (its engine is fast on these small subjects).
    static func swiftMatches(_ pattern: String, _ subject: String, caseless: Bool) throws -> Bool {
        var r = try Regex(pattern).matchingSemantics(.unicodeScalar)
        if caseless { r = r.ignoresCase() }
        return try r.wholeMatch(in: subject) != nil
    }

    @Test func agreesWithSwiftRegexOnRandomPatterns() throws {
        var g = SeededGenerator(stream: 71)
        var compared = 0
        for _ in 0..<1000 {
            var names = 0
            let p = Self.pattern(&g, names: &names)
            let caseless = Int.random(in: 0..<5, using: &g) == 0
            let matcher = try RegexMatcher(p, options: caseless ? .caseInsensitive : [])
            for _ in 0..<10 {
                let s = Self.subject(&g)
                guard let expected = try? Self.swiftMatches(p, s, caseless: caseless) else {
                    Issue.record("Swift's Regex refuses \(String(reflecting: p))")
                    return
                }
                #expect(matcher.matches(s) == expected,
                        "seed \(g.seed): \(String(reflecting: s)) MATCHES\(caseless ? "[c]" : "") \(String(reflecting: p))")
                compared += 1
            }
        }
        #expect(compared == 10_000)
    }

    /// The escapes mean what they mean in Swift's `Regex`, scalar by scalar (every 7th scalar of the first
    /// planes, and the ones that differ between Unicode definitions).
    @Test(arguments: ["\\d", "\\w", "\\s", "\\h", "\\v", ".", "\\D", "\\W", "\\S", "\\R", "\\p{Lu}", "\\p{N}",
                      "[[:alpha:]]", "[^\\d]", "(?s)."])
    func escapesAgreeWithSwiftRegex(pattern: String) throws {
        let matcher = try RegexMatcher(pattern, options: [])
        var values = Array(stride(from: UInt32(0), through: 0x3_0000, by: 7))
        values += [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029, 0x5F, 0x660, 0xBD, 0x2160, 0x301, 0x200C, 0x1680, 0xA0]
        for v in values {
            guard let u = Unicode.Scalar(v) else { continue }
            let s = String(u)
            #expect(try matcher.matches(s) == Self.swiftMatches(pattern, s, caseless: false),
                    "\(pattern) on U+\(String(v, radix: 16))")
        }
    }

    // MARK: Linear time

    /// Steps are bounded by the program's size per scalar, so these finish on 10 KB strings whatever the
    /// pattern; a backtracking engine takes exponential or polynomial time on them.
    @Test(arguments: [("(a+)+b", false), ("(a|a)*b", false), ("(a*)*b", false), ("(a|aa)+$", true),
                      (".*a.*a.*a.*a.*b", false), ("(x+x+)+y", false), ("(\\w+\\s?)*", true), ("(?:a?){20}a{20}", false),
                      ("(.*)*[^a]", false), ("(a{1,20}){1,20}", false)])
    func pathologicalPatternsTakeLinearSteps(pattern: String, expected: Bool) throws {
        let matcher = try RegexMatcher(pattern, options: [])
        let subject = String(repeating: "a", count: 10_000)
        var steps = 0
        #expect(matcher.matches(subject, steps: &steps) == expected)
        let size = try RegexMatcher.compile(pattern, caseless: false).count
        #expect(steps <= size * 10_000, "\(pattern): \(steps) steps")
    }

    /// No subject bound: a long string that matches is a match, never a silent false.
    @Test func longMatchingStringsMatch() throws {
        let long = String(repeating: "a", count: 10_000) + "b"
        #expect(try Fixture.eval("name MATCHES '.*a.*a.*b'", Fixture.values(name: long)))
        #expect(try Fixture.eval("name MATCHES '.*a.*a.*b'", Fixture.values(name: String(repeating: "xa", count: 50) + "b")))
        #expect(try !Fixture.eval("name MATCHES '.*a.*a.*b'", Fixture.values(name: long + "a")))
        #expect(try Fixture.eval("name MATCHES 'a*'", Fixture.values(name: String(repeating: "a", count: 100_000))))
        #expect(try Fixture.eval("name MATCHES '(a+)+'", Fixture.values(name: String(repeating: "a", count: 5000))))
    }

    // MARK: Syntax

    @Test(arguments: [
        ("a\\bb", "ab", false), ("a\\b b", "a b", true), ("\\b", "", false), ("\\Ba\\B", "a", false),
        ("a$\\n", "a\n", true), ("a\\Z\\r\\n", "a\r\n", true), ("a\\z\\n", "a\n", false), ("(?m)a$\\n^b", "a\nb", true),
        ("a^", "a", false), ("^^a$$", "a", true), ("(?i)abc", "AbC", true), ("(?i:a)b", "Ab", true), ("(?i:a)b", "AB", false),
        ("a(?i)b|c", "C", true), ("a(?i)b|c", "aB", true), ("(?x) a b # comment", "ab", true), ("a(?#note)b", "ab", true),
        ("\\x41\\u{42}\\U00000043\\o{104}\\0105\\N{U+46}", "ABCDEF", true), ("\\t\\e\\cA", "\t\u{1B}\u{1}", true),
        ("[\\w-]+", "a-b", true), ("[a-c--b]", "b", false), ("[a-c~~b-d]", "d", true), ("[]a]", "]", true),
        ("\\R", "\r\n", true), ("\\R\\R", "\r\n", false), ("a{", "a{", true), ("a{,2}", "aa", true), ("a{ 2 }", "aa", true),
        ("\\p{Letter}\\p{gc=Nd}\\P{L}", "x1-", true), ("\\pL", "x", true), ("[[:^digit:]]", "x", true),
        ("\\p{Any}*", "x\u{301}\n", true), ("k", "\u{212A}", false), ("(?i)k", "\u{212A}", true), ("(?i)σ", "ς", true),
        ("(?i)[^a]", "A", false), ("(?i)[a-z]+", "ÀB", false), ("(?i)[à-é]", "É", true),
    ])
    func syntax(pattern: String, subject: String, expected: Bool) throws {
        #expect(try RegexMatcher(pattern, options: []).matches(subject) == expected, "\(pattern)")
    }

    @Test(arguments: [
        ("(a)\\1", "is refused: backreferences are not allowed"),
        ("(?<n>a)\\k<n>", "is refused: backreferences are not allowed"),
        ("(?P=n)", "is refused: backreferences are not allowed"),
        ("a(?=b)", "is refused: lookaround ((?=…), (?!…), (?<=…), (?<!…)) is not supported by the linear-time matcher"),
        ("(?<!a)b", "is refused: lookaround ((?=…), (?!…), (?<=…), (?<!…)) is not supported by the linear-time matcher"),
        ("(?>a|b)*", "is refused: atomic groups (?>…) are not supported"),
        ("(a|b)*+", "is refused: possessive quantifiers (*+, ++, ?+, {…}+) are not supported"),
        ("(a{100}){100}", "is refused: it repeats too much"),
        ("a{0,99999999999999999999999999}", "is refused: it repeats too much"),
        ("a(b", ": expected ')'"), ("a)", ": unbalanced ')'"), ("[a", ": expected ']'"), ("*a", ": quantifier '*' has nothing to repeat"),
        ("a**", ": a quantifier cannot follow a quantifier"), ("\\p{Latin}", ": unknown Unicode property 'Latin'"),
        ("x{2,1}", ": range lower bound '2' must be less than or equal to upper bound '1'"), ("\\y", ": '\\y' is not supported"),
        ("\\j", ": invalid escape sequence '\\j'"), ("[z-a]", ": invalid character class range 'z-a'"), ("(?u)a", ": unsupported option 'u'"),
    ])
    func refusalsNameThePattern(pattern: String, message: String) {
        let error = Fixture.error("name MATCHES \(PredicateOperand.quoted(pattern))")?.message ?? "no error"
        let quoted = PredicateOperand.quoted(pattern)
        let prefix = message.hasPrefix("is refused") ? "regular expression \(quoted) " : "invalid regular expression \(quoted)"
        #expect(error.hasPrefix(prefix + message), "\(error)")
    }

    /// `MATCHES[d]` folds the pattern like the subject: a pattern of combining marks only is empty, and matches
    /// only strings that are empty once folded.
    @Test func diacriticFoldingOfPatternAndSubject() throws {
        #expect(try Fixture.eval("name MATCHES[d] '\u{301}'", Fixture.values(name: "\u{301}")))
        #expect(try !Fixture.eval("name MATCHES[d] '\u{301}'", Fixture.values(name: "e")))
        #expect(try Fixture.eval("name MATCHES[cd] 'CREME'", Fixture.values(name: "Crème")))
        #expect(try Fixture.eval("name MATCHES '\u{301}'", Fixture.values(name: "\u{301}")))
        #expect(try !Fixture.eval("name MATCHES '\u{301}'", Fixture.values(name: "\u{e9}")))
    }
}

extension RegexMatcherTests {
    /// A chain of `~~` (symmetric difference) in a class evaluates each operand once: a scalar is in the class when
    /// an odd number of operands hold it. Spelled with unions and intersections, a chain of n evaluated its first
    /// operand 2ⁿ times (a fuzzer's pattern of 35 ran past its timeout); this one, of 40, would not finish.
    @Test func aChainOfSymmetricDifferencesIsLinear() throws {
        var g = SeededGenerator(stream: 515)
        for _ in 0..<20 {
            let operands = (0..<40).map { _ in ["a", "b", "c", "a-b", "b-c"].randomElement(using: &g)! }
            let matcher = try RegexMatcher("[" + operands.joined(separator: "~~") + "]", options: [])
            for x in ["a", "b", "c", "d"] {
                let holding = operands.filter { op in
                    op.count == 1 ? op == x : (op.first!...op.last!).contains(Character(x))
                }.count
                #expect(matcher.matches(x) == (holding % 2 == 1), "\(x) in \(operands)")
            }
        }
    }
}
