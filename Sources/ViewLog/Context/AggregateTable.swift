/// Per-target state of the to-many inverses a view over key paths reads (DESIGN §10 "Cost": "an aggregate is kept per
/// target"): for each object its inverse names, how many members it has, the members' values of each aggregated
/// attribute, and how many members each quantifier's comparison holds for. A member's change updates it from the
/// member's values before and after (the move's delta), so a view reads no member to show `employees.@count`,
/// `@sum`, `@avg`, `@min`, `@max` or `ANY/ALL/NONE`.
///
/// Cost per member change: O(1) (a few dictionary updates, and for a double an exact addition: ``ExactSum``). Reading
/// `@count`, a `@sum` or `@avg`, or a quantifier is O(1) — a double sum is the exact sum's nearest double, the same
/// number however the members came (floating-point addition is not associative); `@min`/`@max` scan the target's
/// distinct values.
final class AggregateTable {
    /// The members' values of one attribute, for one target.
    struct Bag {
        var counts: [Value: Int] = [:]
        var nonNull = 0
        var intSum: Int64 = 0
        /// The exact sum of the double values (made at the first).
        var doubleSum: ExactSum?

        mutating func add(_ v: Value, _ sign: Int) {
            guard !v.isNull else { return }
            nonNull += sign
            switch v {
            case .int(let i): intSum = sign > 0 ? intSum &+ i : intSum &- i
            case .double(let d):
                if doubleSum == nil { doubleSum = ExactSum() }
                doubleSum!.add(d, Int64(sign))
            default: break
            }
            let n = (counts[v] ?? 0) + sign
            counts[v] = n == 0 ? nil : n
        }
    }

    let inverse: InverseRelationship
    /// The aggregated attributes (`nil`: none, `@count` only) and the quantifiers' member predicates, by their key.
    let attributes: [String]
    let quantifiers: [(text: String, member: CompiledPredicate?)]
    private(set) var members: [ObjectID: Int] = [:]
    private var bags: [String: [ObjectID: Bag]] = [:]
    private var matching: [String: [ObjectID: Int]] = [:]

    init(inverse: InverseRelationship, attributes: [String], quantifiers: [(text: String, member: CompiledPredicate?)]) {
        self.inverse = inverse
        self.attributes = attributes
        self.quantifiers = quantifiers
    }

    /// Adds (`sign` 1) or removes (`sign` -1) a member whose values are `values` (nothing for `nil` or a member that
    /// names no object).
    func add(_ values: ObjectValues?, _ sign: Int) {
        guard let values, let v = values[inverse.relationship], let target = ObjectID(v) else { return }
        let n = (members[target] ?? 0) + sign
        members[target] = n == 0 ? nil : n
        for a in attributes { bags[a, default: [:]][target, default: Bag()].add(values[a] ?? .null, sign) }
        for (text, member) in quantifiers where member?.evaluate(values, id: .int(0)) == true {
            let m = (matching[text]?[target] ?? 0) + sign
            matching[text, default: [:]][target] = m == 0 ? nil : m
        }
    }

    /// The value of `function` of `attribute` over the members of `target`, by §10's rules.
    func aggregate(_ function: KeyPath.Aggregate, of attribute: String?, type: AttributeType, target: ObjectID) -> Value {
        let bag = attribute.flatMap { bags[$0]?[target] } ?? Bag()
        return function.value(type: type, members: Int64(members[target] ?? 0), nonNull: Int64(bag.nonNull), intSum: bag.intSum,
                              intValued: bag.doubleSum == nil,
                              doubleSum: { bag.doubleSum?.value ?? 0 },
                              least: { bag.counts.keys.min { Value.compare($0, $1) < 0 } ?? .null },
                              greatest: { bag.counts.keys.max { Value.compare($0, $1) < 0 } ?? .null })
    }

    /// Whether quantifier `q` holds over the members of `target`.
    func quantifier(_ q: QuantifiedPath, target: ObjectID) -> Bool {
        q.holds(members: Int64(members[target] ?? 0), matching: Int64(matching[q.text]?[target] ?? 0))
    }
}
