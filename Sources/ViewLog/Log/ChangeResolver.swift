/// Turns a ``ChangeRequest`` into the ``Change`` the log holds, checking it against the schema and the object's
/// current state: inserts get their defaults and must not exist yet, updates and deletes need an existing
/// object and record what they overwrite.
struct ChangeResolver {
    let schema: Schema

    /// Why a request was refused (the store adds the transaction and change index).
    struct Refusal: Error {
        let reason: String
    }

    func entity(_ name: String) throws(Refusal) -> EntityDescription {
        guard let e = schema.entities[name] else { throw Refusal(reason: "unknown entity '\(name)'") }
        return e
    }

    func checkID(_ id: ObjectID, of entity: EntityDescription) throws(Refusal) {
        do { try entity.checkID(id) } catch { throw Refusal(reason: error.description) }
    }

    /// Resolves `request` against `current`, the object's values now (`nil` when absent).
    func resolve(_ request: ChangeRequest, current: ObjectValues?) throws(Refusal) -> Change {
        switch request {
        case let .insert(entityName, id, values):
            let entity = try entity(entityName)
            try checkID(id, of: entity)
            guard current == nil else { throw Refusal(reason: "insert of \(entityName) \(id.json.text): the id exists already") }
            let full: ObjectValues
            do { full = try entity.completeInsert(values) } catch {
                throw Refusal(reason: "insert of \(entityName) \(id.json.text): \(error)")
            }
            return .insert(ObjectKey(entity: entityName, id: id), values: full)
        case let .update(entityName, id, values):
            let entity = try entity(entityName)
            try checkID(id, of: entity)
            guard !values.isEmpty else {
                throw Refusal(reason: "update of \(entityName) \(id.json.text): sets no values (an update needs at least one attribute)")
            }
            guard let current else { throw Refusal(reason: "update of \(entityName) \(id.json.text): no such object") }
            let checked: ObjectValues
            do { checked = try entity.checkedValues(values) } catch {
                throw Refusal(reason: "update of \(entityName) \(id.json.text): \(error)")
            }
            var previous = ObjectValues(minimumCapacity: checked.count)
            for name in checked.keys { previous[name] = current[name] ?? .null }
            return .update(ObjectKey(entity: entityName, id: id), values: checked, previous: previous)
        case let .delete(entityName, id):
            let entity = try entity(entityName)
            try checkID(id, of: entity)
            guard let current else { throw Refusal(reason: "delete of \(entityName) \(id.json.text): no such object") }
            return .delete(ObjectKey(entity: entityName, id: id), previous: current)
        }
    }
}

extension ObjectValues {
    /// The values after applying `change` to an object whose values are `self` (or absent, `nil`).
    /// Returns `nil` when the change leaves the object absent.
    static func applying(_ change: Change, to current: ObjectValues?) -> ObjectValues? {
        var next = current
        apply(change, to: &next)
        return next
    }

    /// Applies `change` to an object's values in place (`nil`: absent): the one rule of what an insert, update
    /// or delete does to an object, used by appends, reads at older positions and `verify` alike.
    @inline(__always)
    static func apply(_ change: Change, to values: inout ObjectValues?) {
        switch change {
        case .insert(_, let v): values = v
        case .update(_, let v, _):
            if values == nil { values = [:] }
            for (name, value) in v { values?[name] = value }
        case .delete: values = nil
        case .schema: break
        }
    }
}
