@_spi(Engine) import ViewLogModel
/// The typed syntax tree of a predicate, as the parser makes it or as code builds it.
///
/// A tree is not yet bound to an entity: keys are names, literals are values as written (a date literal is
/// still a string), variables are unresolved. ``ViewPredicate/compiled(for:variables:)`` type-checks it.
public indirect enum PredicateExpression: Sendable, Hashable {
    /// `TRUEPREDICATE` (`true`) or `FALSEPREDICATE` (`false`).
    case constant(Bool)
    /// `NOT e`: true exactly when `e` is false.
    case not(PredicateExpression)
    /// `a AND b AND …`: every operand is true (an empty list is true).
    case and([PredicateExpression])
    /// `a OR b OR …`: some operand is true (an empty list is false).
    case or([PredicateExpression])
    /// `lhs op[options] rhs`. For ``ComparisonOperator/in`` the right side is a ``PredicateOperand/list(_:)``
    /// of any length, for ``ComparisonOperator/between`` a list of exactly two operands `{lo, hi}`.
    case comparison(PredicateOperand, ComparisonOperator, PredicateOperand, ComparisonOptions)

    /// `lhs op rhs` without modifiers.
    public static func compare(_ lhs: PredicateOperand, _ op: ComparisonOperator, _ rhs: PredicateOperand)
        -> PredicateExpression {
        .comparison(lhs, op, rhs, [])
    }

    /// Nesting depth: a comparison or constant is 1; `NOT`, `AND` and `OR` add one level.
    /// Stops counting past `limit` (so it never walks further down an over-deep tree than that).
    func depth(upTo limit: Int) -> Int {
        guard limit > 0 else { return 1 }
        switch self {
        case .constant, .comparison: return 1
        case .not(let e): return 1 + e.depth(upTo: limit - 1)
        case .and(let es), .or(let es):
            var d = 0
            for e in es {
                d = max(d, e.depth(upTo: limit - 1))
                if d >= limit { break }
            }
            return 1 + d
        }
    }
}

/// One side of a comparison.
public enum PredicateOperand: Sendable, Hashable {
    /// An attribute of the entity, or `id` for the object's id.
    case key(String)
    /// A literal: string, integer, double, boolean, `NIL`, or a date (written in text as an ISO-8601 string).
    case value(Value)
    /// `$name`, bound to a value when the predicate is compiled.
    case variable(String)
    /// `{a, b, …}`: the right side of `IN` and `BETWEEN`. Elements are values or variables.
    case list([PredicateOperand])
}

/// The operator of a comparison.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `==` (also `=`).
    case equal = "=="
    /// `!=` (also `<>`).
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=` (also `=<`).
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=` (also `=>`).
    case greaterOrEqual = ">="
    /// `BEGINSWITH`: the left string starts with the right one.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: the left string ends with the right one.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: the right string occurs in the left one.
    case contains = "CONTAINS"
    /// `LIKE`: the left string matches the right pattern (`*` any run of characters, `?` one character).
    case like = "LIKE"
    /// `MATCHES`: the whole left string matches the right regular expression.
    case matches = "MATCHES"
    /// `IN {…}`: the left value equals one of the list's elements.
    case `in` = "IN"
    /// `BETWEEN {lo, hi}`: `lo <= left <= hi`.
    case between = "BETWEEN"

    /// Whether this is one of `== != < <= > >=`.
    var isOrdering: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return true
        default: return false
        }
    }

    /// Whether this operator takes two strings (`BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES`).
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }

    /// The operator with its operands swapped: `a < b` ⇔ `b > a`. `nil` for operators that are not symmetric
    /// in that way (string operators, `IN`, `BETWEEN`).
    var swapped: ComparisonOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }
}

/// The modifiers of a string comparison: `[c]`, `[d]`, `[cd]`.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// The options as bits: 1 is `[c]`, 2 is `[d]`.
    public let rawValue: UInt8

    /// Makes options from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: compare after simple case folding of each Unicode scalar.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: compare after canonical decomposition with the nonspacing marks dropped (`é` → `e`).
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}
