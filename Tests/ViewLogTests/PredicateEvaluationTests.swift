import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite("Predicate evaluation")
struct PredicateEvaluationTests {
    /// Against Ann: name "Ann", height 180, salary 1000.0, active, hired 2024-03-01T09:00Z, section "A", nick null.
    static let annCases: [(String, Bool)] = [
        // every comparison operator and spelling, ints
        ("height == 180", true), ("height = 180", true), ("height != 180", false), ("height <> 181", true),
        ("height < 181", true), ("height < 180", false), ("height <= 180", true), ("height =< 179", false),
        ("height > 179", true), ("height > 180", false), ("height >= 181", false), ("height => 180", true),
        // key on the right
        ("170 < height", true), ("180 == height", true), ("200 <= height", false), ("181 > height", true),
        ("181 != height", true), ("'Ann' == name", true),
        // int and double mix numerically
        ("height == 180.0", true), ("height < 180.5", true), ("height > 179.9", true), ("height == 180.1", false),
        ("salary == 1000", true), ("salary > 999", true), ("salary < height", false), ("height < salary", true),
        ("salary >= 1e3", true), ("height > -1", true), ("height > -180.5", true),
        // strings by code point
        ("name == 'Ann'", true), ("name == \"Ann\"", true), ("name == 'ann'", false), ("name < 'B'", true),
        ("name < 'a'", true), ("name > 'Anm'", true), ("name >= 'Ann'", true), ("name > 'Ann'", false),
        // bools
        ("active == YES", true), ("active == TRUE", true), ("active == FALSE", false), ("active != NO", true),
        ("active > false", true), ("active < true", false),
        // id
        ("id == 'e1'", true), ("id != 'e2'", true), ("id BEGINSWITH 'e'", true), ("id IN {'e0', 'e1'}", true),
        ("id > 'e0'", true), ("'e1' == id", true),
        // dates, written as ISO-8601 strings with any offset
        ("hired == '2024-03-01T09:00:00Z'", true), ("hired == '2024-03-01T09:00:00.000Z'", true),
        ("hired == '2024-03-01T10:00:00+01:00'", true), ("hired < '2025-01-01T00:00:00.000Z'", true),
        ("hired > '2024-03-01T09:00:00.001Z'", false), ("hired >= '2024-03-01T09:00:00Z'", true),
        ("'2024-01-01T00:00:00Z' < hired", true),
        ("hired BETWEEN {'2024-01-01T00:00:00Z', '2024-12-31T00:00:00Z'}", true),
        ("hired IN {'2024-03-01T09:00:00Z'}", true),
        // string operators
        ("name BEGINSWITH 'An'", true), ("name BEGINSWITH 'an'", false), ("name BEGINSWITH[c] 'an'", true),
        ("name ENDSWITH 'nn'", true), ("name ENDSWITH 'NN'", false), ("name ENDSWITH[c] 'NN'", true),
        ("name CONTAINS 'nn'", true), ("name CONTAINS 'x'", false), ("name CONTAINS[c] 'AN'", true),
        ("name BEGINSWITH ''", true), ("name CONTAINS ''", true), ("name ENDSWITH ''", true),
        ("name ENDSWITH 'Ann'", true), ("name ENDSWITH 'xAnn'", false), ("name BEGINSWITH 'Anna'", false),
        ("name CONTAINS 'Ann'", true), ("name CONTAINS 'Anne'", false),
        ("'Annabel' BEGINSWITH name", true), ("'Joanna' CONTAINS name", false), ("'JoAnn' ENDSWITH name", true),
        ("name == sectionName", false), ("name > sectionName", true),
        // LIKE
        ("name LIKE 'Ann'", true), ("name LIKE 'A*'", true), ("name LIKE 'a*'", false), ("name LIKE[c] 'a*'", true),
        ("name LIKE '?nn'", true), ("name LIKE '??'", false), ("name LIKE '*'", true), ("name LIKE '*n'", true),
        ("name LIKE 'A\\\\*'", false),
        // MATCHES: the whole string
        ("name MATCHES 'Ann'", true), ("name MATCHES 'An'", false), ("name MATCHES 'nn'", false),
        ("name MATCHES 'A.*'", true), ("name MATCHES '.nn'", true), ("name MATCHES[c] 'ann'", true),
        ("name MATCHES 'ann'", false), ("name MATCHES '[A-Z][a-z]+'", true), ("name MATCHES 'a|Ann'", true),
        ("name MATCHES '\\\\w+'", true), ("name MATCHES '(?:A|B)nn'", true), ("name MATCHES '(An|Bo)*n'", true),
        // IN
        ("height IN {170, 180}", true), ("height IN {170}", false), ("height IN {}", false), ("NOT height IN {}", true),
        ("height IN {180.0}", true), ("height IN {179.5}", false),
        ("name IN {'ann', 'Bob'}", false), ("name IN[c] {'ann', 'Bob'}", true), ("salary IN {1000}", true),
        ("height IN {nil, 180}", true), ("name IN {'Ann'}", true),
        // BETWEEN, inclusive
        ("height BETWEEN {180, 190}", true), ("height BETWEEN {170, 180}", true), ("height BETWEEN {181, 190}", false),
        ("height BETWEEN {190, 170}", false), ("salary BETWEEN {999.5, 1000}", true), ("name BETWEEN {'A', 'B'}", true),
        ("height BETWEEN {179.5, 180.5}", true), ("name BETWEEN[c] {'a', 'b'}", true), ("name BETWEEN {'a', 'b'}", false),
        // non-null operand against nil
        ("height == nil", false), ("height != nil", true), ("height < nil", false), ("height >= nil", false),
        ("name BEGINSWITH nil", false), ("height BETWEEN {nil, 300}", false), ("name LIKE nil", false),
        ("name MATCHES nil", false), ("height IN {nil}", false), ("nil == height", false),
        // NOT, AND, OR, precedence, parentheses
        ("NOT height == 180", false), ("NOT NOT height == 180", true), ("!(height == 180)", false),
        ("height == 1 OR height == 180 AND name == 'Ann'", true), ("height == 180 OR height == 1 AND name == 'x'", true),
        ("(height == 180 OR height == 1) AND name == 'x'", false), ("height == 1 OR (height == 180 AND name == 'x')", false),
        ("NOT height == 1 AND name == 'Ann'", true), ("NOT (height == 180 AND name == 'x')", true),
        ("height == 180 && name == 'Ann' || FALSEPREDICATE", true), ("TRUEPREDICATE", true), ("FALSEPREDICATE", false),
        ("NOT FALSEPREDICATE AND TRUEPREDICATE", true), ("", true),
        // keywords in any case
        ("height == 180 and name beginswith 'A' or false == TRUE", true), ("not height between {1, 2}", true),
        ("name like[C] 'ANN' && active == yes", true), ("hired != Null", true),
    ]

    @Test(arguments: annCases)
    func againstAnn(format: String, expected: Bool) throws {
        #expect(try Fixture.eval(format) == expected)
    }

    /// Against an object whose optional attributes are all null: name "Bob", height, hired, nick null.
    static let nullCases: [(String, Bool)] = [
        ("height == nil", true), ("height == NULL", true), ("height != nil", false), ("nil == height", true),
        ("height == 180", false), ("height != 180", true), ("180 != height", true), ("height <> 180", true),
        ("height < 180", false), ("height <= 180", false), ("height > 180", false), ("height >= 180", false),
        ("180 > height", false), ("NOT height > 180", true), ("NOT height < 180", true), ("NOT (height != 180)", false),
        ("height BETWEEN {0, 300}", false), ("NOT height BETWEEN {0, 300}", true),
        ("height IN {180, 170}", false), ("height IN {180, nil}", false), ("height IN {nil}", false), ("NOT height IN {nil}", true), ("NOT height IN {180}", true),
        ("height IN {}", false),
        ("nick BEGINSWITH 'a'", false), ("nick ENDSWITH ''", false), ("nick CONTAINS ''", false),
        ("nick LIKE '*'", false), ("nick MATCHES '.*'", false), ("NOT nick LIKE '*'", true),
        ("nick ==[c] 'a'", false), ("nick !=[c] 'a'", true), ("nick ==[c] nil", true), ("nick <[c] 'a'", false),
        ("nick IN[c] {'a'}", false), ("nick IN[c] {'a', nil}", false), ("nick IN {'x', nil}", false), ("'abc' BEGINSWITH nick", false),
        ("hired < '2030-01-01T00:00:00Z'", false), ("hired > '1970-01-01T00:00:00Z'", false), ("hired == nil", true),
        ("nick == name", false), ("nick != name", true), ("name == nick", false), ("nick < name", false),
        ("height == height", true), ("height < height", false), ("height != height", false),
        ("nil == nil", true), ("nil != nil", false), ("nil < nil", false),
        ("height > 1 OR height == nil", true), ("height > 1 AND height == nil", false),
    ]

    @Test(arguments: nullCases)
    func againstNulls(format: String, expected: Bool) throws {
        #expect(try Fixture.eval(format, Fixture.nulls) == expected)
    }

    /// `[c]`, `[d]`, `[cd]` with non-ASCII text.
    static let foldingCases: [(String, String, Bool)] = [
        ("Crème Brûlée", "name == 'Crème Brûlée'", true), ("Crème Brûlée", "name == 'Creme Brulee'", false),
        ("Crème Brûlée", "name ==[d] 'Creme Brulee'", true), ("Crème Brûlée", "name ==[c] 'CRÈME BRÛLÉE'", true),
        ("Crème Brûlée", "name ==[c] 'CREME BRULEE'", false), ("Crème Brûlée", "name ==[cd] 'CREME BRULEE'", true),
        ("Crème Brûlée", "name ==[dc] 'creme brulee'", true), ("Crème Brûlée", "name !=[cd] 'creme brulee'", false),
        ("Crème Brûlée", "name BEGINSWITH[d] 'Cre'", true), ("Crème Brûlée", "name BEGINSWITH 'Cre'", false),
        ("Crème Brûlée", "name CONTAINS[cd] 'BRU'", true), ("Crème Brûlée", "name ENDSWITH[cd] 'LEE'", true),
        ("Crème Brûlée", "name LIKE[cd] 'creme*'", true), ("Crème Brûlée", "name LIKE[d] 'creme*'", false),
        ("Crème Brûlée", "name MATCHES[d] 'Creme.*'", true), ("Crème Brûlée", "name MATCHES[c] 'CRÈME.*'", true),
        ("Crème Brûlée", "name IN[cd] {'x', 'creme brulee'}", true), ("Cre\u{300}me", "name ==[d] 'Creme'", true),
        ("Cre\u{300}me", "name ==[d] 'Crème'", true), ("ΣΊΣΥΦΟΣ", "name ==[cd] 'σισυφος'", true),
        ("ΣΊΣΥΦΟΣ", "name ==[cd] 'σισυφoς'", false), ("ΣΊΣΥΦΟΣ", "name ==[cd] 'σίσυφος'", true),
        ("ΣΊΣΥΦΟΣ", "name ==[c] 'σισυφος'", false), ("Straße", "name ==[c] 'STRAßE'", true),
        ("Øre", "name ==[cd] 'ore'", false), ("Øre", "name ==[c] 'øRE'", true), ("İstanbul", "name BEGINSWITH[d] 'Is'", true),
        ("bob", "name <[c] 'C'", true), ("bob", "name < 'C'", false), ("bob", "name >[c] 'BOA'", true),
        ("bob", "name BETWEEN[c] {'BOA', 'BOC'}", true), ("ǅemal", "name BEGINSWITH[c] 'ǆ'", true),
        ("Ǆ", "name ==[c] 'ǆ'", true), ("ſ", "name ==[c] 'S'", true), ("\u{212A}", "name ==[c] 'k'", true),
    ]

    @Test(arguments: foldingCases)
    func folding(name: String, format: String, expected: Bool) throws {
        #expect(try Fixture.eval(format, Fixture.values(name: name)) == expected)
    }

    static let likeCases: [(String, String, Bool)] = [
        ("", "", true), ("", "a", false), ("*", "", true), ("*", "abc", true), ("?", "", false), ("?", "a", true),
        ("?", "ab", false), ("a*", "abc", true), ("a*", "bac", false), ("*c", "abc", true), ("*b*", "abc", true),
        ("a*c", "ac", true), ("a*c", "abcbc", true), ("a*c", "abcb", false), ("a?c", "abc", true), ("a?c", "ac", false),
        ("**a**", "bab", true), ("*a*b*c*", "xaybzc", true), ("*a*b*c*", "xaybz", false), ("*?", "", false),
        ("*?", "x", true), ("?*?", "x", false), ("\\*", "*", true), ("\\*", "a", false), ("a\\?", "a?", true),
        ("a\\?", "ab", false), ("a\\\\b", "a\\b", true), ("ab\\", "ab\\", true), ("é?", "éa", true), ("?", "🙂", true),
        ("?", "e\u{301}", false), ("??", "e\u{301}", true), ("Ann", "ann", false), ("*ss*", "mississippi", true),
        ("*issip*", "mississippi", true), ("m*i*i*i*", "mississippi", true), ("m*i*i*i*x", "mississippi", false),
    ]

    @Test(arguments: likeCases)
    func like(pattern: String, subject: String, expected: Bool) {
        #expect(LikePattern(pattern).matches(subject) == expected)
    }

    @Test func likeIsNotExponential() throws {
        let subject = String(repeating: "a", count: 20_000)
        let pattern = LikePattern("a*a*a*a*a*a*a*a*a*a*b")
        #expect(!pattern.matches(subject))
        #expect(try !Fixture.eval("name LIKE '*a*a*a*a*a*a*a*a*a*a*a*b'", Fixture.values(name: subject)))
        #expect(try Fixture.eval("name LIKE '*a*a*a*a*a*a*a*a*a*a*a'", Fixture.values(name: subject)))
    }

    @Test func likeEscapesThroughTheStringLiteral() throws {
        // The text `'a\\*'` is the string `a\*`: a literal star.
        #expect(try Fixture.eval("name LIKE 'a\\\\*'", Fixture.values(name: "a*")))
        #expect(try !Fixture.eval("name LIKE 'a\\\\*'", Fixture.values(name: "ab")))
    }

    @Test func matchesHasNoSubjectBound() throws {
        let long = Fixture.values(name: String(repeating: "a", count: 100_000))
        #expect(try Fixture.eval("name MATCHES 'a*'", long))
        #expect(try Fixture.eval("name LIKE 'a*'", long))
    }

    /// A linear-time matcher runs nested quantifiers; only constructs no such matcher can run are refused.
    @Test(arguments: ["(a+)?", "a+b*", "[(a+)+]", "\\(a+\\)+", "(abc)+", "x{2}", "(a{2})?", "(?:ab)+", "a{2,}", "\\p{L}+",
                      "(a)(b)*", "a|b|c", "\\Q(a+)+\\E", "[a-z]{1,3}(x)+", "(a+)+", "(a*)*", "(a|a)*", "((ab)*c)+",
                      "(x|y){2,5}", "(a+)*", "(?:a+)+", "((a)+)+", "(a+){2,}", "(a(b|c))+"])
    func acceptedPatterns(pattern: String) throws {
        #expect(RegexMatcher.refusal(of: pattern) == nil)
        _ = try RegexMatcher(pattern, options: [])
    }

    @Test(arguments: ["(a)\\1", "(?<n>a)\\k<n>", "(a+)?+x(b*)*", "(?>a|b)*", "(a|b)*+", "a(?=b)", "a(?!b)", "(?<=a)b"])
    func refusedPatterns(pattern: String) throws {
        guard case .refused = RegexMatcher.refusal(of: pattern) else {
            Issue.record("\(pattern) is not refused")
            return
        }
        let error = Fixture.error("name MATCHES \(PredicateOperand.quoted(pattern))")
        #expect(error?.message.contains("regular expression \(PredicateOperand.quoted(pattern)) is refused") == true,
                "\(String(describing: error))")
    }

    @Test func refusalMessages() throws {
        #expect(Fixture.error("name MATCHES '(a+)+'") == nil)
        #expect(Fixture.error("name MATCHES '(a)\\\\1'")?.message
            == "regular expression \"(a)\\\\1\" is refused: backreferences are not allowed")
        let long = String(repeating: "a", count: Limits.regexPatternBytesMax + 1)
        #expect(Fixture.error("name MATCHES '\(long)'")?.message.hasSuffix(
            "is refused: longer than \(Limits.regexPatternBytesMax) bytes") == true)
        #expect(Fixture.error("name MATCHES '\(String(repeating: "a", count: Limits.regexPatternBytesMax))'") == nil)
        #expect(Fixture.error("name MATCHES 'a(b'")?.message.hasPrefix("invalid regular expression \"a(b\": ") == true)
    }

    @Test func variables() throws {
        #expect(try Fixture.eval("height > $min", variables: ["min": .int(170)]))
        #expect(try Fixture.eval("height > $min", variables: ["min": .double(179.5)]))
        #expect(try !Fixture.eval("height > $min", variables: ["min": .int(180)]))
        #expect(try Fixture.eval("$min < height", variables: ["min": .int(170)]))
        #expect(try Fixture.eval("name IN {$a, $b}", variables: ["a": .string("x"), "b": .string("Ann")]))
        #expect(try Fixture.eval("height BETWEEN {$lo, $hi}", variables: ["lo": .int(100), "hi": .double(180)]))
        #expect(try Fixture.eval("hired == $d", variables: ["d": .string("2024-03-01T09:00:00Z")]))
        #expect(try Fixture.eval("hired == $d", variables: ["d": Fixture.date("2024-03-01T09:00:00Z")]))
        #expect(try Fixture.eval("height == $v", Fixture.nulls, variables: ["v": .null]))
        #expect(try !Fixture.eval("height < $v", variables: ["v": .null]))
        #expect(try Fixture.eval("name BEGINSWITH[c] $p", variables: ["p": .string("AN")]))
        #expect(try Fixture.eval("name LIKE $p", variables: ["p": .string("A?n")]))
        #expect(try Fixture.eval("name MATCHES $p", variables: ["p": .string("A.n")]))
        #expect(try Fixture.eval("id == $id", id: .string("e9"), variables: ["id": .string("e9")]))
        #expect(try Fixture.eval("$x == 1", variables: ["x": .int(1)]))
    }

    @Test func variableTypes() throws {
        let p = try ViewPredicate("height > $min AND $max >= salary AND name BEGINSWITH $p AND hired IN {$d, nil} "
                              + "AND nick LIKE $pattern AND id == $id AND height BETWEEN {$lo, 3} AND $x == 1")
        #expect(try p.variableTypes(for: Fixture.employee) == [
            "min": .int, "max": .double, "p": .string, "d": .date, "pattern": .string, "id": .string, "lo": .int,
        ])
        #expect(try ViewPredicate("id == $id").variableTypes(for: Fixture.item) == ["id": .int])
    }

    @Test func matchesFromManyTasksAtOnce() async throws {
        let p = try ViewPredicate("name MATCHES '[A-Z][a-z]+( [A-Z][a-z]+)?' AND name LIKE[c] '*e*'").compiled(for: Fixture.employee)
        let names = ["Annabel Lee", "annabel", "Bob", "Eve Smith", "X"]
        let expected = names.map { p.evaluate(Fixture.values(name: $0), id: .string("e1")) }
        #expect(expected == [true, false, false, true, false])
        let results = await withTaskGroup(of: [Bool].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var last: [Bool] = []
                    for _ in 0..<200 { last = names.map { p.evaluate(Fixture.values(name: $0), id: .string("e1")) } }
                    return last
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func intIDs() throws {
        let p = { (f: String) throws in try ViewPredicate(f).compiled(for: Fixture.item) }
        let obj: ObjectValues = ["like": .int(3), "weight": .null]
        #expect(try p("id == 7").evaluate(obj, id: .int(7)))
        #expect(try p("id > 6.5").evaluate(obj, id: .int(7)))
        #expect(try !p("id < 7").evaluate(obj, id: .int(7)))
        #expect(try p("id IN {1, 7}").evaluate(obj, id: .int(7)))
        #expect(try p("#like == 3 AND weight == nil").evaluate(obj, id: .int(7)))
        #expect(try p("#like > 2").referencedKeys == ["like"])
    }

    @Test func longInListsUseAHashSet() throws {
        let ints = (0..<100).map { String($0 * 3) }.joined(separator: ", ")
        let p = try ViewPredicate("height IN {\(ints)}").compiled(for: Fixture.employee)
        guard case .inSet = p.root else { Issue.record("expected a hash set"); return }
        #expect(p.evaluate(Fixture.values(height: 180), id: .string("e1")))
        #expect(!p.evaluate(Fixture.values(height: 181), id: .string("e1")))
        #expect(!p.evaluate(Fixture.nulls, id: .string("e1")))
        let withNil = try ViewPredicate("height IN {nil, \(ints)}").compiled(for: Fixture.employee)
        #expect(!withNil.evaluate(Fixture.nulls, id: .string("e1")))  // null is in no list (DESIGN §4)
        #expect(withNil.evaluate(Fixture.values(height: 180), id: .string("e1")))
        let doubles = (0..<100).map { "\($0 * 3).0" }.joined(separator: ", ")
        let d = try ViewPredicate("height IN {\(doubles)}").compiled(for: Fixture.employee)
        #expect(d.evaluate(Fixture.values(height: 180), id: .string("e1")))
        let names = (0..<40).map { "'N\($0)'" }.joined(separator: ", ")
        let c = try ViewPredicate("name IN[c] {\(names)}").compiled(for: Fixture.employee)
        #expect(c.evaluate(Fixture.values(name: "n17"), id: .string("e1")))
        #expect(!c.evaluate(Fixture.values(name: "n41"), id: .string("e1")))
    }

    @Test func referencedKeys() throws {
        func keys(_ f: String) throws -> Set<String> { try ViewPredicate(f).compiled(for: Fixture.employee).referencedKeys }
        #expect(try keys("height > 1 AND name == 'a' OR id == 'x'") == ["height", "name", "id"])
        #expect(try keys("TRUEPREDICATE") == [])
        #expect(try keys("NOT hired BETWEEN {'2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'}") == ["hired"])
        #expect(try keys("salary < height") == ["salary", "height"])
    }

    @Test func constantsFold() throws {
        func c(_ f: String) throws -> CompiledPredicate { try ViewPredicate(f).compiled(for: Fixture.employee) }
        #expect(try c("1 == 1").isAlwaysTrue)
        #expect(try c("1 < 1.5").isAlwaysTrue)
        #expect(try c("'a' == 'b'").isAlwaysFalse)
        #expect(try c("FALSEPREDICATE OR 2 > 1").isAlwaysTrue)
        #expect(try c("nil == nil AND TRUEPREDICATE").isAlwaysTrue)
        #expect(try c("height > 1 AND FALSEPREDICATE").isAlwaysFalse)
        #expect(try c("height > 1 OR TRUEPREDICATE").isAlwaysTrue)
        #expect(try c("NOT (3 IN {1, 2})").isAlwaysTrue)
        #expect(try ViewPredicate("hired == $d").compiled(for: Fixture.employee,
                                                       variables: ["d": .string("2024-03-01T09:00:00Z")])
            .evaluate(Fixture.ann, id: .string("e1")))
        #expect(try !c("height > 1").isAlwaysTrue)
        #expect(try c("'abc' LIKE 'a*'").isAlwaysTrue)
        #expect(try c("'abc' MATCHES 'a.c'").isAlwaysTrue)
    }
}
