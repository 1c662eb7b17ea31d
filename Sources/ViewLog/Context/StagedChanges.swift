/// A context's unsaved changes, collapsed per object as Core Data does: insert + update is one insert,
/// insert + delete is nothing, update + update is one update, update + delete is a delete.
struct StagedChanges: Equatable {
    enum Entry: Equatable {
        /// Inserted by the context (the values as given).
        case inserted(ObjectValues)
        /// Existing object with these attributes set.
        case updated(ObjectValues)
        /// Existing object deleted.
        case deleted
        /// Existing object deleted and inserted again with these values.
        case replaced(ObjectValues)
    }

    private(set) var entries: [ObjectKey: Entry] = [:]
    /// Keys in the order they were first staged: the order of the saved changes.
    private(set) var order: [ObjectKey] = []
    /// What the delete rules of the staged deletes will do when they are saved (DESIGN §10): the values they leave
    /// the objects that name a deleted one (`nil`: cascaded away). Shown to the context's controllers as Core Data
    /// shows its delete rules' effects when it processes pending changes; never saved as requests (the store applies
    /// the rules itself and logs them).
    var implied: [ObjectKey: ObjectValues?] = [:]

    var isEmpty: Bool { entries.isEmpty }
    /// The objects the unsaved changes touch: those staged, then those their delete rules touch.
    var keys: [ObjectKey] { order.filter { entries[$0] != nil } + implied.keys.filter { entries[$0] == nil }.sorted() }
    /// Whether a staged change deletes an object.
    var hasDeletes: Bool { entries.values.contains { if case .deleted = $0 { return true }; if case .replaced = $0 { return true }; return false } }

    mutating func stage(_ request: ChangeRequest, existsInBase: Bool) throws(StoreError) {
        let key = request.key
        let current = entries[key]
        let next: Entry?
        switch (request, current) {
        case (.insert(_, _, let values), nil):
            guard !existsInBase else { throw refused(request, "the id exists already") }
            next = .inserted(values)
        case (.insert(_, _, let values), .deleted?):
            next = .replaced(values)
        case (.insert, _?):
            throw refused(request, "the id exists already")
        case (.update(_, _, let values), nil):
            guard existsInBase else { throw refused(request, "no such object") }
            next = .updated(values)
        case (.update(_, _, let values), .inserted(let old)?):
            next = .inserted(old.merging(values) { $1 })
        case (.update(_, _, let values), .replaced(let old)?):
            next = .replaced(old.merging(values) { $1 })
        case (.update(_, _, let values), .updated(let old)?):
            next = .updated(old.merging(values) { $1 })
        case (.update, .deleted?):
            throw refused(request, "no such object (deleted in this context)")
        case (.delete, nil):
            guard existsInBase else { throw refused(request, "no such object") }
            next = .deleted
        case (.delete, .inserted?):
            next = nil
        case (.delete, .updated?), (.delete, .replaced?):
            next = .deleted
        case (.delete, .deleted?):
            throw refused(request, "no such object (deleted in this context)")
        }
        if current == nil && next != nil && !order.contains(key) { order.append(key) }
        entries[key] = next
    }

    private func refused(_ request: ChangeRequest, _ why: String) -> StoreError {
        .invalidStagedChange(request.key, operation: request.operation, reason: why)
    }

    /// The object's values in the context given its values at the context's position: `base` when the
    /// object has no staged change.
    func values(of key: ObjectKey, base: ObjectValues?) -> ObjectValues? {
        if let implied = implied[key] { return implied }
        switch apply(to: key, base: base) {
        case .none: return base
        case .some(let v): return v
        }
    }

    /// The object's staged values given its values at the context's position; `.none` when it has no
    /// staged change, `.some(nil)` when it is staged as deleted.
    private func apply(to key: ObjectKey, base: ObjectValues?) -> ObjectValues?? {
        guard let entry = entries[key] else { return .none }
        switch entry {
        case .inserted(let v), .replaced(let v): return .some(v)
        case .updated(let v): return .some(base.map { $0.merging(v) { $1 } })
        case .deleted: return .some(nil)
        }
    }

    /// The requests a save appends, in staging order.
    var requests: [ChangeRequest] {
        var out: [ChangeRequest] = []
        for key in order where entries[key] != nil {
            switch entries[key]! {
            case .inserted(let v): out.append(.insert(entity: key.entity, id: key.id, values: v))
            case .updated(let v): out.append(.update(entity: key.entity, id: key.id, values: v))
            case .deleted: out.append(.delete(entity: key.entity, id: key.id))
            case .replaced(let v):
                out.append(.delete(entity: key.entity, id: key.id))
                out.append(.insert(entity: key.entity, id: key.id, values: v))
            }
        }
        return out
    }

    mutating func removeAll() {
        entries = [:]
        order = []
        implied = [:]
    }
}
