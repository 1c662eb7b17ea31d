import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite("Predicate parser")
struct PredicateParserTests {
    private func tree(_ format: String) throws -> PredicateExpression {
        try ViewPredicate(format).expression
    }

    private static func cmp(_ key: String, _ op: ComparisonOperator, _ v: Value,
                            _ options: ComparisonOptions = []) -> PredicateExpression {
        .comparison(.key(key), op, .value(v), options)
    }

    @Test(arguments: [
        ("==", ComparisonOperator.equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual),
        ("<", .less), ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
        ("=>", .greaterOrEqual), ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith), ("CONTAINS", .contains),
        ("LIKE", .like), ("MATCHES", .matches), ("beginswith", .beginsWith), ("Contains", .contains),
        ("like", .like), ("matches", .matches),
    ])
    func operatorSpellings(spelling: String, op: ComparisonOperator) throws {
        #expect(try tree("height \(spelling) 3") == Self.cmp("height", op, .int(3)))
        if !spelling.first!.isLetter {
            #expect(try tree("height\(spelling)3") == Self.cmp("height", op, .int(3)))
        }
    }

    static let literalCases: [(String, Value)] = [
        ("3", Value.int(3)), ("-3", .int(-3)), ("+3", .int(3)), ("0", .int(0)), ("1.5", .double(1.5)),
        ("-0.25", .double(-0.25)), (".5", .double(0.5)), ("-.5", .double(-0.5)), ("1e3", .double(1000)),
        ("2.5E-1", .double(0.25)), ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
        ("'abc'", .string("abc")), ("\"abc\"", .string("abc")), ("''", .string("")),
        ("'it\\'s'", .string("it's")), ("\"say \\\"hi\\\"\"", .string("say \"hi\"")),
        ("'a\\\\b'", .string("a\\b")), ("'\\n\\r\\t\\0'", .string("\n\r\t\0")), ("'\\u00e9'", .string("é")),
        ("\"it's\"", .string("it's")), ("'say \"hi\"'", .string("say \"hi\"")), ("'héllo 🙂'", .string("héllo 🙂")),
        ("TRUE", .bool(true)), ("true", .bool(true)), ("YES", .bool(true)), ("yes", .bool(true)),
        ("FALSE", .bool(false)), ("No", .bool(false)), ("NIL", .null), ("nil", .null), ("NULL", .null),
        ("null", .null),
    ]

    @Test(arguments: literalCases)
    func literals(text: String, value: Value) throws {
        #expect(try tree("x == \(text)") == Self.cmp("x", .equal, value))
    }

    @Test func variablesAndKeys() throws {
        #expect(try tree("height > $min") == .comparison(.key("height"), .greater, .variable("min"), []))
        #expect(try tree("id == 'e1'") == Self.cmp("id", .equal, .string("e1")))
        #expect(try tree("170 < height") == .comparison(.value(.int(170)), .less, .key("height"), []))
        #expect(try tree("#like == 1") == Self.cmp("like", .equal, .int(1)))
        #expect(try tree("a == b") == .comparison(.key("a"), .equal, .key("b"), []))
        #expect(try tree("_x1 == 1") == Self.cmp("_x1", .equal, .int(1)))
    }

    static let modifierCases: [(String, ComparisonOptions)] = [
        ("[c]", ComparisonOptions.caseInsensitive), ("[d]", .diacriticInsensitive),
        ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
        ("[C]", .caseInsensitive), (" [ cd ] ", [.caseInsensitive, .diacriticInsensitive]),
    ]

    @Test(arguments: modifierCases)
    func modifiers(text: String, options: ComparisonOptions) throws {
        #expect(try tree("name ==\(text)'a'") == Self.cmp("name", .equal, .string("a"), options))
        #expect(try tree("name BEGINSWITH\(text) 'a'") == Self.cmp("name", .beginsWith, .string("a"), options))
        #expect(try tree("name IN\(text) {'a'}") == .comparison(.key("name"), .in, .list([.value(.string("a"))]), options))
    }

    @Test func inAndBetween() throws {
        #expect(try tree("height IN {1, 2.5, nil, $v}")
            == .comparison(.key("height"), .in, .list([.value(.int(1)), .value(.double(2.5)), .value(.null), .variable("v")]), []))
        #expect(try tree("height in {}") == .comparison(.key("height"), .in, .list([]), []))
        #expect(try tree("height BETWEEN {1, $hi}")
            == .comparison(.key("height"), .between, .list([.value(.int(1)), .variable("hi")]), []))
    }

    @Test func constants() throws {
        #expect(try tree("TRUEPREDICATE") == .constant(true))
        #expect(try tree("falsepredicate") == .constant(false))
        #expect(try tree("") == .constant(true))
        #expect(try tree("  \t ") == .constant(true))
        #expect(ViewPredicate.all.expression == .constant(true))
        #expect(ViewPredicate.none.expression == .constant(false))
    }

    private let a = cmp("a", .equal, .int(1))
    private let b = cmp("b", .equal, .int(2))
    private let c = cmp("c", .equal, .int(3))

    @Test func precedence() throws {
        #expect(try tree("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try tree("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try tree("a == 1 || b == 2 && c == 3") == .or([a, .and([b, c])]))
        #expect(try tree("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try tree("!a == 1 OR b == 2") == .or([.not(a), b]))
        #expect(try tree("NOT NOT a == 1") == .not(.not(a)))
        #expect(try tree("a == 1 and b == 2 or c == 3") == .or([.and([a, b]), c]))
        #expect(try tree("a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try tree("a == 1 OR b == 2 OR c == 3") == .or([a, b, c]))
    }

    @Test func parentheses() throws {
        #expect(try tree("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try tree("NOT (a == 1 OR b == 2)") == .not(.or([a, b])))
        #expect(try tree("((a == 1))") == a)
        #expect(try tree("a == 1 AND (b == 2 AND c == 3)") == .and([a, .and([b, c])]))
        #expect(try tree("(TRUEPREDICATE)") == .constant(true))
    }

    @Test(arguments: [
        "height > 170", "name BEGINSWITH[cd] 'ann' OR hired == nil", "NOT (a == 1 OR b < 2.5) AND c != NIL",
        "x IN {1, 2, 'three', NIL, $v} AND y BETWEEN {-1, 1e10}", "#like LIKE[c] '*a?\\\\*' || z MATCHES \"a\\\\d+\"",
        "s == 'line\\nbreak \\\"q\\\" \\u0001'", "TRUEPREDICATE AND NOT FALSEPREDICATE", "a == 1 AND (b == 2 AND c == 3)",
        "((a == 1 OR b == 2) AND (c == 3 OR NOT d == 4)) OR e == YES",
    ])
    func formatRoundTrips(text: String) throws {
        let p = try ViewPredicate(text)
        let again = try ViewPredicate(p.expression.description)
        #expect(again.expression == p.expression, "\(p.expression.description)")
        #expect(p.format == text)
        #expect(p.description == text)
    }

    @Test func builtPredicates() throws {
        let e: PredicateExpression = .or([.compare(.key("height"), .greater, .value(.int(170))),
                                          .not(.compare(.key("name"), .like, .value(.string("A*"))))])
        let p = try ViewPredicate(e)
        #expect(p.format == "height > 170 OR NOT name LIKE \"A*\"")
        #expect(try ViewPredicate(p.format).expression == e)
        #expect(try ViewPredicate(.compare(.key("hired"), .less, .value(Fixture.date("2026-01-01T00:00:00Z")))).format
            == "hired < \"2026-01-01T00:00:00.000Z\"")
        #expect(try ViewPredicate(.and([])).format == "TRUEPREDICATE")
        #expect(try ViewPredicate(.or([])).format == "FALSEPREDICATE")
        #expect(try ViewPredicate("x == $a OR y IN {$b, 1}").variableNames == ["a", "b"])
    }

    @Test func whitespaceAndNewlines() throws {
        #expect(try tree("\n a\t==\r\n1 ") == a)
    }

    @Test func longFlatChains() throws {
        let text = (0..<5000).map { "a == \($0)" }.joined(separator: " OR ")
        guard case .or(let es) = try tree(text) else { Issue.record("not an OR"); return }
        #expect(es.count == 5000)
    }

    @Test func nestingUpToTheLimit() throws {
        let n = Limits.predicateDepthMax - 1
        let deep = String(repeating: "NOT ", count: n) + "a == 1"
        #expect(try tree(deep).depth(upTo: 1000) == n + 1)
        let parens = String(repeating: "(", count: Limits.predicateDepthMax) + "a == 1"
            + String(repeating: ")", count: Limits.predicateDepthMax)
        #expect(try tree(parens) == a)
    }
}
