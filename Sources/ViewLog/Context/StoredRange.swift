@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
import LMDB

/// A windowed named view over key paths held between positions at or close below the head (DESIGN §10, §11): the rows
/// that any position from `low` to `high` (the head when it was made) can show in its window, and how to read their
/// path values at any of those positions from the view's stored state — so `diff VIEW` between positions near the
/// head reads the stored window and the changed rows, not the whole view, and computes no aggregate from members; a
/// controller that follows the head reads the range again for each move out of it
/// (``ResultsController/followingRange(_:for:context:)``).
///
/// Why the rows held are enough: a row whose values (own or path) differ between two positions of the range is
/// `touched` — its object changed after `low`, or the relationships index at the head reaches it from an object the
/// paths read that changed after `low` (the argument of `RelationalView+Head.swift`, with every value a changed
/// member's relationship had in the range). Every other row is the same at each position of the range, so its rank
/// among the untouched rows is its stored rank at the head: the first `offset + limit` stored rows of untouched
/// objects and the touched rows hold each position's window, with every row before it.
///
/// Why the values are right at a position p of the range: an object there is its head value or, when changed after
/// p, its value in the delta from the head to p; a target's aggregate state is its stored state with the members that
/// delta moved taken out as they are at the head and put back as they are at p
/// (``StoredAggregates/state(_:_:db:in:moved:)``).
final class StoredRange {
    let store: LogStore
    let name: String
    let request: FetchRequest
    let schema: Schema
    /// The view's entity (with its path attributes).
    let entity: EntityDescription
    /// The entities whose objects the rows' values read: the view's and those its paths read.
    let entities: Set<String>
    /// The positions the controller is exact at.
    let low: UInt64, high: UInt64
    /// The rows whose values may differ between two positions of the range.
    let touched: Set<ObjectID>
    /// How far below the head a range read again for its controller's move may start (``Limits/storedViewCatchUpTransactionsMax``).
    let transactionsMax: UInt64

    init(store: LogStore, name: String, request: FetchRequest, schema: Schema, entity: EntityDescription,
         entities: Set<String>, low: UInt64, high: UInt64, touched: Set<ObjectID>, transactionsMax: UInt64) {
        self.store = store
        self.name = name
        self.request = request
        self.schema = schema
        self.entity = entity
        self.entities = entities
        self.low = low
        self.high = high
        self.touched = touched
        self.transactionsMax = transactionsMax
    }

    /// Whether `delta`, a move of `context`, stays in the range with no unsaved change (which the store does not
    /// hold).
    func covers(_ delta: Delta, context: Context) -> Bool {
        let range = low...high
        return range.contains(delta.from) && range.contains(delta.to) && delta.schemaChange == nil
            && !context.unsavedChangesTouch(entity.name, overPaths: true)
    }

    /// The objects and aggregate states at `position` (in the range), read in `txn` from the head and the view's stored
    /// state; `nil` when the store no longer holds the view for the schema (a schema change, the view dropped or
    /// stale).
    func source(at position: UInt64, in txn: LMDBTransaction) throws -> (lookup: PathLookup, aggregates: StoredAggregateReader)? {
        guard let (view, head) = try store.storedView(named: name, schema: schema, showing: request, near: high, in: txn) else {
            return nil
        }
        return try source(at: position, view: view, head: head, in: txn)
    }

    /// ``source(at:in:)`` from `view`, found in `txn` with its `head`.
    func source(at position: UInt64, view: StoredView, head: UInt64,
                in txn: LMDBTransaction) throws -> (lookup: PathLookup, aggregates: StoredAggregateReader)? {
        guard let db = store.viewsDB else { return nil }
        let delta = try store.delta(from: head, to: position, entities: entities, in: txn)
        var there: [ObjectKey: ObjectValues?] = [:]
        for d in delta.objects { there[d.key] = .some(d.after) }
        let atHead = try store.headPathLookup(viewEntity: entity.name, in: txn)
        let lookup = PathLookup(object: { key in there[key] ?? atHead.object(key) }, failure: atHead.failure)
        return (lookup, StoredAggregateReader(view.aggregates, db: db, txn: txn, moved: delta.objects))
    }

    /// `delta` (covered: ``covers(_:context:)``) with path values, as ``RelationalView/augmented(_:entity:context:)``
    /// makes it from every object, for the rows held: `nil` (nothing changed) when the store no longer holds the view.
    func augmented(_ delta: Delta, relational: RelationalView) throws -> Delta? {
        try store.perform(read: true) { txn -> Delta? in
            guard let (lookup, aggregates) = try source(at: delta.to, in: txn) else { return nil }
            let own = delta.objects.filter { $0.key.entity == entity.name }
            // Read first, then kept: a failure leaves the controller to start again from what the context holds.
            let result = relational.augmented(delta, own: own, reached: touched, entity: entity.name, lookup: lookup,
                                              aggregates: aggregates)
            if let failure = lookup.failure() ?? aggregates.failure { throw failure }
            return result
        }
    }
}

extension ResultsController {
    /// The range that serves `delta`, a move of `context` about to be applied to this controller, which holds `range`:
    /// `range` itself when it covers the move; for a move out of it — the head moved on, as a follower's does, or a
    /// move below its low end — the range from the move's lower end to the head now, read from the stored view: the
    /// rows held past the window are dropped (the window's rows, and every row before them, are exact at the move's
    /// start), and the rows the new range needs are added, unreported, with their values at the move's start. So a
    /// controller that follows the head holds the window and the rows each move touches, not the view.
    ///
    /// `nil` (nothing changed) when the store cannot serve the move: a schema change, an unsaved change shown, a
    /// start too far below the head, the view redefined or dropped, a failed read.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` when a row read lands in the window held (the rows are no longer
    ///   the view's).
    func followingRange(_ range: StoredRange, for delta: Delta, context: Context) throws -> StoredRange? {
        if range.covers(delta, context: context) { return range }
        guard delta.schemaChange == nil, !context.unsavedChangesTouch(entity.name, overPaths: true),
              let relational, let limit = fetchRequest.limit else { return nil }
        // Read first, then kept: a failed read leaves the rows as they were.
        let read = RelationalView(paths: relational.paths, quantified: relational.quantified)
        guard let (next, added, _) = try? context.storedRangeRows(view: range.name, range.request, read, entity: entity,
                                                                   low: min(delta.from, delta.to), values: delta.from,
                                                                   transactionsMax: range.transactionsMax) else { return nil }
        let end = fetchRequest.offset.addingSaturating(limit)
        if rows.count > end { rows.removeRows(from: end) }
        relational.pathValues = relational.pathValues.filter { rows.contains($0.key) }
        for (id, _) in added where !rows.contains(id) { relational.pathValues[id] = read.pathValues[id] }
        try addRowsPastWindowOfSoundStore(added)
        return next
    }
}

extension Context {
    /// A live controller of a windowed named view over key paths at this context's position p, at or close below the
    /// head (DESIGN §10, §11), holding only the rows the window can show at any position from p to the head
    /// (``StoredRange``, ``storedRangeRows(view:_:_:entity:alsoTouched:low:values:transactionsMax:)``). Its moves within
    /// that range read path values from the view's stored state; a move out of it reads the range again from the
    /// move's lower end to the head (``ResultsController/followingRange(_:for:context:)``), so a controller that
    /// follows the head holds the window and the rows each move touches. A move the store cannot serve (one that shows
    /// unsaved changes, a schema change) takes the whole view at its start, unreported, and follows in memory from
    /// there. The CLI's `diff` and `watch` use it: O(log n + offset + limit + the rows the changes reach), not the
    /// view's entity.
    ///
    /// `nil` (nothing made) unless the request has key paths and
    /// ``storedRangeRows(view:_:_:entity:alsoTouched:low:values:transactionsMax:)`` can read the view.
    /// - Returns: the controller (adopted by this context) and its rows' own values at p.
    func makeStoredPathRangeController(view name: String, _ request: FetchRequest,
                                       transactionsMax: UInt64 = Limits.storedViewCatchUpTransactionsMax) throws
        -> (controller: ResultsController, values: [ObjectID: ObjectValues])? {
        try processPendingChanges()
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        guard !paths.isEmpty || !quantified.isEmpty, !unsavedChangesTouch(viewEntity.name, overPaths: true) else { return nil }
        let relational = RelationalView(paths: paths, quantified: quantified)
        guard let (range, rows, values) = try storedRangeRows(view: name, request, relational, entity: viewEntity,
                                                              transactionsMax: transactionsMax) else { return nil }
        let controller = ResultsController(plan: try ViewPlan(request, for: viewEntity), entity: viewEntity, objects: rows,
                                           position: position)
        controller.relational = relational
        controller.source = .storedPathRange(range)
        return (adopt(controller), values)
    }

    /// The stored-view reader of windowed named views near the head, flat ones (`relational` with no paths) and those
    /// over key paths alike (DESIGN §11): at this context's position p, the rows the window can show at any position
    /// from p to the head — the first `offset + limit` stored rows of objects untouched since p, and every row
    /// touched since (``touchedRows(after:through:relational:entity:entities:refs:in:)``, and `alsoTouched`) — with
    /// their values at p (path values added, which `relational` keeps), read from the head, the delta from it and the
    /// view's stored state. One read transaction. The stored rows hold no unsaved change: a caller with some names the
    /// objects they touch in `alsoTouched` and gives their values itself.
    ///
    /// `nil` unless the request has a `limit`, p is at or below the head by at most `transactionsMax` transactions with
    /// no schema change after it, and the store holds the view's rows (and, for paths, its relationships index).
    ///
    /// With `low` and `values`, the range starts at `low` (not p) and the rows' values are those at `values`, a position
    /// in it: the rows a controller at `values` adds for a move to p (``ResultsController/followingRange(_:for:context:)``).
    /// - Returns: the range, the rows (values with path values), and the rows' own values at p.
    func storedRangeRows(view name: String, _ request: FetchRequest, _ relational: RelationalView,
                         entity viewEntity: EntityDescription, alsoTouched: Set<ObjectID> = [],
                         low: UInt64? = nil, values at: UInt64? = nil, transactionsMax: UInt64)
        throws -> (range: StoredRange, rows: [(ObjectID, ObjectValues)], values: [ObjectID: ObjectValues])? {
        let overPaths = !relational.paths.isEmpty || !relational.quantified.isEmpty
        guard let limit = request.limit else { return nil }
        let schema = try self.schema
        let position = low ?? self.position, valuesAt = at ?? position
        let entities = relational.entitiesRead.union([viewEntity.name])
        let (paths, quantified) = (relational.paths, relational.quantified)
        return try store.perform(read: true) { txn -> (StoredRange, [(ObjectID, ObjectValues)], [ObjectID: ObjectValues])? in
            guard !overPaths || store.refsDB != nil,
                  let (view, head) = try store.storedView(named: name, schema: schema, showing: request, near: position,
                                                          transactionsMax: transactionsMax, in: txn),
                  var touched = try touchedRows(after: position, through: head, relational: relational, entity: viewEntity.name,
                                                entities: entities, refs: store.refsDB, in: txn) else { return nil }
            touched.formUnion(alsoTouched)
            let range = StoredRange(store: store, name: name, request: request, schema: schema, entity: viewEntity,
                                    entities: entities, low: position, high: head, touched: touched,
                                    transactionsMax: transactionsMax)
            // The first rows of the window untouched since, in view order.
            let ids = try store.storedRowIDs(of: view, limit: request.offset + limit, skipping: touched, in: txn)
            guard let (lookup, aggregates) = try range.source(at: valuesAt, view: view, head: head, in: txn) else { return nil }
            var rows: [(ObjectID, ObjectValues)] = [], values: [ObjectID: ObjectValues] = [:]
            rows.reserveCapacity(ids.count + touched.count)
            for id in ids + touched.sorted() {
                guard let own = lookup.object(ObjectKey(entity: viewEntity.name, id: id)) else {
                    if touched.contains(id) { continue }  // none there
                    throw StoreError.corrupt(seq: nil, reason: "the stored view '\(name)' names \(viewEntity.name) \(id.json.text), which does not exist: run 'viewlog verify'")
                }
                if overPaths {
                    let pathValues = KeyPath.pathValues(paths: paths, quantified: quantified, of: own, id: id,
                                                               entity: viewEntity.name, lookup: lookup, aggregates: aggregates)
                    relational.pathValues[id] = pathValues
                    rows.append((id, relational.adding(pathValues, to: own)))
                } else {
                    rows.append((id, own))
                }
                values[id] = own
            }
            if let failure = lookup.failure() ?? aggregates.failure { throw failure }
            return (range, rows, values)
        }
    }

    /// The rows of `entity` whose values may differ between two positions from `position` to `head`: the objects of
    /// `entity` changed after `position`, and the rows the relationships index reaches from every object of
    /// `entities` changed after it — for a member, from each object its relationships named in any version of the
    /// range. `nil` when a schema change lies in the range.
    private func touchedRows(after position: UInt64, through head: UInt64, relational: RelationalView, entity: String,
                             entities: Set<String>, refs: LMDBDatabase?, in txn: LMDBTransaction) throws -> Set<ObjectID>? {
        var rows = Set<ObjectID>()
        // Per member entity, each inverse's relationship and the members' attributes its aggregates and quantifiers
        // read: an update that sets none of them changes no target's state, and reaches no row through the inverse.
        var inverses: [String: [(relationship: String, read: Set<String>)]] = [:]
        for (inverse, table) in relational.tables {
            let read = Set([inverse.relationship] + table.attributes)
                .union(relational.quantified.filter { $0.inverse == inverse }.flatMap(\.memberAttributes))
            inverses[inverse.source, default: []].append((inverse.relationship, read))
        }
        // Per changed object, the values its relationships took while a change set what an inverse reads: every
        // change's values and previous values hold a relationship's value before and after each change of it, and
        // the head holds the last.
        var versions: [ObjectKey: Set<ObjectValues>] = [:]
        var reaching: [ObjectKey: Set<String>] = [:]
        for t in try store.readTransactions(txn, from: position + 1, through: head) {  // bounded: transactionsMax
            for change in t.changes {
                guard let key = change.key else { return nil }  // a schema change: the view may differ
                guard entities.contains(key.entity) else { continue }
                if key.entity == entity { rows.insert(key.id) }
                var seen = versions[key] ?? []
                for (relationship, read) in inverses[key.entity] ?? [] {
                    switch change {
                    case let .insert(_, values): seen.insert(values.filter { $0.key == relationship })
                    case let .update(_, values, previous):
                        guard values.keys.contains(where: read.contains) else { continue }
                        seen.insert(values.filter { $0.key == relationship })
                        seen.insert(previous.filter { $0.key == relationship })
                    case let .delete(_, previous): seen.insert(previous.filter { $0.key == relationship })
                    case .schema, .migration: continue
                    }
                    reaching[key, default: []].insert(relationship)
                }
                versions[key] = seen
            }
        }
        let format = try store.format(in: txn)
        var changed: [ObjectDelta] = []
        for (key, var seen) in versions.sorted(by: { $0.key < $1.key }) {
            if let names = reaching[key],
               let values = try store.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values {
                seen.insert(values.filter { names.contains($0.key) })
            }
            seen.remove([:])
            // The object itself (the hops that lead to it), then each version's relationships (the inverses).
            changed.append(ObjectDelta(key: key, before: nil, after: nil, seq: head))
            for values in seen { changed.append(ObjectDelta(key: key, before: nil, after: values, seq: head)) }
        }
        // A flat view (no paths) reaches no row through relationships.
        if let refs, !relational.paths.isEmpty || !relational.quantified.isEmpty {
            rows.formUnion(try relational.rowsReached(by: Delta(from: position, to: head, objects: changed), entity: entity,
                                                      store: store, refs: refs, in: txn))
        }
        return rows
    }
}
