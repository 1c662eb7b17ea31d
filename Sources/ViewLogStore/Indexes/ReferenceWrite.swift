@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// What one append does to the reverse index of relationships (`refs`, ``ReferenceKey``), and the integrity of
/// relationships it must keep (DESIGN §10): every entry it adds or removes, kept in memory and written once at the end
/// of the write, so that a look-up during the write sees the store's entries with the write's changes over them.
///
/// Inactive (every method a no-op, nothing allocated) for a schema without relationships: appends to such stores
/// pay one branch per change.
struct ReferenceWrite {
    let isActive: Bool
    /// The relationships of each entity that has some.
    private let relationshipsByEntity: [String: [Attribute]]
    /// For each entity that relationships name: the relationships that name it, in the order delete rules run.
    package let referringRelationships: [String: [(source: String, relationship: Attribute)]]
    /// The entries this write adds (`true`) or removes (`false`), by key, with the source id each names.
    private var changed: [[UInt8]: (present: Bool, id: ObjectID)] = [:]
    /// The keys of ``changed`` by their prefix (``ReferenceKey/prefix(target:source:relationship:)``).
    private var changedByPrefix: [[UInt8]: [[UInt8]]] = [:]
    /// Whether each object the write touched exists after its last change so far.
    private var exists: [ObjectKey: Bool] = [:]
    /// The objects with relationships that the current transaction touched: their values after its last change of
    /// them, and that change's index and operation (for the message that refuses it).
    private var touched: [ObjectKey: (values: ObjectValues?, change: Int, operation: String)] = [:]
    /// The objects that relationships can name, deleted by the current transaction, with the change that deleted them.
    private var deleted: [(key: ObjectKey, change: Int)] = []

    init(schema: Schema) {
        var byEntity: [String: [Attribute]] = [:]
        for name in schema.entityNames {
            let relationships = schema.entities[name]!.relationships
            if !relationships.isEmpty { byEntity[name] = relationships }
        }
        relationshipsByEntity = byEntity
        referringRelationships = DeleteRuleWalk.referringRelationships(in: schema)
        isActive = !byEntity.isEmpty
    }

    /// Starts the bookkeeping of a new transaction of the write.
    mutating func beginTransaction() {
        guard isActive else { return }
        touched.removeAll(keepingCapacity: true)
        deleted.removeAll(keepingCapacity: true)
    }

    /// Records `change` (change `index` of the current transaction's request, or the one whose delete rule made it),
    /// which took its object from `before` to `after` (`nil`: absent).
    mutating func record(_ change: Change, before: ObjectValues?, after: ObjectValues?, index: Int) {
        guard isActive, let key = change.key else { return }
        exists[key] = after != nil
        if case .delete = change, referringRelationships[key.entity] != nil { deleted.append((key, index)) }
        guard let relationships = relationshipsByEntity[key.entity] else { return }
        let operation: String
        switch change {
        case .insert: operation = "insert"
        case .update: operation = "update"
        default: operation = "delete"
        }
        touched[key] = (after, index, operation)
        for a in relationships {
            let old = before?[a.name] ?? .null, new = after?[a.name] ?? .null
            guard old != new else { continue }
            let target = a.relationship!.target
            let (added, removed) = Value.memberChanges(from: old, to: new)
            for id in removed { note(ObjectKey(entity: target, id: id), key, a.name, present: false) }
            for id in added { note(ObjectKey(entity: target, id: id), key, a.name, present: true) }
        }
    }

    private mutating func note(_ target: ObjectKey, _ source: ObjectKey, _ relationship: String, present: Bool) {
        let key = ReferenceKey.key(target: target, source: source, relationship: relationship)
        if changed.updateValue((present, source.id), forKey: key) == nil {
            let prefix = ReferenceKey.prefix(target: target, source: source.entity, relationship: relationship)
            changedByPrefix[prefix, default: []].append(key)
        }
    }

    /// The ids of the objects of `source` whose `relationship` names `target`, as the write leaves them so far, in id
    /// order.
    func referrers(of target: ObjectKey, source: String, relationship: String, db: LMDBDatabase,
                   in txn: LMDBTransaction) throws -> [ObjectID] {
        let prefix = ReferenceKey.prefix(target: target, source: source, relationship: relationship)
        var ids = Set<ObjectID>()
        try txn.scan(db, prefix: prefix) { e in
            if changed[Array(e.key)]?.present != false { ids.insert(try LogStore.referenceSourceID(e)) }
            return .next
        }
        for k in changedByPrefix[prefix] ?? [] {
            if let c = changed[k], c.present { ids.insert(c.id) }
        }
        return ids.sorted()
    }

    /// Whether `key` exists as the write leaves it so far.
    func exists(_ key: ObjectKey, objects: LMDBDatabase, in txn: LMDBTransaction) throws -> Bool {
        if let known = exists[key] { return known }
        return try txn.value(objects, for: ObjectRecordCodec.key(key)) != nil
    }

    /// Why the current transaction breaks the integrity of relationships, at its end: a relationship of an object it
    /// touched that names an object that does not exist, or an object it deleted that an existing object still names
    /// through a `deny` relationship (or, for a transaction reproduced as logged, through any relationship while the
    /// deleted object is absent). `nil` when it keeps it. The first problem by change index is named.
    func integrityProblem(refs db: LMDBDatabase, objects: LMDBDatabase,
                          in txn: LMDBTransaction) throws -> (change: Int, reason: String)? {
        guard isActive else { return nil }
        var problems: [(change: Int, reason: String)] = []
        for (key, state) in touched {
            guard let values = state.values else { continue }
            for a in relationshipsByEntity[key.entity]! {
                // A set's members are checked in id order and the first missing one named.
                guard let v = values[a.name], let id = try v.memberIDs.first(where: { id in
                    try !exists(ObjectKey(entity: a.relationship!.target, id: id), objects: objects, in: txn)
                }) else { continue }
                let target = ObjectKey(entity: a.relationship!.target, id: id)
                problems.append((state.change, "\(state.operation) of \(key.entity) \(key.id.json.text): relationship '\(a.name)' names \(target.entity) \(id.json.text), which does not exist"))
            }
        }
        // A referrer of a deleted object that is not a deny's is named by the check above when the transaction touched
        // it (it was re-pointed to the deleted object): these are for a transaction reproduced without its rules.
        var untouched: [(change: Int, reason: String)] = []
        for (key, change) in deleted {
            let absent = try !exists(key, objects: objects, in: txn)
            for (source, a) in referringRelationships[key.entity] ?? [] where a.relationship!.deleteRule == .deny || absent {
                guard let first = try referrers(of: key, source: source, relationship: a.name, db: db, in: txn).first else { continue }
                let rule = a.relationship!.deleteRule
                let problem = (change, "delete of \(key.entity) \(key.id.json.text): \(source) \(first.json.text) still names it through '\(a.name)'"
                               + (rule == .deny ? " (onDelete: deny)" : ""))
                if rule == .deny { problems.append(problem) } else { untouched.append(problem) }
            }
        }
        let order = { (x: (change: Int, reason: String), y: (change: Int, reason: String)) in (x.change, x.reason) < (y.change, y.reason) }
        return problems.min(by: order) ?? untouched.min(by: order)
    }

    /// Writes the entries this write added and removes those it removed, in key order.
    func write(refs db: LMDBDatabase, in txn: LMDBTransaction) throws {
        guard isActive, !changed.isEmpty else { return }
        for key in changed.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let (present, id) = changed[key]!
            if present {
                try txn.put(db, key: key, value: ReferenceKey.value(key: key, id: id))
            } else {
                _ = try txn.delete(db, key: key)
            }
        }
    }
}
