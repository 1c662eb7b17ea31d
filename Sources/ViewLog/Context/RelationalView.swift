/// What a results controller over key paths (DESIGN §10) keeps to follow relationships: the paths its request uses
/// and every object's path values at the controller's position, so that a move reports exactly the rows whose path
/// values it changed — a related object's update, an object joining or leaving an inverse set, a re-pointed
/// relationship, a delete and its consequences — as if their own attributes had changed.
///
/// A move that touches an entity the paths read recomputes every object's path values at the new position and
/// compares them (O(n) in the view's entity); a move that touches only the view's own entity looks up the paths of
/// the objects it touched. (The incremental form, from the relationships index, is the next step: DESIGN §10 "Cost".)
final class RelationalView {
    let paths: [KeyPath]
    let quantified: [QuantifiedPath]
    /// The entities whose objects the paths read beyond the row's own.
    let entitiesRead: Set<String>
    /// The to-many inverses whose members the paths read.
    let inversesRead: [InverseRelationship]
    /// Path values by object id, for every object of the view's entity at the controller's position.
    var pathValues: [ObjectID: ObjectValues]

    init(paths: [KeyPath], quantified: [QuantifiedPath], pathValues: [ObjectID: ObjectValues] = [:]) {
        self.paths = paths
        self.quantified = quantified
        self.entitiesRead = Set(paths.flatMap(\.entitiesRead) + quantified.flatMap(\.entitiesRead))
        var inverses: [InverseRelationship] = []
        for i in paths.flatMap(\.inversesRead) + quantified.map(\.inverse) where !inverses.contains(i) { inverses.append(i) }
        self.inversesRead = inverses
        self.pathValues = pathValues
    }

    /// How many times path values were computed for a row (tests check that a move touches only the rows it
    /// reaches).
    private(set) var rowsEvaluated = 0

    /// The path values of the object `id` of `entity` whose own values are `values`.
    func pathValues(of values: ObjectValues, id: ObjectID, entity: String, lookup: PathLookup) -> ObjectValues {
        rowsEvaluated += 1
        var out = ObjectValues(minimumCapacity: paths.count + quantified.count)
        for p in paths { out[p.text] = p.value(of: values, id: id, entity: entity, lookup: lookup) }
        for q in quantified { out[q.text] = q.value(of: values, id: id, entity: entity, lookup: lookup) }
        return out
    }

    /// `delta` of the view's `entity` with path values added to every object's values, and the objects whose path
    /// values alone changed added; the state after it is `context`'s now. Updates ``pathValues``.
    func augmented(_ delta: Delta, entity: String, context: Context) throws -> Delta {
        let touchesPaths = delta.objects.contains { entitiesRead.contains($0.key.entity) }
        let own = delta.objects.filter { $0.key.entity == entity }
        guard touchesPaths || !own.isEmpty else {
            return Delta(from: delta.from, to: delta.to, objects: [], schemaChange: delta.schemaChange)
        }
        // At the head with no unsaved change, the relationships index finds the rows the move reaches.
        if context.processed.isEmpty, let refs = context.store.refsDB {
            let incremental = try context.store.perform(read: true) { txn -> Delta? in
                guard try context.store.head(in: txn) == delta.to else { return nil }
                let lookup = try context.store.headPathLookup(refs: refs, in: txn)
                let reached = touchesPaths ? try rowsReached(by: delta, entity: entity, store: context.store, refs: refs, in: txn) : []
                let result = augmented(delta, own: own, reached: reached, entity: entity, lookup: lookup)
                if let failure = lookup.failure() { throw failure }
                return result
            }
            if let incremental { return incremental }
        }
        let lookup = try context.pathLookup(entities: entitiesRead, inverses: inversesRead)
        var result: [ObjectDelta] = []
        var changedOwn = Set<ObjectID>()
        for d in own {
            changedOwn.insert(d.key.id)
            let before = pathValues[d.key.id] ?? [:]
            let after = d.after.map { pathValues(of: $0, id: d.key.id, entity: entity, lookup: lookup) }
            pathValues[d.key.id] = after
            result.append(ObjectDelta(key: d.key, before: d.before?.merging(before) { a, _ in a },
                                      after: d.after.map { $0.merging(after ?? [:]) { a, _ in a } }, seq: d.seq))
        }
        if touchesPaths {
            // The seq of the move's last (first, backwards) change of an object the paths read.
            let pathSeqs = delta.objects.filter { entitiesRead.contains($0.key.entity) }.map(\.seq)
            let seq = (delta.to >= delta.from ? pathSeqs.max() : pathSeqs.min()) ?? delta.to
            for (id, values) in try context.objects(of: entity) where !changedOwn.contains(id) {
                let after = pathValues(of: values, id: id, entity: entity, lookup: lookup)
                let before = pathValues[id] ?? [:]
                guard after != before else { continue }
                pathValues[id] = after
                result.append(ObjectDelta(key: ObjectKey(entity: entity, id: id), before: values.merging(before) { a, _ in a },
                                          after: values.merging(after) { a, _ in a }, seq: seq))
            }
        }
        result.sort { $0.key < $1.key }
        return Delta(from: delta.from, to: delta.to, objects: result, schemaChange: delta.schemaChange)
    }

    /// `delta` with path values, from `lookup`: the objects of `own` (the view entity's, touched) and the rows
    /// `reached` (ids whose path values may have changed; those that did not change are left out).
    private func augmented(_ delta: Delta, own: [ObjectDelta], reached: Set<ObjectID>, entity: String,
                           lookup: PathLookup) -> Delta {
        var result: [ObjectDelta] = []
        var changedOwn = Set<ObjectID>()
        for d in own {
            changedOwn.insert(d.key.id)
            let before = pathValues[d.key.id] ?? [:]
            let after = d.after.map { pathValues(of: $0, id: d.key.id, entity: entity, lookup: lookup) }
            pathValues[d.key.id] = after
            result.append(ObjectDelta(key: d.key, before: d.before?.merging(before) { a, _ in a },
                                      after: d.after.map { $0.merging(after ?? [:]) { a, _ in a } }, seq: d.seq))
        }
        let pathSeqs = delta.objects.filter { entitiesRead.contains($0.key.entity) }.map(\.seq)
        let seq = (delta.to >= delta.from ? pathSeqs.max() : pathSeqs.min()) ?? delta.to
        // In id order: `result` is then two sorted runs, which its sort merges in one pass (from a set's order, sorting
        // the deltas was a sixth of a 1,000-row rename).
        for id in reached.sorted() where !changedOwn.contains(id) {
            let key = ObjectKey(entity: entity, id: id)
            guard let values = lookup.object(key) else { continue }
            let after = pathValues(of: values, id: id, entity: entity, lookup: lookup)
            let before = pathValues[id] ?? [:]
            guard after != before else { continue }
            pathValues[id] = after
            result.append(ObjectDelta(key: key, before: values.merging(before) { a, _ in a },
                                      after: values.merging(after) { a, _ in a }, seq: seq))
        }
        result.sort { $0.key < $1.key }
        return Delta(from: delta.from, to: delta.to, objects: result, schemaChange: delta.schemaChange)
    }
}

extension Context {
    /// A look-up of the objects of `entities`, and of the members of `inverses`, in this context (its position and
    /// unsaved changes).
    func pathLookup(entities: Set<String>, inverses: [InverseRelationship]) throws -> PathLookup {
        var byEntity: [String: [ObjectID: ObjectValues]] = [:]
        for e in entities {
            byEntity[e] = Dictionary(uniqueKeysWithValues: try objects(of: e, staged: processed).map { ($0.id, $0.values) })
        }
        var members: [InverseRelationship: [ObjectID: [ObjectValues]]] = [:]
        for inverse in inverses {
            var groups: [ObjectID: [ObjectValues]] = [:]
            for (_, values) in byEntity[inverse.source] ?? [:] {
                if let v = values[inverse.relationship], let target = ObjectID(v) { groups[target, default: []].append(values) }
            }
            members[inverse] = groups
        }
        return PathLookup(object: { key in byEntity[key.entity]?[key.id] },
                          members: { inverse, target in members[inverse]?[target] ?? [] })
    }

    /// A controller of `request` over key paths: `entity` is the request's entity with one attribute per path
    /// (``Schema/viewEntity(of:requiresVariables:)``); every object is fed with its own values and its path values.
    func makeRelationalController(_ request: FetchRequest, entity: EntityDescription, paths: [KeyPath],
                                  quantified: [QuantifiedPath]) throws -> ResultsController {
        let plan = try ViewPlan(request, for: entity)
        let relational = RelationalView(paths: paths, quantified: quantified)
        let rows = try relationalRows(of: entity.name, relational)
        let controller = ResultsController(plan: plan, entity: entity, objects: rows, position: position)
        controller.relational = relational
        return controller
    }

    /// Every object of `entity` in this context with its path values added, which `relational` keeps.
    func relationalRows(of entity: String, _ relational: RelationalView) throws -> [(ObjectID, ObjectValues)] {
        let lookup = try pathLookup(entities: relational.entitiesRead, inverses: relational.inversesRead)
        let all = try objects(of: entity, staged: processed)
        var rows: [(ObjectID, ObjectValues)] = []
        rows.reserveCapacity(all.count)
        relational.pathValues = [:]
        relational.pathValues.reserveCapacity(all.count)
        for (id, values) in all {
            let pathValues = relational.pathValues(of: values, id: id, entity: entity, lookup: lookup)
            relational.pathValues[id] = pathValues
            rows.append((id, values.merging(pathValues) { a, _ in a }))
        }
        return rows
    }
}

extension ResultsController {
    /// The path values of row `id` of a view over key paths (DESIGN §10: `department.name`, `employees.@count`, by
    /// path; a quantifier's result is not one); `nil` for a view without key paths.
    public func pathValues(of id: ObjectID) -> ObjectValues? {
        relational.map { r in (r.pathValues[id] ?? [:]).filter { !$0.key.contains(" ") } }
    }

    /// The key paths the view shows (its predicate's, sort's, section key's and `include`'s, quantifiers aside), in
    /// code-point order; empty for a view without key paths.
    public var keyPaths: [String] { relational?.paths.map(\.text) ?? [] }
}
