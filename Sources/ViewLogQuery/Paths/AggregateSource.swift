@_spi(Engine) import ViewLogModel
/// Where a row's aggregates and quantifiers over a to-many inverse (DESIGN §10: `employees.@count`, `ANY
/// employees.height > 190`) read the state of their target: a controller's in-memory ``AggregateTable``s, or the
/// per-target state a stored view keeps in the store (``StoredAggregates``). Both answer by §10's rules, so a row's
/// path values are the same whichever computed them.
package protocol AggregateSource {
    /// The value of `function` of `attribute` (`nil`: `@count`) over the members of `target` through `inverse`; `type`
    /// is the path's type.
    func aggregate(_ function: KeyPath.Aggregate, of attribute: String?, type: AttributeType,
                   inverse: InverseRelationship, target: ObjectID) -> Value
    /// Whether the quantified comparison `q` holds over the members of `target`.
    func quantifier(_ q: QuantifiedPath, target: ObjectID) -> Bool
}

extension KeyPath.Aggregate {
    /// The aggregate's value by §10's rules, from a target's counts: `members`, and of the aggregated attribute the
    /// members with a value (`nonNull`), the wrapping sum of the int values, whether the values are ints, and on demand
    /// the double values' sum (the double nearest to their exact sum: ``ExactSum``), the least and the greatest value
    /// (`null` when none). `type` is the path's type. One rule for the in-memory tables and the stored state, so that
    /// both give the same value.
    package func value(type: AttributeType, members: Int64, nonNull: Int64, intSum: Int64, intValued: Bool,
               doubleSum: () -> Double, least: () -> Value, greatest: () -> Value) -> Value {
        switch self {
        case .count: return .int(members)
        case .sum: return type == .int ? .int(intSum) : .double(doubleSum())
        case .avg:
            guard nonNull > 0 else { return .null }
            return .double((intValued ? Double(intSum) : doubleSum()) / Double(nonNull))
        case .min: return least()
        case .max: return greatest()
        }
    }
}

extension QuantifiedPath {
    /// Whether the quantifier holds over `members` members, `matching` of which satisfy its comparison (§10: over
    /// the empty set ANY is false, ALL and NONE true).
    package func holds(members: Int64, matching: Int64) -> Bool {
        switch quantifier {
        case "ALL": return matching == members
        case "NONE": return matching == 0
        default: return matching > 0
        }
    }
}

/// A controller's aggregate tables, one per inverse, as an ``AggregateSource``.
package struct TableAggregates: AggregateSource {
    let tables: [InverseRelationship: AggregateTable]

    package init(tables: [InverseRelationship: AggregateTable]) { self.tables = tables }

    package func aggregate(_ function: KeyPath.Aggregate, of attribute: String?, type: AttributeType,
                   inverse: InverseRelationship, target: ObjectID) -> Value {
        tables[inverse]!.aggregate(function, of: attribute, type: type, target: target)
    }

    package func quantifier(_ q: QuantifiedPath, target: ObjectID) -> Bool {
        tables[q.inverse]!.quantifier(q, target: target)
    }
}

extension KeyPath {
    /// The path values of the object `id` of `entity` whose own values are `values`, in the order of `paths`, then of
    /// `quantified`: to-one paths from `lookup`, aggregates and quantifiers from `aggregates`.
    package static func pathValues<A: AggregateSource>(paths: [KeyPath], quantified: [QuantifiedPath], of values: ObjectValues,
                                               id: ObjectID, entity: String, lookup: PathLookup, aggregates: A) -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(paths.count + quantified.count)
        for p in paths {
            switch p.tail {
            case .attribute:
                out.append(p.attributeValue(of: values, id: id, entity: entity, lookup: lookup))
            case let .aggregate(function, inverse, attribute):
                // Through a null hop an aggregate is null, @count included.
                guard let (_, key) = KeyPath.reach(p.hops, from: values, id: id, entity: entity, lookup: lookup) else {
                    out.append(.null)
                    continue
                }
                out.append(aggregates.aggregate(function, of: attribute, type: p.type, inverse: inverse, target: key.id))
            }
        }
        for q in quantified {
            // Through a null hop a quantifier ranges over the empty set: ANY false, ALL and NONE true.
            guard let (_, key) = KeyPath.reach(q.hops, from: values, id: id, entity: entity, lookup: lookup) else {
                out.append(.bool(q.holds(members: 0, matching: 0)))
                continue
            }
            out.append(.bool(q.member == nil ? false : aggregates.quantifier(q, target: key.id)))
        }
        return out
    }
}
