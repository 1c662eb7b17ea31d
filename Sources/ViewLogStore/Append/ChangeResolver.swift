@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Turns a ``ChangeRequest`` into the ``Change`` the log holds, checking it against the schema and the object's
/// current state: inserts get their defaults and must not exist yet, updates and deletes need an existing
/// object and record what they overwrite.
package struct ChangeResolver {
    let schema: Schema

    /// Why a request was refused (the store adds the transaction and change index).
    package struct Refusal: Error {
        package let reason: String
    }

    /// The entity the last request named, with its attribute names encoded as the log writes them: a write's
    /// requests usually name one entity, so it is looked up and its names encoded once, not per change. A class, so
    /// that handing it out is one reference, not a copy of the description's arrays and dictionary.
    package final class ResolvedEntity {
        let description: EntityDescription
        /// Every attribute's name as the log writes a name (length as a varint, then UTF-8), one after another in
        /// attribute order: what ``EntryWriter/appendInsert(_:of:values:)`` interleaves with the values.
        let names: [UInt8]
        /// Where each attribute's encoded name ends in ``names``.
        let nameEnds: [Int]

        init(_ description: EntityDescription) {
            self.description = description
            var w = ByteWriter(capacity: description.attributes.reduce(0) { $0 + $1.name.utf8.count + 5 })
            var ends: [Int] = []
            ends.reserveCapacity(description.attributes.count)
            for a in description.attributes {
                w.name(a.name)
                ends.append(w.count)
            }
            names = w.finish()
            nameEnds = ends
        }
    }

    private var last: ResolvedEntity?
    /// After ``resolve(_:current:)`` of an insert: its complete values in the order of the entity's attributes,
    /// whose names its ``ResolvedEntity`` holds — what an append encodes (``EntryWriter/appendInsert(_:of:values:)``).
    private(set) var insertValues: [Value] = []

    package init(schema: Schema) { self.schema = schema }

    package mutating func entity(_ name: String) throws(Refusal) -> ResolvedEntity {
        if let last, last.description.name == name { return last }
        guard let e = schema.entities[name] else { throw Refusal(reason: "unknown entity '\(name)'") }
        let resolved = ResolvedEntity(e)
        last = resolved
        return resolved
    }

    /// The entity of `key`, after checking that `key` can name an object: an entity of the schema and an id of its
    /// id type and length — before anything encodes the key (an LMDB key holds only a schema's entity names and ids
    /// within the limits).
    mutating func checkedEntity(of key: ObjectKey) throws(Refusal) -> ResolvedEntity {
        let resolved = try entity(key.entity)
        do {
            try EntityDescription.checkID(key.id, entity: resolved.description.name, idType: resolved.description.idType)
        } catch { throw Refusal(reason: error.description) }
        return resolved
    }

    /// The refusal of an insert of `key`, which exists already.
    static func existingIDRefusal(_ key: ObjectKey) -> Refusal {
        Refusal(reason: "insert of \(key.entity) \(key.id.json.text): the id exists already")
    }

    /// Resolves `request` against `current`, the object's values now (`nil` when absent). An insert also leaves
    /// its values by attribute in ``insertValues``.
    package mutating func resolve(_ request: ChangeRequest, current: ObjectValues?) throws(Refusal) -> Change {
        try resolve(request, of: try checkedEntity(of: request.key), current: current)
    }

    /// ``resolve(_:current:)`` of a request whose key ``checkedEntity(of:)`` checked, giving `entity`.
    package mutating func resolve(_ request: ChangeRequest, of entity: ResolvedEntity, current: ObjectValues?) throws(Refusal) -> Change {
        switch request {
        case let .insert(entityName, id, values):
            guard current == nil else { throw Self.existingIDRefusal(ObjectKey(entity: entityName, id: id)) }
            let full: ObjectValues
            do { full = try entity.description.completeInsert(values, into: &insertValues) } catch {
                throw Refusal(reason: "insert of \(entityName) \(id.json.text): \(error)")
            }
            return .insert(ObjectKey(entity: entityName, id: id), values: full)
        case let .update(entityName, id, values):
            return try resolveUpdate(ObjectKey(entity: entityName, id: id), values, add: [:], remove: [:], of: entity, current: current)
        case let .updateMembers(entityName, id, values, add, remove):
            return try resolveUpdate(ObjectKey(entity: entityName, id: id), values, add: add, remove: remove, of: entity, current: current)
        case let .delete(entityName, id):
            guard let current else { throw Refusal(reason: "delete of \(entityName) \(id.json.text): no such object") }
            return .delete(ObjectKey(entity: entityName, id: id), previous: current)
        case .updateMatching, .deleteMatching:
            preconditionFailure("a change by predicate is resolved into its matches before each is resolved")
        }
    }
}

extension ChangeResolver {
    /// An update of `key` setting `values` and adding and removing the members `add` and `remove` name, resolved
    /// against `current`: the logged change holds, for each set it names (replaced or changed), the members it
    /// actually added and removed (``Change/update(_:values:previous:)``), so a member added that is there or removed
    /// that is not changes nothing.
    private func resolveUpdate(_ key: ObjectKey, _ values: ObjectValues, add: ObjectValues, remove: ObjectValues,
                               of entity: ResolvedEntity, current: ObjectValues?) throws(Refusal) -> Change {
        let what = "update of \(key.entity) \(key.id.json.text)"
        guard !values.isEmpty || !add.isEmpty || !remove.isEmpty else {
            throw Refusal(reason: "\(what): sets no values (an update needs at least one attribute)")
        }
        guard let current else { throw Refusal(reason: "\(what): no such object") }
        let e = entity.description
        var checked: ObjectValues
        do { checked = try e.checkedValues(values) } catch { throw Refusal(reason: "\(what): \(error)") }
        var edits: [String: (add: Value, remove: Value)] = [:]
        for (edit, isAdd) in [(add, true), (remove, false)] {
            for (name, members) in edit {
                guard let a = e.attribute(named: name), a.isToMany else {
                    let noun = e.attribute(named: name)?.relationship != nil ? "relationship" : "attribute"
                    throw Refusal(reason: "\(what): \(isAdd ? "add" : "remove") changes sets, and \(noun) '\(name)' is not a to-many relationship")
                }
                let set: Value
                do { set = try e.checked(members, for: a) } catch { throw Refusal(reason: "\(what): \(error)") }
                if isAdd { edits[name, default: (.set([]), .set([]))].add = set } else { edits[name, default: (.set([]), .set([]))].remove = set }
            }
        }
        var sets: [String: Value] = [:]
        for (name, edit) in edits {
            guard checked[name] == nil else {
                throw Refusal(reason: "\(what): relationship '\(name)' is replaced by values and changed by add or remove")
            }
            if let both = edit.add.sharedMember(with: edit.remove) {
                throw Refusal(reason: "\(what): relationship '\(name)': \(both.json.text) is both added and removed")
            }
            sets[name] = (current[name] ?? .null).applyingMembers(added: edit.add, removed: edit.remove)
        }
        for (name, value) in checked where value.isSet { sets[name] = value }
        var previous = ObjectValues(minimumCapacity: checked.count + sets.count)
        for name in checked.keys { previous[name] = current[name] ?? .null }
        // An object from before the relationship existed holds no set yet: the empty one.
        for (name, after) in sets {
            let (added, removed) = Value.memberChanges(from: current[name] ?? .set([]), to: after)
            checked[name] = .set(added)
            previous[name] = .set(removed)
        }
        return .update(key, values: checked, previous: previous)
    }
}

extension ObjectValues {
    /// The values after applying `change` to an object whose values are `self` (or absent, `nil`).
    /// Returns `nil` when the change leaves the object absent.
    package static func applying(_ change: Change, to current: ObjectValues?) -> ObjectValues? {
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
        case .update(_, let v, let previous):
            if values == nil { values = [:] }
            for (name, value) in v {
                if case .set = value {
                    let held = values?[name] ?? .null
                    values?[name] = held.applyingMembers(added: value, removed: previous[name] ?? .null)
                } else {
                    values?[name] = value
                }
            }
        case .delete: values = nil
        case .schema, .migration: break
        }
    }
}
