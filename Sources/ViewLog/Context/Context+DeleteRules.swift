@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
import LMDB

/// What the delete rules of a context's staged deletes will do (DESIGN §10), kept in ``StagedChanges/implied`` as the
/// save will do it: each staged delete's rules run by ``DeleteRuleWalk`` at its place in the staging order, seeing the
/// changes staged before it and not those after. The objects that name a target are found through the relationships
/// index, not by reading the referring entities (``PositionObjects``): keeping the effects costs O(the objects the
/// rules reach), and a staging that cannot change them costs nothing.
extension Context {
    /// Brings ``StagedChanges/implied`` up to date after `staging`, the last staging, under `schema` (the position's).
    func updateImpliedChanges(after staging: StagedChanges.Staging, schema: Schema) throws(StoreError) {
        guard schema.hasRelationships, let last = staged.deletePlaces.last else { return }
        if staging.startsDelete && staging.place == last {
            // The save runs this delete's rules after every other's, and they change nothing of those.
            let places = staged.deletePlaces.suffix(1)
            try runDeleteRules(of: &staged, places: places, at: position, schema: schema)
            return
        }
        // A change staged after every staged delete is made after their rules ran; and the rules depend only on which
        // objects exist and what their relationships name.
        guard staging.startsDelete || (staging.place < last && staging.affectsReferrers) else { return }
        staged = try rerunDeleteRules(of: staged, at: position, schema: schema)
    }

    /// `changes` with the effects of the rules of all their staged deletes computed afresh for a context at `position`,
    /// `schema` the schema there.
    func rerunDeleteRules(of changes: StagedChanges, at position: UInt64, schema: Schema) throws(StoreError) -> StagedChanges {
        var next = changes
        next.implied = [:]
        next.impliedCount = 0
        guard schema.hasRelationships, next.hasDeletes else { return next }
        let places = next.deletePlaces[...]
        try runDeleteRules(of: &next, places: places, at: position, schema: schema)
        return next
    }

    /// Runs the rules of the staged deletes of `changes` at `places` (ascending, after every place whose effects
    /// `changes.implied` holds already) for a context at `position`, adding their effects to `changes.implied`. When
    /// it throws, the effects of the places before the one that failed stay.
    private func runDeleteRules(of changes: inout StagedChanges, places: ArraySlice<Int>, at position: UInt64,
                                schema: Schema) throws(StoreError) {
        let walk = DeleteRuleWalk(referringRelationships: DeleteRuleWalk.referringRelationships(in: schema))
        let reader = PositionObjects(context: self, position: position, schema: schema)
        defer { deleteRuleObjectsRead += reader.objectsRead }
        try reader.reading { () throws in
            for place in places {
                let deleted = changes.order[place]
                var reached: [ObjectKey] = []
                do {
                    try walk.run(
                        from: deleted, changesMax: Limits.transactionChangesMax - changes.requestCount - changes.impliedCount,
                        referrers: { target, source, relationship in
                            var ids = try reader.referrers(of: target, source: source, relationship: relationship.name)
                            let reference = StagedChanges.Reference(target: target, source: source, relationship: relationship.name)
                            if let staged = changes.referrers[reference] { ids.formUnion(staged) }
                            return ids.sorted()
                        },
                        values: { key in (changes.values(of: key, base: try reader.values(of: key), atWalk: place), ()) },
                        apply: { consequence, _ in
                            changes.implied[consequence.key, default: []]
                                .append(StagedChanges.Implied(walk: place, change: consequence.change))
                            changes.impliedCount += 1
                            reached.append(consequence.key)
                        })
                } catch {
                    for key in reached {
                        changes.implied[key]?.removeAll { $0.walk == place }
                        if changes.implied[key]?.isEmpty == true { changes.implied[key] = nil }
                    }
                    changes.impliedCount -= reached.count
                    if let refusal = error as? ChangeResolver.Refusal {
                        throw StoreError.invalidStagedChange(deleted, operation: "delete", reason: refusal.reason)
                    }
                    throw error
                }
            }
        }
    }
}

/// The objects at a context's position, as the delete rules read them: which objects name a target and their values.
///
/// With the relationships index (`refs`), in one read transaction (the index and the rows of one head): the index and
/// the rows at the head, adjusted by the objects changed between the position and the head (``PositionChanges``, made
/// once per position and head and kept by the context). A store opened read-only without the index has only the
/// entities' objects at the position to read: each entity the rules reach is read whole, once per run.
final class PositionObjects {
    private let store: LogStore
    private let context: Context
    private let position: UInt64
    private let schema: Schema
    private let refs: LMDBDatabase?
    /// The transaction of a run with the index.
    private var txn: LMDBTransaction?
    private var format = 0
    private var changes: PositionChanges?
    /// Without the index: the objects of each entity read so far.
    private var scanned: [String: [ObjectID: ObjectValues]] = [:]
    /// The objects read (an entity read whole counts its objects).
    private(set) var objectsRead = 0

    init(context: Context, position: UInt64, schema: Schema) {
        self.context = context
        store = context.store
        self.position = position
        self.schema = schema
        refs = context.scansForReferrers ? nil : context.store.refsDB
    }

    /// Runs `body`, which may call ``referrers(of:source:relationship:)`` and ``values(of:)``.
    func reading(_ body: () throws -> Void) throws(StoreError) {
        guard refs != nil else {
            do { try body() } catch let error as StoreError { throw error } catch { throw .storage("\(store.path): \(error)") }
            return
        }
        try store.perform(read: true) { txn in
            self.txn = txn
            defer { self.txn = nil }
            format = try store.format(in: txn)
            let head = try store.head(in: txn)
            if head == position {
                changes = nil
            } else if let known = context.positionChanges, known.position == position, known.head == head {
                changes = known
            } else {
                changes = try PositionChanges(store: store, from: position, to: head, schema: schema, in: txn)
                context.positionChanges = changes
            }
            try body()
        }
    }

    /// The ids of the objects of `source` whose `relationship` names `target` at the position.
    func referrers(of target: ObjectKey, source: String, relationship: String) throws -> Set<ObjectID> {
        guard let refs, let txn else {
            var out = Set<ObjectID>()
            for (id, values) in try objects(of: source) where values[relationship]?.holds(target.id) == true { out.insert(id) }
            return out
        }
        var ids = Set<ObjectID>()
        try store.referrers(of: target, source: source, relationship: relationship, refs: refs, in: txn) { id in
            // An object changed since the position names at the position what its values there name.
            if changes?.before[ObjectKey(entity: source, id: id)] == nil { ids.insert(id) }
        }
        if let named = changes?.named[StagedChanges.Reference(target: target, source: source, relationship: relationship)] {
            ids.formUnion(named)
        }
        return ids
    }

    /// The object's values at the position (`nil`: absent).
    func values(of key: ObjectKey) throws -> ObjectValues? {
        guard let txn else {
            if let loaded = scanned[key.entity] { return loaded[key.id] }
            objectsRead += 1
            return try store.object(key, at: position)
        }
        objectsRead += 1
        if let before = changes?.before[key] { return before }
        return try store.objectRecord(key, format: format, in: txn)?.values
    }

    private func objects(of entity: String) throws -> [ObjectID: ObjectValues] {
        if let loaded = scanned[entity] { return loaded }
        let all = try store.objects(of: entity, at: position)
        objectsRead += all.count
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.values) })
        scanned[entity] = byID
        return byID
    }
}

/// The objects of the entities with relationships that changed between a position and a later head: their values at
/// the position, and the targets those values name — with the index at the head, the references at the position.
/// Made from the log once per position and head (``LogStore/delta(from:to:entities:)``'s cost: the entries between, or
/// those before the position when fewer).
struct PositionChanges {
    let position: UInt64
    let head: UInt64
    /// Each changed object's values at the position (`nil`: absent there).
    let before: [ObjectKey: ObjectValues?]
    /// The ids of the changed objects that name each target at the position.
    let named: [StagedChanges.Reference: [ObjectID]]

    init(store: LogStore, from position: UInt64, to head: UInt64, schema: Schema, in txn: LMDBTransaction) throws {
        let sources = Set(schema.entityNames.filter { !schema.entities[$0]!.relationships.isEmpty })
        let delta = try store.delta(from: position, to: head, entities: sources, in: txn)
        var before: [ObjectKey: ObjectValues?] = [:]
        var named: [StagedChanges.Reference: [ObjectID]] = [:]
        for d in delta.objects {
            before[d.key] = .some(d.before)
            guard let values = d.before else { continue }
            for a in schema.entities[d.key.entity]?.relationships ?? [] {
                for id in values[a.name]?.memberIDs ?? [] {
                    let target = ObjectKey(entity: a.relationship!.target, id: id)
                    named[StagedChanges.Reference(target: target, source: d.key.entity, relationship: a.name), default: []].append(d.key.id)
                }
            }
        }
        self.position = position
        self.head = head
        self.before = before
        self.named = named
    }
}
