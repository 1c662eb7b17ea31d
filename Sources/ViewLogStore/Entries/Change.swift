@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// One change as the log holds it: resolved against the state it was applied to, so that the log
/// replays forwards from empty and backwards from any position.
///
/// Kinds of change are added as the log gains them (``schema(_:previous:)`` and ``migration(_:schema:previous:)``
/// came after the object changes): a `switch` over a change should handle the kinds it needs and end with `default`,
/// so that a new kind does not break the code that reads the log.
public enum Change: Sendable, Hashable {
    /// A new object, with every attribute after defaults.
    case insert(ObjectKey, values: ObjectValues)
    /// The attributes an update set, with their new values and the values they had before.
    /// `previous` has exactly the keys of `values`. A to-many relationship's pair is what the update did to its set
    /// (DESIGN §10): the members it added in `values` and those it removed in `previous`, each a ``Value/set(_:)``,
    /// never the whole set; so the inverse swaps them as it swaps any pair.
    case update(ObjectKey, values: ObjectValues, previous: ObjectValues)
    /// A removed object, with every attribute it had.
    case delete(ObjectKey, previous: ObjectValues)
    /// The store's schema became `schema`; it was `previous` before. Schema changes are additive
    /// (new entities, attributes and views), so older objects stay valid.
    case schema(Schema, previous: Schema)
    /// A migration (DESIGN §13): the schema became `schema` by `migration`'s steps from `previous`. The changes after
    /// it in its transaction rewrite the objects the steps change (a delete of each as it was, an insert of it as
    /// it is), so every fold reads each position in its own schema.
    case migration(Migration, schema: Schema, previous: Schema)

    /// The schemas the changes after this one in its transaction are read in: after a migration, its rewrite's
    /// deletes hold objects as they were (the previous schema) and its inserts objects as they are (the new one).
    var schemasOfRest: (deletes: Schema, others: Schema)? {
        if case let .migration(_, s, previous) = self { return (previous, s) }
        return newSchema.map { ($0, $0) }
    }

    /// The schema in force after this change, when it is a schema change or a migration.
    public var newSchema: Schema? {
        switch self {
        case .schema(let s, _), .migration(_, let s, _): return s
        case .insert, .update, .delete: return nil
        }
    }

    /// The object the change touches; `nil` for a schema change.
    public var key: ObjectKey? {
        switch self {
        case .insert(let k, _), .update(let k, _, _), .delete(let k, _): return k
        case .schema, .migration: return nil
        }
    }

    /// The change that undoes this one: replaying it takes the state after this change back to the state
    /// before it.
    public var inverse: Change {
        switch self {
        case let .insert(k, values): return .delete(k, previous: values)
        case let .update(k, values, previous): return .update(k, values: previous, previous: values)
        case let .delete(k, previous): return .insert(k, values: previous)
        case let .schema(s, previous): return .schema(previous, previous: s)
        // A migration is undone by reading older positions in their own schema, never by a step back.
        case .migration: return self
        }
    }
}

extension Change {
    /// The request that makes this change again on the state it was made on; `nil` for a schema change.
    public var request: ChangeRequest? {
        switch self {
        case let .insert(k, values): return .insert(entity: k.entity, id: k.id, values: values)
        case let .update(k, values, previous):
            // A set's pair is the members added and removed: made again by adding and removing them.
            let sets = values.filter { $0.value.isSet }
            guard !sets.isEmpty else { return .update(entity: k.entity, id: k.id, values: values) }
            return .updateMembers(entity: k.entity, id: k.id, values: values.filter { sets[$0.key] == nil }, add: sets,
                                  remove: previous.filter { sets[$0.key] != nil })
        case let .delete(k, _): return .delete(entity: k.entity, id: k.id)
        case .schema, .migration: return nil
        }
    }
}
