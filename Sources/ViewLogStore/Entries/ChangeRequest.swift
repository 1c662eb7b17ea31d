@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// A change as a user asks for it, before it is checked against the schema and the current state and
/// turned into a logged ``Change``.
public enum ChangeRequest: Sendable, Hashable {
    /// Insert a new object; absent attributes get their defaults.
    case insert(entity: String, id: ObjectID, values: ObjectValues)
    /// Set some attributes of an existing object.
    case update(entity: String, id: ObjectID, values: ObjectValues)
    /// Set some attributes of an existing object, as ``update(entity:id:values:)``, and add members to and remove
    /// members from its to-many relationships' sets (DESIGN §10): `add` and `remove` map a to-many's name to a
    /// ``Value/set(_:)`` of ids. Adding a member already there, or removing one that is not, changes nothing; a
    /// relationship replaced by `values` is not also in `add` or `remove`, nor an id in both.
    case updateMembers(entity: String, id: ObjectID, values: ObjectValues, add: ObjectValues, remove: ObjectValues)
    /// Remove an existing object.
    case delete(entity: String, id: ObjectID)
    /// Set `values` on every object of `entity` that `predicate` matches (DESIGN §14): resolved where it is applied
    /// — inside the append's write, after the earlier changes of its transaction, or in a context when staged — into
    /// one ``update(entity:id:values:)`` per match in id order. With `max`, more matches refuse the transaction.
    case updateMatching(entity: String, predicate: ViewPredicate, values: ObjectValues, max: Int?)
    /// Delete every object of `entity` that `predicate` matches, resolved as ``updateMatching(entity:predicate:values:max:)``
    /// into one ``delete(entity:id:)`` per match in id order, each with its delete rules (a match an earlier match's
    /// cascade deleted is skipped).
    case deleteMatching(entity: String, predicate: ViewPredicate, max: Int?)

    /// The entity the request changes.
    public var entity: String {
        switch self {
        case .insert(let e, _, _), .update(let e, _, _), .updateMembers(let e, _, _, _, _), .delete(let e, _),
             .updateMatching(let e, _, _, _), .deleteMatching(let e, _, _):
            return e
        }
    }

    /// The predicate's text of a change by predicate; empty for a change of one object.
    package var predicateFormat: String {
        switch self {
        case .updateMatching(_, let p, _, _), .deleteMatching(_, let p, _): return p.format
        case .insert, .update, .updateMembers, .delete: return ""
        }
    }

    /// Whether it is a change by predicate, which names no one object.
    public var isByPredicate: Bool {
        switch self {
        case .insert, .update, .updateMembers, .delete: return false
        case .updateMatching, .deleteMatching: return true
        }
    }

    /// The object the request is about. A change by predicate names no one object (check ``isByPredicate``): the
    /// store and a context resolve it into one request per match before they look at keys.
    public var key: ObjectKey {
        switch self {
        case .insert(let e, let id, _), .update(let e, let id, _), .updateMembers(let e, let id, _, _, _), .delete(let e, let id):
            return ObjectKey(entity: e, id: id)
        case .updateMatching, .deleteMatching:
            preconditionFailure("a change by predicate (\(operation) of \(entity) where …) names no one object")
        }
    }

    /// `insert`, `update` or `delete`: the operation's name in messages and the log's JSON (a change by predicate
    /// logs updates or deletes).
    public var operation: String {
        switch self {
        case .insert: return "insert"
        case .update, .updateMembers, .updateMatching: return "update"
        case .delete, .deleteMatching: return "delete"
        }
    }
}
