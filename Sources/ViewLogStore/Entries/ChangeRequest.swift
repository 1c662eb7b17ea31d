@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// A change as a user asks for it, before it is checked against the schema and the current state and
/// turned into a logged ``Change``.
public enum ChangeRequest: Sendable, Hashable {
    /// Insert a new object; absent attributes get their defaults.
    case insert(entity: String, id: ObjectID, values: ObjectValues)
    /// Set some attributes of an existing object.
    case update(entity: String, id: ObjectID, values: ObjectValues)
    /// Remove an existing object.
    case delete(entity: String, id: ObjectID)

    /// The object the request is about.
    public var key: ObjectKey {
        switch self {
        case .insert(let e, let id, _), .update(let e, let id, _), .delete(let e, let id):
            return ObjectKey(entity: e, id: id)
        }
    }

    /// `insert`, `update` or `delete`: the operation's name in messages and the log's JSON.
    public var operation: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}
