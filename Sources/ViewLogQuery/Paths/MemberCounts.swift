@_spi(Engine) import ViewLogModel
/// What a target keeps of its members for the aggregates and quantifiers of one to-many inverse (DESIGN §10 "Cost":
/// "an aggregate is kept per target"): how many members it has; per aggregated attribute how many members have a
/// value, the wrapping sum of the int values and, where kept, the exact sum of the double values (``ExactSum``); per
/// quantifier how many members its comparison holds for. One type, and one rule for adding and removing a member, for
/// the in-memory tables (``AggregateTable``) and the stored state (``StoredAggregates``): a member's change is O(1).
package struct MemberCounts: Equatable {
    package var members: Int64 = 0
    package var nonNull: [Int64]
    package var intSum: [Int64]
    /// Per attribute: the exact sum of its double values, `nil` while none is kept.
    package var sum: [ExactSum?]
    package var matching: [Int64]
    /// Whether an attribute's exact sum starts at its first double value (the in-memory tables, which keep one for
    /// every attribute that has doubles) rather than being kept only where made at the start (the stored state, which
    /// keeps one only for the attributes a double `@sum`/`@avg` reads: its record's layout).
    let sumsStartAtFirstDouble: Bool

    /// Counts of no member. `exactSums` says per attribute whether its exact sum is kept from the start.
    package init(exactSums: [Bool], quantifiers: Int, sumsStartAtFirstDouble: Bool = false) {
        nonNull = Array(repeating: 0, count: exactSums.count)
        intSum = Array(repeating: 0, count: exactSums.count)
        sum = exactSums.map { $0 ? ExactSum() : nil }
        matching = Array(repeating: 0, count: quantifiers)
        self.sumsStartAtFirstDouble = sumsStartAtFirstDouble
    }

    /// Whether it holds nothing a member adds (the counts of a target without members).
    package var isEmpty: Bool {
        members == 0 && nonNull.allSatisfy { $0 == 0 } && matching.allSatisfy { $0 == 0 } && sum.allSatisfy { $0?.isZero ?? true }
    }

    /// Adds (`sign` 1) or removes (`sign` -1) the member with `values`: `attributes` are the aggregated attributes'
    /// names, `quantifiers` the quantifiers' member comparisons (`nil`: one that holds for no member).
    package mutating func add(_ values: ObjectValues, attributes: [String], quantifiers: [CompiledPredicate?], sign: Int64) {
        members += sign
        for (a, name) in attributes.enumerated() {
            let v = values[name] ?? .null
            guard !v.isNull else { continue }  // aggregates skip nulls
            nonNull[a] += sign
            switch v {
            case .int(let i): intSum[a] = sign > 0 ? intSum[a] &+ i : intSum[a] &- i
            case .double(let d):
                if sum[a] == nil, sumsStartAtFirstDouble { sum[a] = ExactSum() }
                sum[a]?.add(d, sign)
            default: break
            }
        }
        for (q, member) in quantifiers.enumerated() where member?.evaluate(values, id: .int(0)) == true {
            matching[q] += sign
        }
    }

    /// The value of `function` of attribute `a` (`nil`: `@count`) by §10's rules (``KeyPath/Aggregate/value(type:members:nonNull:intSum:intValued:doubleSum:least:greatest:)``);
    /// `type` is the path's type, `intValued` whether the attribute's values are ints, `least` and `greatest` its
    /// least and greatest value (`null` when none), read only by `@min` and `@max`.
    package func value(_ function: KeyPath.Aggregate, attribute a: Int?, type: AttributeType, intValued: (Int) -> Bool,
               least: (Int) -> Value, greatest: (Int) -> Value) -> Value {
        guard let a else {
            return function.value(type: type, members: members, nonNull: 0, intSum: 0, intValued: true,
                                  doubleSum: { 0 }, least: { .null }, greatest: { .null })
        }
        return function.value(type: type, members: members, nonNull: nonNull[a], intSum: intSum[a], intValued: intValued(a),
                              doubleSum: { sum[a]?.value ?? 0 }, least: { least(a) }, greatest: { greatest(a) })
    }

    /// Whether quantifier `q`, the `i`th counted, holds over the members.
    package func holds(_ q: QuantifiedPath, _ i: Int) -> Bool {
        q.holds(members: members, matching: matching[i])
    }
}
