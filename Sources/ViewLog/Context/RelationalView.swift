@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// What a results controller over key paths (DESIGN §10) keeps to follow relationships: the paths its request uses,
/// every object's path values at the controller's position, and the per-target state of the to-many inverses its
/// aggregates and quantifiers read (``AggregateTable``) — so that a move reports exactly the rows whose path values
/// it changed (a related object's update, an object joining or leaving an inverse set, a re-pointed relationship, a
/// delete and its consequences) as if their own attributes had changed.
///
/// A move that ends at the head with no unsaved change finds the rows it reaches through the relationships index
/// (`RelationalView+Head.swift`): O(k log n) for k rows reached. Any other move (time travel, unsaved changes, a
/// head that moved on) that touches an entity the paths read compares every object's path values (O(n)).
final class RelationalView {
    let paths: [KeyPath]
    let quantified: [QuantifiedPath]
    /// The entities whose changes can change path values: the hops' targets and the inverses' members.
    let entitiesRead: Set<String>
    /// The entities whose objects the to-one hops read.
    let entitiesLooked: Set<String>
    /// The per-target state of each inverse the paths read.
    let tables: [InverseRelationship: AggregateTable]
    /// The names of a row's path values: the paths' texts, then the quantifiers' (``pathValues`` holds their values
    /// in this order).
    let names: [String]
    /// Path values by object id, for every object of the view's entity at the controller's position, in the order of
    /// ``names``: an array, not a dictionary per object (a third of the heap a row kept, and its hashing).
    var pathValues: [ObjectID: [Value]] = [:]
    /// How many times path values were computed for a row (tests check that a move touches only the rows it
    /// reaches).
    private(set) var rowsEvaluated = 0

    init(paths: [KeyPath], quantified: [QuantifiedPath]) {
        self.paths = paths
        self.quantified = quantified
        names = paths.map(\.text) + quantified.map(\.text)
        entitiesLooked = Set(paths.flatMap { $0.hops.map(\.target) } + quantified.flatMap { $0.hops.map(\.target) })
        tables = AggregateTable.tables(paths: paths, quantified: quantified)
        entitiesRead = entitiesLooked.union(tables.keys.map(\.source))
    }

    /// Fills the aggregate tables from every object of each inverse's source entity, read by `objects`.
    func fillTables(_ objects: (String) throws -> [(id: ObjectID, values: ObjectValues)]) rethrows {
        try AggregateTable.fill(tables, objects)
    }

    /// Moves the aggregate tables by `delta`: each member it touched leaves its target before and joins its target
    /// after.
    func moveTables(by delta: Delta) {
        for table in tables.values {
            for d in delta.objects where d.key.entity == table.inverse.source {
                table.add(d.before, -1)
                table.add(d.after, 1)
            }
        }
    }

    /// The path values of the object `id` of `entity` whose own values are `values`.
    func pathValues(of values: ObjectValues, id: ObjectID, entity: String, lookup: PathLookup) -> [Value] {
        rowsEvaluated += 1
        return KeyPath.pathValues(paths: paths, quantified: quantified, of: values, id: id, entity: entity, lookup: lookup,
                               aggregates: TableAggregates(tables: tables))
    }

    /// `delta` of the view's `entity` with path values added to every object's values, and the objects whose path
    /// values alone changed added; the state after it is `context`'s now. Updates ``pathValues`` and the tables.
    func augmented(_ delta: Delta, entity: String, context: Context) throws -> Delta {
        let touchesPaths = delta.objects.contains { entitiesRead.contains($0.key.entity) }
        let own = delta.objects.filter { $0.key.entity == entity }
        guard touchesPaths || !own.isEmpty else {
            return Delta(from: delta.from, to: delta.to, objects: [], schemaChange: delta.schemaChange, carry: delta.carry)
        }
        moveTables(by: delta)
        // At the head with no unsaved change, the relationships index finds the rows the move reaches.
        if !context.unsavedChangesTouch(entity, overPaths: true), let refs = context.store.refsDB {
            let incremental = try context.store.perform(read: true) { txn -> Delta? in
                guard try context.store.head(in: txn) == delta.to else { return nil }
                let lookup = try context.store.headPathLookup(viewEntity: entity, in: txn)
                let reached = touchesPaths ? try rowsReached(by: delta, entity: entity, store: context.store, refs: refs, in: txn) : []
                let result = augmented(delta, own: own, reached: reached, entity: entity, lookup: lookup,
                                       aggregates: TableAggregates(tables: tables))
                if let failure = lookup.failure() { throw failure }
                return result
            }
            if let incremental { return incremental }
        }
        let lookup = try context.pathLookup(entities: entitiesLooked)
        var reached = Set<ObjectID>()
        var all: [ObjectID: ObjectValues] = [:]
        if touchesPaths {
            for (id, values) in try context.objects(of: entity) {
                reached.insert(id)
                all[id] = values
            }
        }
        let combined = PathLookup(object: { key in key.entity == entity ? all[key.id] ?? lookup.object(key) : lookup.object(key) })
        return augmented(delta, own: own, reached: reached, entity: entity, lookup: combined,
                         aggregates: TableAggregates(tables: tables))
    }

    /// `values` with `paths` added (a row's own values and its path values), in a dictionary sized for both at once:
    /// `merging` grew it (a copy and a resize per row: a fifth of a rename's refresh in the bench's profile).
    func adding(_ paths: [Value], to values: ObjectValues) -> ObjectValues {
        var out = ObjectValues(minimumCapacity: values.count + paths.count)
        for (k, v) in values { out[k] = v }
        for (k, v) in zip(names, paths) where out[k] == nil { out[k] = v }
        return out
    }

    /// `delta` with path values at its end, from `lookup` and `aggregates`: the objects of `own` (the view entity's,
    /// touched) and the rows `reached` (ids whose path values may have changed; those that did not change are left
    /// out).
    func augmented<A: AggregateSource>(_ delta: Delta, own: [ObjectDelta], reached: Set<ObjectID>, entity: String,
                                       lookup: PathLookup, aggregates: A) -> Delta {
        func pathValues(of values: ObjectValues, id: ObjectID) -> [Value] {
            rowsEvaluated += 1
            return KeyPath.pathValues(paths: paths, quantified: quantified, of: values, id: id, entity: entity,
                                   lookup: lookup, aggregates: aggregates)
        }
        var result: [ObjectDelta] = []
        var changedOwn = Set<ObjectID>()
        for d in own {
            changedOwn.insert(d.key.id)
            let before = self.pathValues[d.key.id] ?? []
            let after = d.after.map { pathValues(of: $0, id: d.key.id) }
            self.pathValues[d.key.id] = after
            result.append(ObjectDelta(key: d.key, before: d.before.map { adding(before, to: $0) },
                                      after: d.after.map { adding(after ?? [], to: $0) }, seq: d.seq))
        }
        // The seq of the move's last (first, backwards) change of an object the paths read.
        let pathSeqs = delta.objects.filter { entitiesRead.contains($0.key.entity) }.map(\.seq)
        let seq = (delta.to >= delta.from ? pathSeqs.max() : pathSeqs.min()) ?? delta.to
        for id in reached.sorted() where !changedOwn.contains(id) {
            let key = ObjectKey(entity: entity, id: id)
            guard let values = lookup.object(key) else { continue }
            let after = pathValues(of: values, id: id)
            let before = self.pathValues[id] ?? []
            guard after != before else { continue }
            self.pathValues[id] = after
            result.append(ObjectDelta(key: key, before: adding(before, to: values),
                                      after: adding(after, to: values), seq: seq))
        }
        result.sort { $0.key < $1.key }
        return Delta(from: delta.from, to: delta.to, objects: result, schemaChange: delta.schemaChange, carry: delta.carry)
    }
}

extension Context {
    /// A look-up of the objects of `entities` in this context (its position and unsaved changes).
    func pathLookup(entities: Set<String>) throws -> PathLookup {
        try pathLookup(entities: entities) { try objects(of: $0, staged: processed) }
    }

    /// A look-up of the objects of `entities` that `objects` reads.
    func pathLookup(entities: Set<String>, _ objects: (String) throws -> [(id: ObjectID, values: ObjectValues)]) rethrows -> PathLookup {
        var byEntity: [String: [ObjectID: ObjectValues]] = [:]
        for e in entities { byEntity[e] = Dictionary(uniqueKeysWithValues: try objects(e).map { ($0.id, $0.values) }) }
        return PathLookup(object: { key in byEntity[key.entity]?[key.id] })
    }

    /// A controller of `request` over key paths: `entity` is the request's entity with one attribute per path
    /// (``Schema/viewEntity(of:requiresVariables:)``); every object is fed with its own values and its path values.
    /// - Returns: the controller, and the rows it was fed (each object's values with its path values added).
    func makeRelationalController(_ request: FetchRequest, entity: EntityDescription, paths: [KeyPath],
                                  quantified: [QuantifiedPath]) throws -> (controller: ResultsController, rows: [(ObjectID, ObjectValues)]) {
        let plan = try ViewPlan(request, for: entity)
        let relational = RelationalView(paths: paths, quantified: quantified)
        let rows = try relationalRows(of: entity.name, relational)
        let controller = ResultsController(plan: plan, entity: entity, objects: rows, position: position)
        controller.relational = relational
        return (controller, rows)
    }

    /// Every object of `entity` in this context with its path values added, which `relational` keeps (with its
    /// aggregate tables, filled here). With `delta`, a move this context is delivering, every object as it was at the
    /// move's start (``objectsBefore(_:of:)``). Without `keepingRows`, only `relational` is filled (no row made).
    @discardableResult
    func relationalRows(of entity: String, _ relational: RelationalView, before delta: Delta? = nil,
                        keepingRows: Bool = true) throws -> [(ObjectID, ObjectValues)] {
        let (own, lookup) = try relationalObjects(of: entity, relational, before: delta)
        var rows: [(ObjectID, ObjectValues)] = []
        if keepingRows { rows.reserveCapacity(own.count) }
        relational.pathValues = [:]
        relational.pathValues.reserveCapacity(own.count)  // growing it costs ~16 % of a fetch (bench/RESULTS-notes.md)
        for (id, values) in own {
            let pathValues = relational.pathValues(of: values, id: id, entity: entity, lookup: lookup)
            relational.pathValues[id] = pathValues
            if keepingRows { rows.append((id, relational.adding(pathValues, to: values))) }
        }
        return rows
    }

    /// Every object of `entity` in this context (with `delta`, as it was at the move's start) and a look-up of the
    /// objects `relational`'s paths read there; `relational`'s aggregate tables, empty, are filled from the same objects.
    func relationalObjects(of entity: String, _ relational: RelationalView, before delta: Delta?) throws
        -> (own: [(id: ObjectID, values: ObjectValues)], lookup: PathLookup) {
        var cache: [String: [(id: ObjectID, values: ObjectValues)]] = [:]
        func objects(_ name: String) throws -> [(id: ObjectID, values: ObjectValues)] {
            if let known = cache[name] { return known }
            let all = try delta.map { try objectsBefore($0, of: name) } ?? self.objects(of: name, staged: processed)
            cache[name] = all
            return all
        }
        let own = try objects(entity)
        try relational.fillTables(objects)
        return (own, try pathLookup(entities: relational.entitiesLooked, objects))
    }
}

extension ResultsController {
    /// The path values of row `id` of a view over key paths (DESIGN §10: `department.name`, `employees.@count`, by
    /// path; a quantifier's result is not one); `nil` for a view without key paths.
    public func pathValues(of id: ObjectID) -> ObjectValues? {
        guard let r = relational, !r.paths.isEmpty else { return nil }  // quantifiers alone: no path values
        let values = r.pathValues[id] ?? []
        var out = ObjectValues(minimumCapacity: r.paths.count)
        for (name, value) in zip(r.names, values) where !name.contains(" ") { out[name] = value }
        return out
    }

    /// The key paths the view shows (its predicate's, sort's, section key's and `include`'s, quantifiers aside), in
    /// code-point order; empty for a view without key paths.
    public var keyPaths: [String] { relational?.paths.map(\.text) ?? [] }
}

extension Context {
    /// The values of the derived attributes (DESIGN §10) of the object `key` in this context — its position and
    /// unsaved changes — by derived attribute name; `nil` when the object does not exist. Computed by the views'
    /// path-value code: a to-one path reads the objects on its way, an aggregate every object of its members' entity.
    public func derivedValues(of key: ObjectKey) throws -> ObjectValues? {
        let schema = try self.schema
        let entity = try schema.entity(named: key.entity)
        guard let values = try object(key) else { return nil }
        guard !entity.derived.isEmpty else { return [:] }
        let paths = try entity.derivedNames.map { name throws(QueryError) in try KeyPath(name, from: entity, in: schema) }
        let relational = RelationalView(paths: paths, quantified: [])
        try relational.fillTables { try self.objects(of: $0) }
        let lookup = PathLookup.recordingFailures { try self.object($0) }
        let computed = relational.pathValues(of: values, id: key.id, entity: entity.name, lookup: lookup)
        if let failure = lookup.failure() { throw failure }
        return ObjectValues(uniqueKeysWithValues: zip(relational.names, computed))
    }
}
