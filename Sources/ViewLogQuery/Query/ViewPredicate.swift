@_spi(Engine) import ViewLogModel
/// A predicate in the NSPredicate format-string language, parsed but not yet bound to an entity.
///
/// ```
/// height > 170 AND (name BEGINSWITH[cd] 'ann' OR hired == nil)
/// sectionName IN {'A', 'B'} && NOT active
/// salary BETWEEN {1000, 2000.5} || name MATCHES '[A-Z][a-z]+' || id == $id
/// ```
///
/// Operators: `== = != <> < <= =< > >= =>`, `BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES`, `IN {…}`,
/// `BETWEEN {lo, hi}` (inclusive), `AND OR NOT && || !`, parentheses, `TRUEPREDICATE FALSEPREDICATE`.
/// Modifiers `[c]` (case-insensitive), `[d]` (diacritic-insensitive), `[cd]` after a string operator.
/// Literals: integers, decimals, negative numbers, strings in `"` or `'` with the escapes
/// `\\ \" \' \n \r \t \0 \uXXXX`, `TRUE FALSE YES NO`, `NIL NULL`; `$name` is a variable. Keywords are
/// case-insensitive; a key spelled like a keyword is written `#key`. `AND` binds tighter than `OR`, `NOT` tightest.
/// A key may stand on either side (`170 < height`); `id` is the object's id. Dates are compared with ISO-8601
/// strings (`hired < '2026-01-01T00:00:00Z'`).
///
/// `null` is two-valued: `x == nil` and `x != nil` test for null; `x != v` is true when `x` is null; every other
/// comparison or string operator with a null operand is false, and `NOT` negates that. `IN` is a chain of `==`
/// (so `NIL` in the list matches null); `BETWEEN {lo, hi}` is `lo <= x AND x <= hi`.
///
/// `LIKE`: `*` matches any run of characters, `?` one character, by Unicode scalar; `\` quotes the next one.
/// `MATCHES` matches the whole string against a regular expression (Swift `Regex` / ICU syntax, by Unicode scalar)
/// with a linear-time matcher: the answer is right on every string, and evaluating it takes at most
/// `Limits/regexProgramSizeMax` steps per scalar, so no pattern can hang a view (`(a+)+` and `.*a.*a.*b` are fine).
/// Constructs that need backtracking are refused when the view is made, naming the pattern: backreferences
/// (`\1`), lookaround (`(?=…)`), atomic groups (`(?>…)`) and possessive quantifiers (`a*+`); so are patterns
/// longer than `Limits/regexPatternBytesMax` bytes or with counted repetitions too large to compile
/// (`(a{100}){100}`).
///
/// An empty (or all-blank) text is `TRUEPREDICATE`.
public struct ViewPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The text it was parsed from, or the canonical text of a built expression.
    public let format: String
    /// The syntax tree.
    public let expression: PredicateExpression

    /// Every object.
    public static let all = ViewPredicate(format: "TRUEPREDICATE", expression: .constant(true))
    /// No object.
    public static let none = ViewPredicate(format: "FALSEPREDICATE", expression: .constant(false))

    private init(format: String, expression: PredicateExpression) {
        self.format = format
        self.expression = expression
    }

    /// Parses `format`. Throws a ``QueryError`` with the 1-based column (in Unicode scalars) of a syntax error and
    /// a message saying what was expected and what was found.
    public init(_ format: String) throws(QueryError) {
        guard format.utf8.count <= Limits.predicateBytesMax else {
            throw QueryError(.queryTooComplex, "predicate longer than \(Limits.predicateBytesMax) bytes")
        }
        if format.utf8.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            self.init(format: format, expression: .constant(true))
            return
        }
        self.init(format: format, expression: try PredicateParser.parse(format))
    }

    /// A predicate built in code; its ``format`` is the expression's canonical text.
    /// Throws when the expression is nested deeper than `Limits/predicateDepthMax` or holds a double that is
    /// not finite (the language has no literal for it).
    public init(_ expression: PredicateExpression) throws(QueryError) {
        guard expression.depth(upTo: Limits.predicateDepthMax + 1) <= Limits.predicateDepthMax else {
            throw QueryError(.queryTooComplex, "predicate nested deeper than \(Limits.predicateDepthMax) levels")
        }
        func isFinite(_ o: PredicateOperand) -> Bool {
            switch o {
            case .value(.double(let d)): return d.isFinite
            case .list(let es): return es.allSatisfy(isFinite)
            default: return true
            }
        }
        func isFinite(_ e: PredicateExpression) -> Bool {
            switch e {
            case .constant: return true
            case .not(let inner): return isFinite(inner)
            case .and(let es), .or(let es): return es.allSatisfy(isFinite)
            case let .comparison(l, _, r, _): return isFinite(l) && isFinite(r)
            }
        }
        guard isFinite(expression) else { throw QueryError(.invalidLiteral, "a double in a predicate must be finite") }
        self.init(format: expression.description, expression: expression)
    }

    /// Type-checks the predicate against `entity` and substitutes `variables`, giving a fast evaluator.
    /// Throws for an unknown attribute, a type mismatch, a missing variable or a refused regular expression,
    /// naming it.
    public func compiled(for entity: EntityDescription, variables: [String: Value] = [:]) throws(QueryError) -> CompiledPredicate {
        var compiler = PredicateCompiler(entity: entity, variables: variables, requiresVariables: true)
        let root = try compiler.compile(expression)
        return CompiledPredicate(predicate: self, root: root, referencedKeys: compiler.referencedKeys)
    }

    /// Type-checks the predicate against `entity` as ``compiled(for:variables:)`` does, except that a variable
    /// without a value in `variables` is accepted (its value is checked when the predicate is compiled).
    public func validate(for entity: EntityDescription, variables: [String: Value] = [:]) throws(QueryError) {
        var compiler = PredicateCompiler(entity: entity, variables: variables, requiresVariables: false)
        _ = try compiler.compile(expression)
    }

    /// The type of each `$variable` (name without the `$`) as the predicate uses it against `entity`: the type
    /// of the attribute it is compared with, `string` for the operands of string operators. A variable compared
    /// only with other constants is absent. For reading variable values from text (the CLI's `--var`).
    public func variableTypes(for entity: EntityDescription) throws(QueryError) -> [String: AttributeType] {
        var compiler = PredicateCompiler(entity: entity, variables: [:], requiresVariables: false)
        _ = try compiler.compile(expression)
        return compiler.variableTypes
    }

    /// The names of the `$variables` the predicate uses (without the `$`).
    public var variableNames: Set<String> {
        var names = Set<String>()
        func collect(_ o: PredicateOperand) {
            switch o {
            case .variable(let v): names.insert(v)
            case .list(let es): es.forEach(collect)
            case .key, .value: break
            }
        }
        func walk(_ e: PredicateExpression) {
            switch e {
            case .constant: break
            case .not(let inner): walk(inner)
            case .and(let es), .or(let es): es.forEach(walk)
            case let .comparison(l, _, r, _):
                collect(l)
                collect(r)
            }
        }
        walk(expression)
        return names
    }

    public var description: String { format }
}
