import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite("Predicate errors")
struct PredicateErrorTests {
    static let operatorList = "(==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN or BETWEEN)"
    static let primaryList = "a key, a value, '(', NOT, TRUEPREDICATE or FALSEPREDICATE"

    /// Syntax errors: text, message, 1-based column.
    static let syntaxCases: [(String, String, Int)] = [
        ("name ==", "expected a key or a value after '==', found end of input", 8),
        ("name 3", "expected an operator \(operatorList) after 'name', found '3'", 6),
        ("name 'a'", "expected an operator \(operatorList) after 'name', found 'a'", 6),
        ("(name == 'a'", "expected ')' to close the '(' at column 1, found end of input", 13),
        ("a == 1 AND (b == 2 OR (c == 3)", "expected ')' to close the '(' at column 12, found end of input", 31),
        ("name == 'a' extra", "expected AND, OR or end of input, found 'extra'", 13),
        ("name == 'a')", "expected AND, OR or end of input, found ')'", 12),
        ("TRUEPREDICATE == 1", "expected AND, OR or end of input, found '=='", 15),
        ("name == 'abc", "unterminated string: expected a closing ' before end of input", 9),
        ("name == \"abc", "unterminated string: expected a closing \" before end of input", 9),
        ("name == 'abc\\", "unterminated string: expected a closing ' before end of input", 9),
        ("name == @", "unexpected character '@'", 9),
        ("name == 'é' é", "unexpected character 'é'", 13),
        ("x == \u{1}", "unexpected character U+0001", 6),
        ("name - 1", "unexpected character '-'", 6),
        ("name == 'a\\qb'", "unknown escape '\\q' in a string (expected \\\\ \\\" \\' \\n \\r \\t \\0 or \\uXXXX)", 11),
        ("x == '\\u12'", "expected 4 hex digits after '\\u', found '''", 11),
        ("x == '\\uD800'", "'\\uD800' is not a Unicode scalar", 7),
        ("height == 99999999999999999999", "integer 99999999999999999999 does not fit in 64 bits", 11),
        ("height == -9223372036854775809", "integer -9223372036854775809 does not fit in 64 bits", 11),
        ("name == 1e999", "number 1e999 is out of range", 9),
        ("name ==[x] 'a'", "unknown modifier 'x' (expected [c], [d] or [cd])", 9),
        ("name ==[cx] 'a'", "unknown modifier 'x' (expected [c], [d] or [cd])", 10),
        ("name ==[cc] 'a'", "modifier 'c' given twice", 10),
        ("name ==[] 'a'", "expected a modifier c, d or cd after '[', found ']'", 9),
        ("name ==[c 'a'", "expected ']' after the modifiers, found 'a'", 11),
        ("height IN 3", "expected '{' after 'IN', found '3'", 11),
        ("height IN $list", "expected '{' after 'IN', found '$list'", 11),
        ("height IN {1, 2", "expected ',' or '}' to close the '{' at column 11, found end of input", 16),
        ("height IN {1 2}", "expected ',' or '}' to close the '{' at column 11, found '2'", 14),
        ("height IN {1,}", "expected a value in the list of 'IN', found '}'", 14),
        ("height IN {height}", "expected a value in the list of 'IN', found 'height'", 12),
        ("height BETWEEN {1}", "expected two values {lo, hi} after BETWEEN, found 1", 16),
        ("height BETWEEN {1, 2, 3}", "expected two values {lo, hi} after BETWEEN, found 3", 16),
        ("height BETWEEN {}", "expected two values {lo, hi} after BETWEEN, found 0", 16),
        ("height BETWEEN 1", "expected '{' after 'BETWEEN', found '1'", 16),
        ("name & 'a'", "expected '&&', found a single '&'", 6),
        ("a == 1 | b == 2", "expected '||', found a single '|'", 8),
        ("$ == 1", "expected a variable name after '$', found ' '", 2),
        ("$1 == 2", "expected a variable name after '$', found '1'", 2),
        ("# == 1", "expected a key after '#', found ' '", 2),
        ("== 1", "expected \(primaryList), found '=='", 1),
        (")", "expected \(primaryList), found ')'", 1),
        ("NOT", "expected \(primaryList), found end of input", 4),
        ("(", "expected \(primaryList), found end of input", 2),
        ("name == 'a' AND", "expected \(primaryList), found end of input", 16),
        ("name == 'a' OR OR b == 1", "expected \(primaryList), found 'OR'", 16),
        ("name == 'a' and not", "expected \(primaryList), found end of input", 20),
        ("name BEGINSWITH", "expected a key or a value after 'BEGINSWITH', found end of input", 16),
        ("name like", "expected a key or a value after 'like', found end of input", 10),
        ("name == 'héllo' AND x", "expected an operator \(operatorList) after 'x', found end of input", 22),
        ("🙂 == 1", "unexpected character '🙂'", 1),
    ]

    @Test(arguments: syntaxCases)
    func syntax(text: String, message: String, column: Int) {
        // Numbers that do not fit are literals at fault, not syntax.
        let code: ErrorCode = message.hasSuffix("does not fit in 64 bits") || message.hasSuffix("is out of range")
            ? .invalidLiteral : .querySyntax
        #expect(throws: QueryError(code, message, column: column)) { try ViewPredicate(text) }
    }

    @Test func descriptionShowsTheColumn() {
        #expect(QueryError(.querySyntax, "expected X, found Y", column: 7).description == "expected X, found Y (at column 7)")
        #expect(QueryError(.unknownKey, "unknown attribute 'x' of entity 'E'").description == "unknown attribute 'x' of entity 'E'")
    }

    /// The code a type error's message calls for.
    static func code(ofTypeError message: String) -> ErrorCode {
        if message.hasPrefix("unknown attribute") { return .unknownKey }
        if message.hasPrefix("the pattern of") { return .invalidOperand }
        if message.hasPrefix("no value for variable") { return .missingVariable }
        if message.hasPrefix("invalid regular expression") { return .invalidRegex }
        return .queryTypeMismatch
    }

    /// Type errors: text, variables, message. They have no column.
    static let typeCases: [(String, [String: Value], String)] = [
        ("heigth > 1", [:], "unknown attribute 'heigth' of entity 'Employee'"),
        ("Name == 'a'", [:], "unknown attribute 'Name' of entity 'Employee'"),
        ("1 < heigth", [:], "unknown attribute 'heigth' of entity 'Employee'"),
        ("height == 'abc'", [:], "type mismatch: 'height' of Employee is int, compared with string \"abc\""),
        ("'abc' == height", [:], "type mismatch: 'height' of Employee is int, compared with string \"abc\""),
        ("name > 3", [:], "type mismatch: 'name' of Employee is string, compared with int 3"),
        ("salary == TRUE", [:], "type mismatch: 'salary' of Employee is double, compared with bool true"),
        ("active == 1", [:], "type mismatch: 'active' of Employee is bool, compared with int 1"),
        ("active < 'x'", [:], "type mismatch: 'active' of Employee is bool, compared with string \"x\""),
        ("id == 3", [:], "type mismatch: 'id' of Employee is string, compared with int 3"),
        ("hired > 'yesterday'", [:],
         "type mismatch: 'hired' of Employee is date, and string \"yesterday\" is not an ISO-8601 date"),
        ("hired > '2024-02-30T00:00:00Z'", [:],
         "type mismatch: 'hired' of Employee is date, and string \"2024-02-30T00:00:00Z\" is not an ISO-8601 date"),
        ("hired > 3", [:], "type mismatch: 'hired' of Employee is date, compared with int 3"),
        ("name ==[c] height", [:], "type mismatch: 'name' of Employee is string, compared with 'height' of Employee (int)"),
        ("salary < name", [:], "type mismatch: 'salary' of Employee is double, compared with 'name' of Employee (string)"),
        ("1 == 'a'", [:], "type mismatch: cannot compare int 1 with string \"a\""),
        ("height IN {1, 'a'}", [:], "type mismatch: 'height' of Employee is int, compared with string \"a\""),
        ("height BETWEEN {1, 'x'}", [:], "type mismatch: 'height' of Employee is int, compared with string \"x\""),
        ("height BEGINSWITH 'a'", [:], "BEGINSWITH needs strings, but 'height' of Employee is int"),
        ("name ENDSWITH 3", [:], "ENDSWITH needs strings, but got int 3"),
        ("'a' CONTAINS 3", [:], "CONTAINS needs strings, but got int 3"),
        ("hired LIKE '*'", [:], "LIKE needs strings, but 'hired' of Employee is date"),
        ("name MATCHES 3", [:], "MATCHES needs strings, but got int 3"),
        ("height ==[c] 3", [:], "modifier [c] needs strings, but 'height' of Employee is int"),
        ("height IN[cd] {1}", [:], "modifier [cd] needs strings, but 'height' of Employee is int"),
        ("salary BETWEEN[d] {1, 2}", [:], "modifier [d] needs strings, but 'salary' of Employee is double"),
        ("name LIKE name", [:], "the pattern of LIKE must be a string value or a variable, not the key 'name'"),
        ("name MATCHES nick", [:], "the pattern of MATCHES must be a string value or a variable, not the key 'nick'"),
        ("height > $min", [:], "no value for variable $min"),
        ("height IN {1, $b}", [:], "no value for variable $b"),
        ("height > $min", ["min": .string("x")], "type mismatch: 'height' of Employee is int, compared with $min (string \"x\")"),
        ("hired > $d", ["d": .string("soon")],
         "type mismatch: 'hired' of Employee is date, and $d (string \"soon\") is not an ISO-8601 date"),
        ("name MATCHES $p", ["p": .int(1)], "MATCHES needs strings, but got $p (int 1)"),
        ("name MATCHES 'a(b'", [:], "invalid regular expression \"a(b\": expected ')'"),
    ]

    @Test(arguments: typeCases)
    func typeErrors(text: String, variables: [String: Value], message: String) {
        let error = Fixture.error(text, variables: variables)
        #expect(error?.description == message)
        #expect(error?.code == Self.code(ofTypeError: message))
        if message.hasPrefix("unknown attribute") {
            #expect(error?.entity == "Employee" && error?.key.map { message.contains("'\($0)'") } == true)
        }
    }

    @Test func typeErrorsOfIntIDs() {
        #expect(Fixture.error("id == 'x'", entity: Fixture.item)
            == QueryError(.queryTypeMismatch, "type mismatch: 'id' of Item is int, compared with string \"x\""))
        #expect(Fixture.error("like == 1", entity: Fixture.item)
            == QueryError(.querySyntax, "expected \(Self.primaryList), found 'like'", column: 1))
    }

    @Test func depthLimit() throws {
        let max = Limits.predicateDepthMax
        let tooDeepParens = String(repeating: "(", count: max + 1) + "a == 1" + String(repeating: ")", count: max + 1)
        #expect(throws: QueryError(.queryTooComplex, "predicate nested deeper than \(max) levels", column: max + 1)) {
            try ViewPredicate(tooDeepParens)
        }
        let tooManyNots = String(repeating: "NOT ", count: max + 10) + "a == 1"
        #expect(throws: QueryError(.queryTooComplex, "predicate nested deeper than \(max) levels", column: max * 4 + 1)) {
            try ViewPredicate(tooManyNots)
        }
        // The tree's depth counts too: each parenthesised AND/OR adds a level.
        var nested = "a == 1"
        for _ in 0..<max { nested = "(\(nested) AND b == 1)" }
        #expect(throws: QueryError.self) { try ViewPredicate(nested) }
        // Never a stack overflow, whatever the input.
        #expect(throws: QueryError.self) { try ViewPredicate(String(repeating: "(", count: 60_000)) }
        #expect(throws: QueryError.self) { try ViewPredicate(String(repeating: "!", count: 60_000) + "a == 1") }
        #expect(throws: QueryError(.queryTooComplex, "predicate longer than \(Limits.predicateBytesMax) bytes")) {
            try ViewPredicate(String(repeating: " ", count: Limits.predicateBytesMax + 1))
        }
    }

    @Test func builtExpressionsAreBoundedToo() throws {
        var e = PredicateExpression.compare(.key("height"), .greater, .value(.int(1)))
        for _ in 0..<(Limits.predicateDepthMax + 5) { e = .not(e) }
        #expect(throws: QueryError(.queryTooComplex, "predicate nested deeper than \(Limits.predicateDepthMax) levels")) {
            try ViewPredicate(e)
        }
        #expect(throws: QueryError(.invalidLiteral, "a double in a predicate must be finite")) {
            try ViewPredicate(.compare(.key("salary"), .in, .list([.value(.double(.nan))])))
        }
        let listInWrongPlace = try ViewPredicate(.compare(.key("height"), .equal, .list([.value(.int(1))])))
        #expect(throws: QueryError(.invalidOperand, "a list {…} is allowed only after IN and BETWEEN, not with ==")) {
            try listInWrongPlace.compiled(for: Fixture.employee)
        }
        let inWithoutList = try ViewPredicate(.compare(.key("height"), .in, .value(.int(1))))
        #expect(throws: QueryError(.invalidOperand, "IN needs a list {…} on the right")) { try inWithoutList.compiled(for: Fixture.employee) }
        let keyInList = try ViewPredicate(.compare(.key("height"), .in, .list([.key("salary")])))
        #expect(throws: QueryError(.invalidOperand, "the list of IN holds values and variables, not the key 'salary'")) {
            try keyInList.compiled(for: Fixture.employee)
        }
    }

    @Test func validateAcceptsUnboundVariables() throws {
        let p = try ViewPredicate("height > $min AND name BEGINSWITH $p AND hired < $d")
        try p.validate(for: Fixture.employee)
        #expect(throws: QueryError(.missingVariable, "no value for variable $min")) { try p.compiled(for: Fixture.employee) }
        #expect(throws: QueryError(.unknownKey, "unknown attribute 'x' of entity 'Employee'", entity: "Employee", key: "x")) {
            try ViewPredicate("x > $min").validate(for: Fixture.employee)
        }
        #expect(throws: QueryError(.queryTypeMismatch, "type mismatch: 'height' of Employee is int, compared with $min (string \"a\")")) {
            try p.validate(for: Fixture.employee, variables: ["min": .string("a")])
        }
    }
}
