@_spi(Engine) import ViewLogModel
/// Per-target state of the to-many inverses a view over key paths reads (DESIGN §10 "Cost": "an aggregate is kept per
/// target"): for each object its inverse names, its ``MemberCounts`` (the counts the stored state keeps too) and the
/// distinct values of each aggregated attribute (for `@min`/`@max`). A member's change updates it from the
/// member's values before and after (the move's delta), so a view reads no member to show `employees.@count`,
/// `@sum`, `@avg`, `@min`, `@max` or `ANY/ALL/NONE`.
///
/// Cost per member change: O(1) (a few dictionary updates, and for a double an exact addition: ``ExactSum``). Reading
/// `@count`, a `@sum` or `@avg`, or a quantifier is O(1) — a double sum is the exact sum's nearest double, the same
/// number however the members came (floating-point addition is not associative); `@min`/`@max` scan the target's
/// distinct values.
package final class AggregateTable {
    /// One target's counts, and per aggregated attribute how many members have each distinct value (for `@min` and
    /// `@max`).
    private struct Target {
        var counts: MemberCounts
        var values: [[Value: Int]]
    }

    package let inverse: InverseRelationship
    /// The aggregated attributes (`nil`: none, `@count` only) and the quantifiers' member predicates, by their key.
    package let attributes: [String]
    let quantifiers: [(text: String, member: CompiledPredicate?)]
    private let members: [CompiledPredicate?]
    /// A target's state before its first member.
    private let empty: Target
    private var targets: [ObjectID: Target] = [:]
    private static let noMembers = MemberCounts(exactSums: [], quantifiers: 0)

    init(inverse: InverseRelationship, attributes: [String], quantifiers: [(text: String, member: CompiledPredicate?)]) {
        self.inverse = inverse
        self.attributes = attributes
        self.quantifiers = quantifiers
        members = quantifiers.map(\.member)
        empty = Target(counts: MemberCounts(exactSums: attributes.map { _ in false }, quantifiers: quantifiers.count,
                                            sumsStartAtFirstDouble: true),
                       values: attributes.map { _ in [:] })
    }

    /// Adds (`sign` 1) or removes (`sign` -1) a member whose values are `values` (nothing for `nil` or a member that
    /// names no object).
    package func add(_ values: ObjectValues?, _ sign: Int) {
        guard let values, let v = values[inverse.relationship], let target = ObjectID(v) else { return }
        targets[target, default: empty].counts.add(values, attributes: attributes, quantifiers: members, sign: Int64(sign))
        for (a, name) in attributes.enumerated() {
            let x = values[name] ?? .null
            guard !x.isNull else { continue }
            let n = (targets[target]!.values[a][x] ?? 0) + sign
            targets[target]!.values[a][x] = n == 0 ? nil : n
        }
        if targets[target]!.counts.isEmpty { targets[target] = nil }
    }

    /// The value of `function` of `attribute` over the members of `target`, by §10's rules.
    func aggregate(_ function: KeyPath.Aggregate, of attribute: String?, type: AttributeType, target: ObjectID) -> Value {
        guard let t = targets[target] else {
            // No member: every count is zero (`@count` 0, a sum 0, `@avg`, `@min` and `@max` null).
            return Self.noMembers.value(function, attribute: nil, type: type, intValued: { _ in true },
                                        least: { _ in .null }, greatest: { _ in .null })
        }
        let a = attribute.flatMap { attributes.firstIndex(of: $0) }
        // A double attribute has its exact sum from its first value: without one, its values are ints.
        return t.counts.value(function, attribute: a, type: type, intValued: { t.counts.sum[$0] == nil },
                              least: { t.values[$0].keys.min { Value.compare($0, $1) < 0 } ?? .null },
                              greatest: { t.values[$0].keys.max { Value.compare($0, $1) < 0 } ?? .null })
    }

    /// Whether quantifier `q` holds over the members of `target`.
    func quantifier(_ q: QuantifiedPath, target: ObjectID) -> Bool {
        guard let t = targets[target], let i = quantifiers.firstIndex(where: { $0.text == q.text }) else {
            return q.holds(members: 0, matching: 0)
        }
        return t.counts.holds(q, i)
    }
}

extension AggregateTable {
    /// One table per inverse that `paths`' aggregates and `quantified` read, holding the attributes they aggregate and
    /// the quantifiers' member comparisons: what a view over these paths keeps per target.
    package static func tables(paths: [KeyPath], quantified: [QuantifiedPath]) -> [InverseRelationship: AggregateTable] {
        var attributes: [InverseRelationship: [String]] = [:]
        var quantifiers: [InverseRelationship: [(String, CompiledPredicate?)]] = [:]
        for p in paths {
            if case .aggregate(_, let inverse, let attribute) = p.tail {
                if attributes[inverse] == nil { attributes[inverse] = [] }
                if let attribute, !attributes[inverse]!.contains(attribute) { attributes[inverse]!.append(attribute) }
            }
        }
        for q in quantified {
            if attributes[q.inverse] == nil { attributes[q.inverse] = [] }
            quantifiers[q.inverse, default: []].append((q.text, q.member))
        }
        var tables: [InverseRelationship: AggregateTable] = [:]
        for (inverse, names) in attributes {
            tables[inverse] = AggregateTable(inverse: inverse, attributes: names, quantifiers: quantifiers[inverse] ?? [])
        }
        return tables
    }

    /// Fills `tables` from every object of each inverse's source entity, read by `objects`.
    package static func fill(_ tables: [InverseRelationship: AggregateTable],
                             _ objects: (String) throws -> [(id: ObjectID, values: ObjectValues)]) rethrows {
        for table in tables.values {
            for (_, values) in try objects(table.inverse.source) { table.add(values, 1) }
        }
    }
}
