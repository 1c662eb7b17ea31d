@_spi(Engine) import ViewLogModel
/// Recursive-descent parser of the predicate language:
///
/// ```
/// predicate  := or END
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | primary
/// primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison := operand op modifiers? operand
///             | operand "IN" modifiers? "{" [element ("," element)*] "}"
///             | operand "BETWEEN" "{" element "," element "}"
/// op         := == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES
/// modifiers  := "[" ("c" | "d" | "cd" | "dc") "]"
/// operand    := key | element
/// element    := number | string | TRUE | FALSE | YES | NO | NIL | NULL | $variable
/// ```
///
/// Nesting (parentheses and `NOT`) deeper than ``Limits/predicateDepthMax`` is an error, so parsing never
/// overflows the stack; so is a tree deeper than that.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private var nesting = 0

    private init(tokens: [PredicateToken]) {
        self.tokens = tokens
    }

    /// Parses a whole predicate.
    static func parse(_ text: String) throws(QueryError) -> PredicateExpression {
        var parser = PredicateParser(tokens: try PredicateLexer.tokens(text))
        let (e, _) = try parser.parseOr()
        let t = parser.current
        guard t.kind == .end else { throw QueryError(.querySyntax, "expected AND, OR or end of input, found \(t.found)", column: t.column) }
        return e
    }

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func checkDepth(_ depth: Int, at column: Int) throws(QueryError) {
        guard depth <= Limits.predicateDepthMax else {
            throw QueryError(.queryTooComplex, "predicate nested deeper than \(Limits.predicateDepthMax) levels", column: column)
        }
    }

    /// Each parse function returns the tree and its depth (as ``PredicateExpression/depth(upTo:)`` counts it).
    private mutating func parseOr() throws(QueryError) -> (PredicateExpression, Int) {
        let column = current.column
        let (first, firstDepth) = try parseAnd()
        guard current.kind == .keyword(.OR) || current.kind == .bars else { return (first, firstDepth) }
        var operands = [first]
        var depth = firstDepth
        while current.kind == .keyword(.OR) || current.kind == .bars {
            advance()
            let (e, d) = try parseAnd()
            operands.append(e)
            depth = max(depth, d)
        }
        try checkDepth(depth + 1, at: column)
        return (.or(operands), depth + 1)
    }

    private mutating func parseAnd() throws(QueryError) -> (PredicateExpression, Int) {
        let column = current.column
        let (first, firstDepth) = try parseNot()
        guard current.kind == .keyword(.AND) || current.kind == .ampersands else { return (first, firstDepth) }
        var operands = [first]
        var depth = firstDepth
        while current.kind == .keyword(.AND) || current.kind == .ampersands {
            advance()
            let (e, d) = try parseNot()
            operands.append(e)
            depth = max(depth, d)
        }
        try checkDepth(depth + 1, at: column)
        return (.and(operands), depth + 1)
    }

    private mutating func parseNot() throws(QueryError) -> (PredicateExpression, Int) {
        guard current.kind == .keyword(.NOT) || current.kind == .bang else { return try parsePrimary() }
        let column = current.column
        nesting += 1
        defer { nesting -= 1 }
        try checkDepth(nesting, at: column)
        advance()
        let (e, d) = try parseNot()
        try checkDepth(d + 1, at: column)
        return (.not(e), d + 1)
    }

    private mutating func parsePrimary() throws(QueryError) -> (PredicateExpression, Int) {
        let t = current
        switch t.kind {
        case .leftParen:
            nesting += 1
            defer { nesting -= 1 }
            try checkDepth(nesting, at: t.column)
            advance()
            let result = try parseOr()
            guard current.kind == .rightParen else {
                throw QueryError(.querySyntax, "expected ')' to close the '(' at column \(t.column), found \(current.found)",
                                 column: current.column)
            }
            advance()
            return result
        case .keyword(.TRUEPREDICATE):
            advance()
            return (.constant(true), 1)
        case .keyword(.FALSEPREDICATE):
            advance()
            return (.constant(false), 1)
        case .keyword(.ANY), .keyword(.SOME), .keyword(.ALL), .keyword(.NONE):
            // `ANY employees.height > 190`: the comparison holds for some (every, no) member of a to-many path. It is
            // read as a key of its own — its canonical text — whose value for a row is the quantifier's result.
            advance()
            let quantifier = t.kind == .keyword(.SOME) ? "ANY" : t.text.uppercased()
            let inner = try parseComparison()
            guard case .comparison(.key(let path), _, _, _) = inner, path.contains(".") else {
                throw QueryError(.querySyntax, "\(quantifier) needs a to-many key path on the left of its comparison (ANY employees.height > 190)",
                                 column: t.column)
            }
            return (.comparison(.key(quantifier + " " + inner.description), .equal, .value(.bool(true)), []), 1)
        default:
            return (try parseComparison(), 1)
        }
    }

    private mutating func parseComparison() throws(QueryError) -> PredicateExpression {
        let lhsToken = current
        guard let lhs = try operand() else {
            throw QueryError(.querySyntax, "expected a key, a value, '(', NOT, TRUEPREDICATE or FALSEPREDICATE, found \(lhsToken.found)",
                             column: lhsToken.column)
        }
        let opToken = current
        let op: ComparisonOperator
        switch opToken.kind {
        case .comparison(let c): op = c
        case .keyword(.BEGINSWITH): op = .beginsWith
        case .keyword(.ENDSWITH): op = .endsWith
        case .keyword(.CONTAINS): op = .contains
        case .keyword(.LIKE): op = .like
        case .keyword(.MATCHES): op = .matches
        case .keyword(.IN): op = .in
        case .keyword(.BETWEEN): op = .between
        default:
            throw QueryError(.querySyntax, "expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, "
                             + "IN or BETWEEN) after \(lhsToken.found), found \(opToken.found)", column: opToken.column)
        }
        advance()
        let options = try modifiers()
        switch op {
        case .in:
            let elements = try list(after: opToken)
            return .comparison(lhs, .in, .list(elements), options)
        case .between:
            let braceToken = current
            let elements = try list(after: opToken)
            guard elements.count == 2 else {
                throw QueryError(.querySyntax, "expected two values {lo, hi} after BETWEEN, found \(elements.count)",
                                 column: braceToken.column)
            }
            return .comparison(lhs, .between, .list(elements), options)
        default:
            let rhsToken = current
            guard let rhs = try operand() else {
                throw QueryError(.querySyntax, "expected a key or a value after \(opToken.found), found \(rhsToken.found)",
                                 column: rhsToken.column)
            }
            return .comparison(lhs, op, rhs, options)
        }
    }

    /// `[c]`, `[d]`, `[cd]` (or `[dc]`), if present.
    private mutating func modifiers() throws(QueryError) -> ComparisonOptions {
        guard current.kind == .leftBracket else { return [] }
        advance()
        let t = current
        guard case .identifier(let letters) = t.kind else {
            throw QueryError(.querySyntax, "expected a modifier c, d or cd after '[', found \(t.found)", column: t.column)
        }
        var options: ComparisonOptions = []
        for (offset, letter) in letters.unicodeScalars.enumerated() {
            let option: ComparisonOptions
            switch letter {
            case "c", "C": option = .caseInsensitive
            case "d", "D": option = .diacriticInsensitive
            default:
                throw QueryError(.querySyntax, "unknown modifier '\(Character(letter))' (expected [c], [d] or [cd])",
                                 column: t.column + offset)
            }
            guard !options.contains(option) else {
                throw QueryError(.querySyntax, "modifier '\(Character(letter))' given twice", column: t.column + offset)
            }
            options.insert(option)
        }
        advance()
        guard current.kind == .rightBracket else {
            throw QueryError(.querySyntax, "expected ']' after the modifiers, found \(current.found)", column: current.column)
        }
        advance()
        return options
    }

    /// `{element, …}` after `IN` or `BETWEEN`.
    private mutating func list(after opToken: PredicateToken) throws(QueryError) -> [PredicateOperand] {
        guard current.kind == .leftBrace else {
            throw QueryError(.querySyntax, "expected '{' after \(opToken.found), found \(current.found)", column: current.column)
        }
        let open = current
        advance()
        var elements: [PredicateOperand] = []
        if current.kind == .rightBrace {
            advance()
            return elements
        }
        while true {
            let t = current
            guard let e = try element() else {
                throw QueryError(.querySyntax, "expected a value in the list of \(opToken.found), found \(t.found)", column: t.column)
            }
            elements.append(e)
            if current.kind == .comma {
                advance()
                continue
            }
            guard current.kind == .rightBrace else {
                throw QueryError(.querySyntax, "expected ',' or '}' to close the '{' at column \(open.column), found \(current.found)",
                                 column: current.column)
            }
            advance()
            return elements
        }
    }

    /// A key or an element; `nil` (consuming nothing) when the current token is neither.
    private mutating func operand() throws(QueryError) -> PredicateOperand? {
        if case .identifier(let name) = current.kind {
            advance()
            return .key(name)
        }
        return try element()
    }

    /// A literal or a variable; `nil` (consuming nothing) when the current token is neither.
    private mutating func element() throws(QueryError) -> PredicateOperand? {
        let result: PredicateOperand
        switch current.kind {
        case .integer(let i): result = .value(.int(i))
        case .double(let d): result = .value(.double(d))
        case .string(let s): result = .value(.string(s))
        case .keyword(.TRUE), .keyword(.YES): result = .value(.bool(true))
        case .keyword(.FALSE), .keyword(.NO): result = .value(.bool(false))
        case .keyword(.NIL), .keyword(.NULL): result = .value(.null)
        case .variable(let v): result = .variable(v)
        default: return nil
        }
        advance()
        return result
    }
}
