@_spi(Engine) import ViewLogModel
/// A predicate bound to an entity, ready to evaluate objects.
///
/// Made by ``ViewPredicate/compiled(for:variables:)``: keys are resolved, literals and variables converted to the
/// attribute's type, constant strings folded for `[c]`/`[d]`, `LIKE` patterns and regular expressions compiled.
/// Evaluating `==`, `!=`, `<`, `<=`, `>`, `>=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS` without modifiers, `IN` and
/// `BETWEEN` does not allocate.
public struct CompiledPredicate: Sendable {
    /// The predicate it was compiled from.
    public let predicate: ViewPredicate
    /// Attribute names the predicate reads (`id` included when it reads the id): an update that sets none of
    /// them cannot change membership.
    public let referencedKeys: Set<String>
    let root: PredicateNode

    init(predicate: ViewPredicate, root: PredicateNode, referencedKeys: Set<String>) {
        self.predicate = predicate
        self.root = root
        self.referencedKeys = referencedKeys
    }

    /// Whether the object with `id` and `values` matches. An attribute missing from `values` reads as `null`.
    public func evaluate(_ values: ObjectValues, id: ObjectID) -> Bool {
        root.evaluate(values, id)
    }

    /// Whether the object with `id` and `values` matches, its values read from any ``AttributeValues``.
    @inline(__always)
    package func evaluate<V: AttributeValues>(_ values: V, id: ObjectID) -> Bool {
        root.evaluate(values, id)
    }

    /// Whether the object with `id` and the values a fetch decoded matches: the evaluator specialized here, in its
    /// own module, for the fetches of the layers above (a generic call across modules would read each value through a
    /// witness table, ~8 % of an initial fetch).
    package func evaluate(_ values: FetchedValues, id: ObjectID) -> Bool {
        root.evaluate(values, id)
    }

    /// Whether the predicate is the constant `true` (after folding constant comparisons): every object matches.
    public var isAlwaysTrue: Bool {
        if case .constant(true) = root { return true }
        return false
    }

    /// Whether the predicate is the constant `false`: no object matches.
    public var isAlwaysFalse: Bool {
        if case .constant(false) = root { return true }
        return false
    }
}

extension CompiledPredicate {
    /// The names of the attributes the predicate reads (not `id`): an object missing any other attribute
    /// evaluates the same, so a fetch may decode only these.
    var attributeNames: Set<String> {
        var names = Set<String>()
        root.collectAttributeNames(into: &names)
        return names
    }
}

extension PredicateNode {
    /// Adds the attributes this node's terms read to `names`. Recursion is bounded by the tree's depth
    /// (at most ``Limits/predicateDepthMax`` + 1).
    func collectAttributeNames(into names: inout Set<String>) {
        func add(_ term: PredicateTerm) {
            if case .attribute(let name) = term { names.insert(name) }
        }
        switch self {
        case .constant: break
        case .not(let n): n.collectAttributeNames(into: &names)
        case .and(let ns), .or(let ns): for n in ns { n.collectAttributeNames(into: &names) }
        case let .compare(l, _, r), let .foldedCompare(l, _, r, _), let .substring(l, _, r, _):
            add(l)
            add(r)
        case let .like(t, _, _), let .matches(t, _), let .inList(t, _, _), let .inSet(t, _, _): add(t)
        }
    }
}

/// Where a compiled comparison reads a value.
enum PredicateTerm: Sendable {
    case attribute(String)
    case id
    /// A literal or variable, already converted to the type it is compared with (and folded, under `[c]`/`[d]`).
    case constant(Value)

    @inline(__always)
    package func value<V: AttributeValues>(_ values: V, _ id: ObjectID) -> Value {
        switch self {
        case .attribute(let name): return values.value(of: name) ?? .null
        case .id: return id.value
        case .constant(let v): return v
        }
    }

    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }

    /// The value, folded unless it is a constant (constants are folded when compiled).
    @inline(__always)
    func foldedValue<V: AttributeValues>(_ values: V, _ id: ObjectID, _ folding: StringFolding) -> Value {
        let v = value(values, id)
        guard !isConstant, case .string(let s) = v else { return v }
        return .string(folding.fold(s))
    }
}

/// The evaluator tree of a ``CompiledPredicate``. Its depth is at most ``Limits/predicateDepthMax`` + 1.
indirect enum PredicateNode: Sendable {
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    /// `== != < <= > >=` by ``Value/compare(_:_:)``.
    case compare(PredicateTerm, ComparisonOperator, PredicateTerm)
    /// `== != < <= > >=` on strings under `[c]`/`[d]`.
    case foldedCompare(PredicateTerm, ComparisonOperator, PredicateTerm, StringFolding)
    /// `BEGINSWITH ENDSWITH CONTAINS`, by UTF-8 bytes (so by code point) after folding.
    case substring(PredicateTerm, ComparisonOperator, PredicateTerm, StringFolding)
    case like(PredicateTerm, LikePattern, StringFolding)
    case matches(PredicateTerm, RegexMatcher)
    /// `IN` with a short list, scanned.
    case inList(PredicateTerm, [Value], StringFolding)
    /// `IN` with a long list of values of the key's own type (never `null`: a null operand of `IN` is false).
    case inSet(PredicateTerm, Set<Value>, StringFolding)

    package func evaluate<V: AttributeValues>(_ values: V, _ id: ObjectID) -> Bool {
        switch self {
        case .constant(let b):
            return b
        case .not(let n):
            return !n.evaluate(values, id)
        case .and(let ns):
            // Index loops: an array iterator allocates in unoptimised builds.
            var i = 0
            while i < ns.count {
                if !ns[i].evaluate(values, id) { return false }
                i += 1
            }
            return true
        case .or(let ns):
            var i = 0
            while i < ns.count {
                if ns[i].evaluate(values, id) { return true }
                i += 1
            }
            return false
        case let .compare(l, op, r):
            return PredicateNode.compare(l.value(values, id), op, r.value(values, id))
        case let .foldedCompare(l, op, r, folding):
            return PredicateNode.compare(l.foldedValue(values, id, folding), op, r.foldedValue(values, id, folding))
        case let .substring(l, op, r, folding):
            guard case .string(let a) = l.foldedValue(values, id, folding),
                  case .string(let b) = r.foldedValue(values, id, folding) else { return false }
            return PredicateNode.substring(a, op, b)
        case let .like(term, pattern, folding):
            guard case .string(let s) = term.foldedValue(values, id, folding) else { return false }
            return pattern.matches(s)
        case let .matches(term, regex):
            guard case .string(let s) = term.value(values, id) else { return false }
            return regex.matches(s)
        case let .inList(term, list, folding):
            let v = term.foldedValue(values, id, folding)
            if v.isNull { return false }  // only == and != see null (DESIGN §4)
            var i = 0
            while i < list.count {
                if Value.compare(v, list[i]) == 0 { return true }
                i += 1
            }
            return false
        case let .inSet(term, set, folding):
            let v = term.foldedValue(values, id, folding)
            return !v.isNull && set.contains(v)
        }
    }

    /// the query language null semantics: `==` and `!=` treat `null` as a value equal only to itself; every other
    /// comparison with a `null` operand is false.
    @inline(__always)
    static func compare(_ a: Value, _ op: ComparisonOperator, _ b: Value) -> Bool {
        switch op {
        case .equal: return Value.compare(a, b) == 0
        case .notEqual: return Value.compare(a, b) != 0
        default: break
        }
        if a.isNull || b.isNull { return false }
        let c = Value.compare(a, b)
        switch op {
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        default: return false
        }
    }

    static func substring(_ a: String, _ op: ComparisonOperator, _ b: String) -> Bool {
        switch op {
        case .beginsWith: return a.utf8.starts(with: b.utf8)
        case .endsWith: return a.utf8.reversed().starts(with: b.utf8.reversed())
        case .contains:
            let found = a.utf8.withContiguousStorageIfAvailable { ha in
                b.utf8.withContiguousStorageIfAvailable { nb in PredicateNode.contains(ha, nb) }
            }
            if let found = found ?? nil { return found }
            let ha = Array(a.utf8), nb = Array(b.utf8)  // strings without contiguous UTF-8 (rare)
            return ha.withUnsafeBufferPointer { h in nb.withUnsafeBufferPointer { PredicateNode.contains(h, $0) } }
        default: return false
        }
    }

    /// Whether `needle` occurs in `haystack` (bytes). A valid UTF-8 needle can only match at scalar boundaries.
    package static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = needle.count
        guard n > 0 else { return true }
        guard haystack.count >= n else { return false }
        let first = needle[0]
        var i = 0
        let last = haystack.count - n
        while i <= last {
            if haystack[i] == first {
                var k = 1
                while k < n, haystack[i + k] == needle[k] { k += 1 }
                if k == n { return true }
            }
            i += 1
        }
        return false
    }
}
