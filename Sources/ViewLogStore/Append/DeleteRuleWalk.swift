@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The delete rules of one deleted object (DESIGN §10), walked one way for both of their users: the store's append,
/// which logs what they do, and a context, which shows it before the save. A user says how the objects that name a
/// target are found and how an object's values are read as the walk has left them so far; the walk owns the rest:
///
/// - the order: referring entities in code-point order of their names, then their relationships in code-point order,
///   then the referring objects in id order; a cascaded delete's own consequences right after it (depth first, on an
///   explicit stack: a cascade may run down a chain as long as the store);
/// - the rules: `nullify` sets the relationship to `null` (takes the deleted one out of a set), `cascade` deletes the object, `deny` is not walked (it is
///   checked when the transaction ends, ``ReferenceWrite/integrityProblem(refs:objects:in:)``);
/// - an object that no longer names the deleted one when its turn comes (deleted already, nullified by a deeper
///   cascade) is skipped;
/// - the transaction's room: at most `changesMax` consequences.
package struct DeleteRuleWalk {
    package init(referringRelationships: [String: [(source: String, relationship: Attribute)]]) {
        self.referringRelationships = referringRelationships
    }

    /// What a rule does to one object that named the deleted one.
    package struct Consequence {
        /// The object.
        package let key: ObjectKey
        /// The relationship through which it named the deleted object.
        package let relationship: Attribute
        /// Its values just before.
        package let before: ObjectValues
        /// The change logged for it: the relationship set to `null` or the deleted member removed from the set (nullify), or
        /// the object's delete (cascade).
        package let change: Change

        /// Whether the object is deleted (cascade) rather than nullified.
        package var cascades: Bool {
            if case .delete = change { return true }
            return false
        }

        /// The object's values after the change (`nil`: deleted).
        package var after: ObjectValues? { ObjectValues.applying(change, to: before) }
    }

    /// For each entity that relationships name: the relationships that name it (as `source` entity and relationship
    /// attribute), in the order the rules run (``Schema/relationships(targeting:)``'s order).
    package let referringRelationships: [String: [(source: String, relationship: Attribute)]]

    /// The relationships of `schema` by the entity they name, in the order the rules run.
    package static func referringRelationships(in schema: Schema) -> [String: [(source: String, relationship: Attribute)]] {
        var byTarget: [String: [(source: String, relationship: Attribute)]] = [:]
        for name in schema.entityNames {
            for a in schema.entities[name]!.relationships { byTarget[a.relationship!.target, default: []].append((name, a)) }
        }
        return byTarget
    }

    /// Walks the rules of the delete of `deleted`, giving each consequence to `apply` in the order the store logs them.
    /// - Parameters:
    ///   - changesMax: the most consequences the transaction has room for.
    ///   - referrers: the ids of the objects of entity `source` whose `relationship` names `target`, as the walk has left
    ///     them so far, in id order (a few more are harmless: each is checked against its values).
    ///   - values: an object's values as the walk has left them so far (`nil`: absent), and a handle that `apply` is
    ///     given back for it.
    ///   - apply: records a consequence; later calls of `referrers` and `values` must see it.
    /// - Throws: a ``ChangeResolver/Refusal`` when the rules make more than `changesMax` changes; what the closures
    ///   throw.
    package func run<Handle>(from deleted: ObjectKey, changesMax: Int,
                     referrers: (_ target: ObjectKey, _ source: String, _ relationship: Attribute) throws -> [ObjectID],
                     values: (ObjectKey) throws -> (values: ObjectValues?, handle: Handle),
                     apply: (Consequence, Handle) throws -> Void) throws {
        // The objects that name `target` through a relationship whose rule acts (not deny), in the order of the walk.
        func listed(_ target: ObjectKey) throws -> [(key: ObjectKey, relationship: Attribute)] {
            var out: [(key: ObjectKey, relationship: Attribute)] = []
            for (source, a) in referringRelationships[target.entity] ?? [] where a.relationship!.deleteRule != .deny {
                for id in try referrers(target, source, a) { out.append((ObjectKey(entity: source, id: id), a)) }
            }
            return out
        }
        // One level per cascaded delete: the objects that named it, and the next one to visit.
        var stack: [(target: ObjectID, referrers: [(key: ObjectKey, relationship: Attribute)], next: Int)] = []
        stack.append((deleted.id, try listed(deleted), 0))
        var made = 0
        while let top = stack.last {  // bounded: each object is deleted at most once, each (object, relationship) nulled once
            guard top.next < top.referrers.count else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let (key, relationship) = top.referrers[top.next]
            let (current, handle) = try values(key)
            guard let current, let held = current[relationship.name], held.holds(top.target) else { continue }
            let change: Change
            switch relationship.relationship!.deleteRule {
            case .nullify:
                // A set's pair logs the member removed, not the set (``Change/update(_:values:previous:)``).
                change = relationship.isToMany
                    ? .update(key, values: [relationship.name: .set([])], previous: [relationship.name: .set([top.target])])
                    : .update(key, values: [relationship.name: .null], previous: [relationship.name: held])
            case .cascade:
                change = .delete(key, previous: current)
            case .deny:
                continue
            }
            guard made < changesMax else {
                throw ChangeResolver.Refusal(reason: "delete of \(deleted.entity) \(deleted.id.json.text): its delete rules make more than \(Limits.transactionChangesMax) changes in one transaction")
            }
            made += 1
            try apply(Consequence(key: key, relationship: relationship, before: current, change: change), handle)
            if case .delete = change { stack.append((key.id, try listed(key), 0)) }
        }
    }
}
