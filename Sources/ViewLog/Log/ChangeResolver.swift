/// Turns a ``ChangeRequest`` into the ``Change`` the log holds, checking it against the schema and the object's
/// current state: inserts get their defaults and must not exist yet, updates and deletes need an existing
/// object and record what they overwrite.
struct ChangeResolver {
    let schema: Schema

    /// Why a request was refused (the store adds the transaction and change index).
    struct Refusal: Error {
        let reason: String
    }

    /// The entity the last request named, with its attribute names encoded as the log writes them: a write's
    /// requests usually name one entity, so it is looked up and its names encoded once, not per change.
    private var last: (entity: EntityDescription, names: [[UInt8]])?
    /// After ``resolve(_:current:)`` of an insert: its complete values in the order of the entity's attributes,
    /// whose names are ``insertNames`` — what an append encodes (``EntryWriter/appendInsert(_:names:values:)``).
    private(set) var insertValues: [Value] = []

    init(schema: Schema) { self.schema = schema }

    /// The names of the attributes of the entity of the last request resolved, each encoded as the log writes a name
    /// (length, then UTF-8), in the order of ``insertValues``.
    var insertNames: [[UInt8]] { last?.names ?? [] }

    mutating func entity(_ name: String) throws(Refusal) -> EntityDescription {
        if let last, last.entity.name == name { return last.entity }
        guard let e = schema.entities[name] else { throw Refusal(reason: "unknown entity '\(name)'") }
        // Each name as the log writes it: its length (a varint), then its UTF-8.
        last = (e, e.attributes.map { a in
            var w = ByteWriter(capacity: a.name.utf8.count + 5)
            w.name(a.name)
            return w.finish()
        })
        return e
    }

    /// The refusal of an insert of `key`, which exists already.
    static func existingIDRefusal(_ key: ObjectKey) -> Refusal {
        Refusal(reason: "insert of \(key.entity) \(key.id.json.text): the id exists already")
    }

    func checkID(_ id: ObjectID, of entity: EntityDescription) throws(Refusal) {
        do { try entity.checkID(id) } catch { throw Refusal(reason: error.description) }
    }

    /// Resolves `request` against `current`, the object's values now (`nil` when absent). An insert also leaves
    /// its values by attribute in ``insertValues``.
    mutating func resolve(_ request: ChangeRequest, current: ObjectValues?) throws(Refusal) -> Change {
        switch request {
        case let .insert(entityName, id, values):
            let entity = try entity(entityName)
            try checkID(id, of: entity)
            guard current == nil else { throw Self.existingIDRefusal(ObjectKey(entity: entityName, id: id)) }
            let full: ObjectValues
            do { full = try entity.completeInsert(values, into: &insertValues) } catch {
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
