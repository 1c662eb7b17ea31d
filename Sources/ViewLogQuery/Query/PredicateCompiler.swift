@_spi(Engine) import ViewLogModel
/// Type-checks a ``PredicateExpression`` against an entity and turns it into a ``PredicateNode`` tree.
///
/// Rules: keys are attributes of the entity or `id`; a literal or variable compared with a key must
/// be of the key's type (`int` and `double` mix; a date takes an ISO-8601 string; `NIL` goes with anything);
/// string operators and `[c]`/`[d]` need strings; `LIKE` and `MATCHES` need a value or a variable as pattern.
/// A comparison of two constants is evaluated now.
struct PredicateCompiler {
    package let entity: EntityDescription
    let variables: [String: Value]
    /// When `false` (schema validation, before the variables are known), a variable without a value is
    /// accepted and only the rest is checked. The tree made then must not be evaluated.
    let requiresVariables: Bool
    private(set) var referencedKeys: Set<String> = []
    /// The type each unbound variable is compared with (strings for string operators), when it is compared with
    /// a key or a string operator.
    private(set) var variableTypes: [String: AttributeType] = [:]

    init(entity: EntityDescription, variables: [String: Value], requiresVariables: Bool) {
        self.entity = entity
        self.variables = variables
        self.requiresVariables = requiresVariables
    }

    /// One side of a comparison, resolved.
    private enum Side {
        case key(PredicateTerm, name: String, type: AttributeType)
        /// A literal or a bound variable; `origin` names it in messages (`$h`, or nil for a literal).
        case constant(Value, origin: String?)
        /// A variable without a value (only when `requiresVariables` is false).
        case unbound(String)

        var isKey: Bool {
            if case .key = self { return true }
            return false
        }
    }

    mutating func compile(_ e: PredicateExpression) throws(QueryError) -> PredicateNode {
        guard e.depth(upTo: Limits.predicateDepthMax + 1) <= Limits.predicateDepthMax else {
            throw QueryError(.queryTooComplex, "predicate nested deeper than \(Limits.predicateDepthMax) levels")
        }
        return try node(e)
    }

    private mutating func node(_ e: PredicateExpression) throws(QueryError) -> PredicateNode {
        switch e {
        case .constant(let b):
            return .constant(b)
        case .not(let inner):
            let n = try node(inner)
            if case .constant(let b) = n { return .constant(!b) }
            return .not(n)
        case .and(let es):
            var ns: [PredicateNode] = []
            ns.reserveCapacity(es.count)
            for inner in es {
                let n = try node(inner)
                if case .constant(true) = n { continue }
                ns.append(n)
            }
            if ns.contains(where: { if case .constant(false) = $0 { return true } else { return false } }) {
                return .constant(false)
            }
            return ns.isEmpty ? .constant(true) : (ns.count == 1 ? ns[0] : .and(ns))
        case .or(let es):
            var ns: [PredicateNode] = []
            ns.reserveCapacity(es.count)
            for inner in es {
                let n = try node(inner)
                if case .constant(false) = n { continue }
                ns.append(n)
            }
            if ns.contains(where: { if case .constant(true) = $0 { return true } else { return false } }) {
                return .constant(true)
            }
            return ns.isEmpty ? .constant(false) : (ns.count == 1 ? ns[0] : .or(ns))
        case let .comparison(lhs, op, rhs, options):
            let n = try comparison(lhs, op, rhs, options)
            return PredicateCompiler.folded(n)
        }
    }

    /// A node that reads no object is evaluated now.
    private static func folded(_ n: PredicateNode) -> PredicateNode {
        func isConstant(_ t: PredicateTerm) -> Bool { t.isConstant }
        switch n {
        case let .compare(l, _, r), let .foldedCompare(l, _, r, _), let .substring(l, _, r, _):
            guard isConstant(l), isConstant(r) else { return n }
        case let .like(t, _, _), let .matches(t, _), let .inList(t, _, _), let .inSet(t, _, _):
            guard isConstant(t) else { return n }
        case .constant, .not, .and, .or:
            return n
        }
        return .constant(n.evaluate([:], .int(0)))
    }

    // MARK: - Operands

    private mutating func resolve(_ operand: PredicateOperand, of op: ComparisonOperator) throws(QueryError) -> Side {
        switch operand {
        case .key(let name):
            if name == "id" {
                referencedKeys.insert("id")
                return .key(.id, name: "id", type: entity.idType == .int ? .int : .string)
            }
            guard let attribute = entity.attribute(named: name) else {
                throw QueryError(.unknownKey, "unknown attribute '\(name)' of entity '\(entity.name)'", entity: entity.name, key: name)
            }
            referencedKeys.insert(name)
            return .key(.attribute(name), name: name, type: attribute.type)
        case .value(let v):
            return .constant(v, origin: nil)
        case .variable(let name):
            if let v = variables[name] { return .constant(v, origin: "$" + name) }
            if requiresVariables { throw QueryError(.missingVariable, "no value for variable $\(name)") }
            return .unbound(name)
        case .list:
            throw QueryError(.invalidOperand, "a list {…} is allowed only after IN and BETWEEN, not with \(op.rawValue)")
        }
    }

    private func describe(_ side: Side) -> String {
        switch side {
        case let .key(_, name, type): return "'\(name)' of \(entity.name) (\(type.rawValue))"
        case let .constant(v, origin): return PredicateCompiler.describe(v, origin: origin)
        case .unbound(let name): return "$\(name)"
        }
    }

    static func describe(_ v: Value, origin: String?) -> String {
        let text: String
        switch v {
        case .null: text = "null"
        case .string(let s): text = "string \(PredicateOperand.quoted(s))"
        case .date(let t): text = "date \(t.iso8601)"
        case .set: text = "set \(v)"
        default: text = "\(v.type!.rawValue) \(v)"
        }
        guard let origin else { return text }
        return "\(origin) (\(text))"
    }

    /// `v` as a value comparable with attribute `name` of `type`: numbers mix, dates read ISO-8601 strings.
    private func coerce(_ v: Value, origin: String?, to type: AttributeType, key name: String)
        throws(QueryError) -> Value {
        switch (type, v) {
        case (_, .null): return .null
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double): return v
        case (.string, .string), (.bool, .bool), (.date, .date): return v
        case (.date, .string(let s)):
            guard let t = Timestamp(iso8601: s) else {
                throw QueryError(.queryTypeMismatch, "type mismatch: '\(name)' of \(entity.name) is date, and "
                                 + "\(PredicateCompiler.describe(v, origin: origin)) \(Timestamp.problem(iso8601: s))")
            }
            return .date(t)
        default:
            throw QueryError(.queryTypeMismatch, "type mismatch: '\(name)' of \(entity.name) is \(type.rawValue), compared with "
                             + PredicateCompiler.describe(v, origin: origin))
        }
    }

    private static func isNumeric(_ t: AttributeType) -> Bool { t == .int || t == .double }

    /// Checks that `a` and `b` can be compared and gives their terms (constants converted to the key's type).
    private mutating func unify(_ a: Side, _ b: Side) throws(QueryError) -> (PredicateTerm, PredicateTerm) {
        switch (a, b) {
        case let (.key(ta, na, typeA), .key(tb, _, typeB)):
            guard typeA == typeB || (PredicateCompiler.isNumeric(typeA) && PredicateCompiler.isNumeric(typeB)) else {
                throw QueryError(.queryTypeMismatch, "type mismatch: '\(na)' of \(entity.name) is \(typeA.rawValue), compared with \(describe(b))")
            }
            return (ta, tb)
        case let (.key(t, name, type), .constant(v, origin)):
            return (t, .constant(try coerce(v, origin: origin, to: type, key: name)))
        case let (.constant(v, origin), .key(t, name, type)):
            return (.constant(try coerce(v, origin: origin, to: type, key: name)), t)
        case let (.constant(x, ox), .constant(y, oy)):
            guard let tx = x.type, let ty = y.type else { return (.constant(x), .constant(y)) }  // null: any type
            if tx == ty || (PredicateCompiler.isNumeric(tx) && PredicateCompiler.isNumeric(ty)) {
                return (.constant(x), .constant(y))
            }
            // A string next to a date is read as a date.
            if tx == .date, case .string(let s) = y, let t = Timestamp(iso8601: s) { return (.constant(x), .constant(.date(t))) }
            if ty == .date, case .string(let s) = x, let t = Timestamp(iso8601: s) { return (.constant(.date(t)), .constant(y)) }
            throw QueryError(.queryTypeMismatch, "type mismatch: cannot compare \(PredicateCompiler.describe(x, origin: ox)) with "
                             + PredicateCompiler.describe(y, origin: oy))
        case let (.key(_, _, type), .unbound(name)), let (.unbound(name), .key(_, _, type)):
            if variableTypes[name] == nil { variableTypes[name] = type }
            return (term(of: a), term(of: b))
        case (.unbound, _), (_, .unbound):
            return (term(of: a), term(of: b))
        }
    }

    /// The term that reads `side` (an unbound variable reads as `null`; that tree is never evaluated).
    private func term(of side: Side) -> PredicateTerm {
        switch side {
        case .key(let t, _, _): return t
        case .constant(let v, _): return .constant(v)
        case .unbound: return .constant(.null)
        }
    }

    // MARK: - Comparisons

    private mutating func comparison(_ lhs: PredicateOperand, _ op: ComparisonOperator, _ rhs: PredicateOperand,
                                     _ options: ComparisonOptions) throws(QueryError) -> PredicateNode {
        switch op {
        case .in:
            return try membership(lhs, rhs, options)
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2 else {
                throw QueryError(.invalidOperand, "BETWEEN needs a list of two values {lo, hi}")
            }
            // lo <= x AND x <= hi: false when x, lo or hi is null.
            return .and([try comparison(lhs, .greaterOrEqual, bounds[0], options),
                         try comparison(lhs, .lessOrEqual, bounds[1], options)])
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            var a = try resolve(lhs, of: op)
            var b = try resolve(rhs, of: op)
            var op = op
            if !a.isKey, b.isKey, let s = op.swapped {  // `170 < height` is `height > 170`
                swap(&a, &b)
                op = s
            }
            let (l, r) = try unify(a, b)
            guard !options.isEmpty else { return .compare(l, op, r) }
            try requireStrings(a, b, for: "modifier \(PredicateCompiler.modifierText(options))")
            let folding = StringFolding(options)
            return .foldedCompare(PredicateCompiler.fold(l, folding), op, PredicateCompiler.fold(r, folding), folding)
        case .beginsWith, .endsWith, .contains:
            let a = try resolve(lhs, of: op)
            let b = try resolve(rhs, of: op)
            try requireStrings(a, b, for: op.rawValue)
            let (l, r) = try unify(a, b)
            let folding = StringFolding(options)
            return .substring(PredicateCompiler.fold(l, folding), op, PredicateCompiler.fold(r, folding), folding)
        case .like, .matches:
            let a = try resolve(lhs, of: op)
            let b = try resolve(rhs, of: op)
            try requireStrings(a, b, for: op.rawValue)
            let l = term(of: a)
            let pattern: String
            switch b {
            case .key(_, let name, _):
                throw QueryError(.invalidOperand, "the pattern of \(op.rawValue) must be a string value or a variable, not the key '\(name)'")
            case .unbound:
                return .constant(false)
            case .constant(.null, _):
                return .constant(false)  // a null operand: false
            case .constant(let v, _):
                guard case .string(let s) = v else { return .constant(false) }
                pattern = s
            }
            if op == .matches {
                return .matches(l, try RegexMatcher(pattern, options: options))
            }
            let folding = StringFolding(options)
            return .like(PredicateCompiler.fold(l, folding), LikePattern(folding.fold(pattern)), folding)
        }
    }

    /// `x IN {a, b, …}`: whether `x` equals one of the elements. As for every operator other than `==`/`!=`
    ///, a null operand makes it false: a null `x` is in no list, also not in `{NIL}`, and `NIL`
    /// elements match nothing (they are dropped).
    private mutating func membership(_ lhs: PredicateOperand, _ rhs: PredicateOperand, _ options: ComparisonOptions)
        throws(QueryError) -> PredicateNode {
        guard case .list(let elements) = rhs else { throw QueryError(.invalidOperand, "IN needs a list {…} on the right") }
        let a = try resolve(lhs, of: .in)
        let folding = StringFolding(options)
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            if case .key(let name) = element {
                throw QueryError(.invalidOperand, "the list of IN holds values and variables, not the key '\(name)'")
            }
            let b = try resolve(element, of: .in)
            if !options.isEmpty {
                try requireStrings(a, b, for: "modifier \(PredicateCompiler.modifierText(options))")
            }
            let (_, r) = try unify(a, b)
            guard case .constant(var v) = PredicateCompiler.fold(r, folding) else { continue }
            if v.isNull { continue }
            if case .key(_, _, let type) = a { v = PredicateCompiler.exact(v, as: type) }
            values.append(v)
        }
        let l = term(of: a)
        let term = PredicateCompiler.fold(l, folding)
        if values.count > Limits.inListScanCountMax, case .key(_, _, let type) = a,
           values.allSatisfy({ $0.type == type }) {
            return .inSet(term, Set(values), folding)
        }
        return .inList(term, values, folding)
    }

    /// A number converted to the attribute's own storage type when that loses nothing, so that hash lookups
    /// find it (`2.0` for an int attribute is `2`).
    private static func exact(_ v: Value, as type: AttributeType) -> Value {
        switch (type, v) {
        case (.int, .double(let d)):
            if let i = Int64(exactly: d) { return .int(i) }
        case (.double, .int(let i)):
            let d = Double(i)
            if Int64(exactly: d) == i { return .double(d) }
        default: break
        }
        return v
    }

    private mutating func requireStrings(_ a: Side, _ b: Side, for what: String) throws(QueryError) {
        for side in [a, b] {
            switch side {
            case .unbound(let name):
                if variableTypes[name] == nil { variableTypes[name] = .string }
            case let .key(_, name, type) where type != .string:
                throw QueryError(.queryTypeMismatch, "\(what) needs strings, but '\(name)' of \(entity.name) is \(type.rawValue)")
            case let .constant(v, origin):
                if v.isNull { continue }
                if case .string = v { continue }
                throw QueryError(.queryTypeMismatch, "\(what) needs strings, but got \(PredicateCompiler.describe(v, origin: origin))")
            default: continue
            }
        }
    }

    private static func fold(_ t: PredicateTerm, _ folding: StringFolding) -> PredicateTerm {
        guard !folding.isIdentity, case .constant(.string(let s)) = t else { return t }
        return .constant(.string(folding.fold(s)))
    }

    static func modifierText(_ options: ComparisonOptions) -> String {
        "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}
