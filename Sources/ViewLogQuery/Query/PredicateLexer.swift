@_spi(Engine) import ViewLogModel
/// Reserved words of the predicate language; matched case-insensitively. A key spelled like one is written with
/// a `#` prefix (`#like`), as in NSPredicate.
enum PredicateKeyword: String, CaseIterable {
    case AND, OR, NOT
    case BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN, BETWEEN
    case TRUEPREDICATE, FALSEPREDICATE
    case TRUE, FALSE, YES, NO, NIL, NULL
    /// Quantifiers over a to-many key path (DESIGN §10).
    case ANY, SOME, ALL, NONE
}

/// One token of a predicate's text, with the 1-based column (in Unicode scalars) where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(PredicateKeyword)
        case integer(Int64)
        case double(Double)
        case string(String)
        case variable(String)
        /// `== = != <> < <= =< > >= =>`.
        case comparison(ComparisonOperator)
        /// `&&`, read as `AND`.
        case ampersands
        /// `||`, read as `OR`.
        case bars
        /// `!`, read as `NOT`.
        case bang
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket, comma
        case end
    }

    var kind: Kind
    var column: Int
    /// The token's text as written (for error messages).
    var text: String

    /// How an error message names this token: `'text'` or `end of input`.
    var found: String {
        if kind == .end { return "end of input" }
        if case .string = kind, text.unicodeScalars.count <= 24 { return text }  // already quoted
        let shown = text.unicodeScalars.count > 24 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(24))) + "…" : text
        return "'\(shown)'"
    }
}

/// Splits a predicate's text into tokens. Columns count Unicode scalars from 1.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var i = 0

    package init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Every token of the text, ending with `.end`.
    static func tokens(_ text: String) throws(QueryError) -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var result: [PredicateToken] = []
        while true {
            let t = try lexer.next()
            result.append(t)
            if t.kind == .end { return result }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        i + offset < scalars.count ? scalars[i + offset] : nil
    }

    private static func isIdentifierStart(_ u: Unicode.Scalar) -> Bool {
        (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || u == "_"
    }

    private static func isDigit(_ u: Unicode.Scalar?) -> Bool {
        guard let u else { return false }
        return u >= "0" && u <= "9"
    }

    private static func isIdentifierPart(_ u: Unicode.Scalar) -> Bool {
        isIdentifierStart(u) || isDigit(u)
    }

    private func text(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<i]))
    }

    /// A name, or a key path of names joined by `.` (`department.name`): a `.` continues it only when a name
    /// follows at once.
    private mutating func identifier() -> String {
        let start = i
        while true {  // bounded: each round consumes a name
            while let u = peek(), PredicateLexer.isIdentifierPart(u) { i += 1 }
            // `.@count`, `.@sum.salary`: an aggregate's name starts with '@'.
            guard peek() == ".", let next = peek(1),
                  PredicateLexer.isIdentifierStart(next) || (next == "@" && peek(2).map(PredicateLexer.isIdentifierStart) == true) else { break }
            i += next == "@" ? 2 : 1
        }
        return text(from: start)
    }

    mutating func next() throws(QueryError) -> PredicateToken {
        while let u = peek(), u == " " || u == "\t" || u == "\n" || u == "\r" { i += 1 }
        let start = i
        let column = i + 1
        func token(_ kind: PredicateToken.Kind, length: Int) -> PredicateToken {
            i = start + length
            return PredicateToken(kind: kind, column: column, text: text(from: start))
        }
        guard let u = peek() else { return PredicateToken(kind: .end, column: column, text: "") }
        switch u {
        case "(": return token(.leftParen, length: 1)
        case ")": return token(.rightParen, length: 1)
        case "{": return token(.leftBrace, length: 1)
        case "}": return token(.rightBrace, length: 1)
        case "[": return token(.leftBracket, length: 1)
        case "]": return token(.rightBracket, length: 1)
        case ",": return token(.comma, length: 1)
        case "=":
            switch peek(1) {
            case "=": return token(.comparison(.equal), length: 2)
            case "<": return token(.comparison(.lessOrEqual), length: 2)
            case ">": return token(.comparison(.greaterOrEqual), length: 2)
            default: return token(.comparison(.equal), length: 1)
            }
        case "!":
            if peek(1) == "=" { return token(.comparison(.notEqual), length: 2) }
            return token(.bang, length: 1)
        case "<":
            switch peek(1) {
            case "=": return token(.comparison(.lessOrEqual), length: 2)
            case ">": return token(.comparison(.notEqual), length: 2)
            default: return token(.comparison(.less), length: 1)
            }
        case ">":
            if peek(1) == "=" { return token(.comparison(.greaterOrEqual), length: 2) }
            return token(.comparison(.greater), length: 1)
        case "&":
            guard peek(1) == "&" else { throw QueryError(.querySyntax, "expected '&&', found a single '&'", column: column) }
            return token(.ampersands, length: 2)
        case "|":
            guard peek(1) == "|" else { throw QueryError(.querySyntax, "expected '||', found a single '|'", column: column) }
            return token(.bars, length: 2)
        case "\"", "'":
            return try string(quote: u)
        case "$":
            i += 1
            guard let v = peek(), PredicateLexer.isIdentifierStart(v) else {
                throw QueryError(.querySyntax, "expected a variable name after '$', found \(describe(peek()))", column: column + 1)
            }
            let name = identifier()
            return PredicateToken(kind: .variable(name), column: column, text: text(from: start))
        case "#":
            i += 1
            guard let v = peek(), PredicateLexer.isIdentifierStart(v) else {
                throw QueryError(.querySyntax, "expected a key after '#', found \(describe(peek()))", column: column + 1)
            }
            let name = identifier()
            return PredicateToken(kind: .identifier(name), column: column, text: text(from: start))
        default:
            if PredicateLexer.isIdentifierStart(u) {
                let name = identifier()
                if let k = PredicateKeyword(rawValue: name.uppercased()) {
                    return PredicateToken(kind: .keyword(k), column: column, text: name)
                }
                return PredicateToken(kind: .identifier(name), column: column, text: name)
            }
            if PredicateLexer.isDigit(u) || ((u == "-" || u == "+" || u == ".") && startsNumber(after: u)) {
                return try number()
            }
            throw QueryError(.querySyntax, "unexpected character \(describe(u))", column: column)
        }
    }

    private func startsNumber(after sign: Unicode.Scalar) -> Bool {
        if sign == "." { return PredicateLexer.isDigit(peek(1)) }
        return PredicateLexer.isDigit(peek(1)) || (peek(1) == "." && PredicateLexer.isDigit(peek(2)))
    }

    private func describe(_ u: Unicode.Scalar?) -> String {
        guard let u else { return "end of input" }
        if u.value < 0x20 || u.value == 0x7F {
            let hex = String(u.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return "'\(Character(u))'"
    }

    /// `[+-]digits[.digits][(e|E)[+-]digits]`, or `[+-].digits…`. Integers must fit in 64 bits.
    private mutating func number() throws(QueryError) -> PredicateToken {
        let start = i
        let column = i + 1
        if peek() == "-" || peek() == "+" { i += 1 }
        var isInteger = true
        while PredicateLexer.isDigit(peek()) { i += 1 }
        if peek() == ".", PredicateLexer.isDigit(peek(1)) {
            isInteger = false
            i += 1
            while PredicateLexer.isDigit(peek()) { i += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var j = 1
            if peek(1) == "+" || peek(1) == "-" { j = 2 }
            if PredicateLexer.isDigit(peek(j)) {
                isInteger = false
                i += j
                while PredicateLexer.isDigit(peek()) { i += 1 }
            }
        }
        let t = text(from: start)
        if isInteger {
            guard let v = Int64(t.hasPrefix("+") ? String(t.dropFirst()) : t) else {
                throw QueryError(.invalidLiteral, "integer \(t) does not fit in 64 bits", column: column)
            }
            return PredicateToken(kind: .integer(v), column: column, text: t)
        }
        guard let d = Double(t), d.isFinite else {
            throw QueryError(.invalidLiteral, "number \(t) is out of range", column: column)
        }
        return PredicateToken(kind: .double(d), column: column, text: t)
    }

    /// A string in `"` or `'` with the escapes `\\ \" \' \n \r \t \0 \uXXXX`.
    private mutating func string(quote: Unicode.Scalar) throws(QueryError) -> PredicateToken {
        let start = i
        let column = i + 1
        i += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let u = peek() else {
                throw QueryError(.querySyntax, "unterminated string: expected a closing \(quote) before end of input", column: column)
            }
            if u == quote {
                i += 1
                return PredicateToken(kind: .string(String(value)), column: column, text: text(from: start))
            }
            if u != "\\" {
                value.append(u)
                i += 1
                continue
            }
            let escapeColumn = i + 1
            guard let e = peek(1) else {
                throw QueryError(.querySyntax, "unterminated string: expected a closing \(quote) before end of input", column: column)
            }
            i += 2
            switch e {
            case "\\", "\"", "'": value.append(e)
            case "n": value.append("\n")
            case "r": value.append("\r")
            case "t": value.append("\t")
            case "0": value.append("\0")
            case "u":
                var code: UInt32 = 0
                for _ in 0..<4 {
                    guard let h = peek(), h.isASCII, let digit = UInt32(String(Character(h)), radix: 16) else {
                        throw QueryError(.querySyntax, "expected 4 hex digits after '\\u', found \(describe(peek()))", column: i + 1)
                    }
                    code = code * 16 + digit
                    i += 1
                }
                guard let scalar = Unicode.Scalar(code) else {
                    throw QueryError(.querySyntax, "'\\u\(String(code, radix: 16, uppercase: true))' is not a Unicode scalar",
                                     column: escapeColumn)
                }
                value.append(scalar)
            default:
                throw QueryError(.querySyntax, "unknown escape '\\\(Character(e))' in a string (expected \\\\ \\\" \\' \\n \\r \\t \\0 or \\uXXXX)",
                                 column: escapeColumn)
            }
        }
    }
}
