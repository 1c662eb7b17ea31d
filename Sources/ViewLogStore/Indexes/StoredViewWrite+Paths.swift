@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// The stored views over to-one key paths (DESIGN §10, §11: `department.name`): a row's key holds its path values, so
/// a write moves the rows of the objects it touched and of every object whose path reaches one it touched — found
/// through the relationships index (`refs`), walking each path backwards from the touched objects as a controller at
/// the head does (``LogStore/rowsReached(by:paths:quantified:entity:refs:in:)``): a department renamed with k employees
/// moves k rows, O(k log n).
///
/// A row's key before the write is computed from the objects as they were: the write's touched objects as it found
/// them, the others as they are (the write did not change them). Its key after, from the objects as the write leaves
/// them, read in the write's own transaction.
extension StoredViewWrite {
    func updateOverPaths(_ views: [StoredView], _ objects: borrowing AppendedObjects, store: LogStore, db: LMDBDatabase,
                         in txn: LMDBTransaction) throws {
        var touched: [ObjectKey: (before: ObjectValues?, after: ObjectValues?)] = [:]
        var deltas: [ObjectDelta] = []
        deltas.reserveCapacity(objects.count)
        for slot in 0..<objects.count {  // bounded: the objects the write touched
            let key: ObjectKey
            do { key = try objects.withKey(of: slot) { try ObjectRecordCodec.decodeKey($0) } } catch {
                throw StoreError.corrupt(seq: nil, reason: "an object key of this write: \(error)")
            }
            let object = objects[slot]
            deltas.append(ObjectDelta(key: key, before: object.before, after: object.values, seq: object.seq))
            touched[key] = (object.before, object.values)
        }
        let refs = try store.refsDatabase()
        for view in views {
            // A related object whose change leaves every attribute the paths read from it as it was (a department's
            // floor, for a view over `department.name`) changes no row's path values: its referrers are not visited.
            let read = view.attributesReadByPaths
            let delta = Delta(from: 0, to: 0, objects: deltas.filter { d in
                guard let before = d.before, let after = d.after, let names = read[d.key.entity] else { return true }
                return names.contains { before[$0] != after[$0] }
            })
            let after = try store.headPathLookup(viewEntity: view.entity.name, in: txn)
            let before = PathLookup(object: { key in
                if let t = touched[key] { return t.before }
                return after.object(key)
            }, failure: after.failure)
            // The aggregates' state moves first: the targets the members leave and join, their states before kept
            // for the rows' keys before the write.
            var states: [[ObjectID: StoredAggregates.TargetState]]?
            if let aggregates = view.aggregates {
                do { states = try aggregates.apply(delta.objects, db: db, in: txn) } catch is StoredAggregates.KeyTooLong {
                    try store.markUnstored(view, in: txn)  // an entry LMDB cannot store: read in memory from now on
                    continue
                }
            }
            let aggregatesBefore = StoredAggregateReader(view.aggregates, db: db, txn: txn, overrides: states)
            let aggregatesAfter = StoredAggregateReader(view.aggregates, db: db, txn: txn)
            var rows = try store.rowsReached(by: delta, paths: view.paths, quantified: view.quantified,
                                             entity: view.entity.name, refs: refs, in: txn)
            // The objects of the view's entity the write touched (the filter above may have left them out).
            for d in deltas where d.key.entity == view.entity.name { rows.insert(d.key.id) }
            var keys = ByteWriter(capacity: 64 * rows.count)
            var removed: [SortedKey] = [], added: [SortedKey] = []
            let skip = view.prefix.count
            for id in rows {  // bounded: the rows the write reaches
                let key = ObjectKey(entity: view.entity.name, id: id)
                let own = touched[key]
                let valuesAfter = own.map { $0.after } ?? after.object(key)
                let valuesBefore = own.map { $0.before } ?? valuesAfter
                let oldStart = keys.count
                let wasRow = valuesBefore.map {
                    view.appendKey(id: id, values: view.rowValues(id: id, values: $0, lookup: before, aggregates: aggregatesBefore), to: &keys)
                } ?? false
                let newStart = keys.count
                let isRow = valuesAfter.map {
                    view.appendKey(id: id, values: view.rowValues(id: id, values: $0, lookup: after, aggregates: aggregatesAfter), to: &keys)
                } ?? false
                if let failure = after.failure() ?? aggregatesBefore.failure ?? aggregatesAfter.failure { throw failure }
                let old = oldStart..<newStart, new = newStart..<keys.count
                if wasRow, isRow, keys.withBytes(0..<keys.count, { compareBytes(UnsafeRawBufferPointer(rebasing: $0[old]), UnsafeRawBufferPointer(rebasing: $0[new])) }) == 0 {
                    keys.truncate(to: oldStart)  // the row stays where it is
                    continue
                }
                if wasRow { removed.append(keys.withBytes(old) { Self.sortedKey($0, start: old.lowerBound, skipping: skip) }) }
                if isRow { added.append(keys.withBytes(new) { Self.sortedKey($0, start: new.lowerBound, skipping: skip) }) }
            }
            if added.contains(where: { $0.range.count > Limits.storedViewKeyBytesMax }) {
                try store.markUnstored(view, in: txn)  // a row LMDB cannot store: read in memory from now on
                continue
            }
            try keys.withBytes(0..<keys.count) { all in
                try Self.writeRows(removing: &removed, adding: &added, keys: UnsafeRawBufferPointer(all), of: view, db: db, in: txn)
            }
        }
    }
}

extension LogStore {
    /// Appends to `keys` the key of the row of each object of `view`'s entity at the head in `txn` that belongs to
    /// the view — keyed by its own values, with its path values for a view over key paths — and to `rows` where each
    /// lies, in object id order (not sorted; those before a failure are kept). `progress` is called with (objects
    /// read, objects of the entity) every ``storedViewProgressObjects`` objects.
    func storedViewRowKeys(of view: StoredView, into keys: inout ByteWriter, rows: inout [Range<Int>],
                           progress: ((Int, Int) -> Void)? = nil, total: Int = 0, in txn: LMDBTransaction) throws {
        var read = 0
        func counted() {
            read += 1
            if read % Self.storedViewProgressObjects == 0 { progress?(read, total) }
        }
        if view.isFlat {
            try forEachHeadObject(of: view.entity.name, reading: view.plan.attributesRead(of: view.entity), in: txn) { id, fetched in
                let start = keys.count
                if view.appendKey(id: id, values: fetched, to: &keys) { rows.append(start..<keys.count) }
                counted()
            }
            return
        }
        let lookup = try headPathLookup(viewEntity: view.entity.name, in: txn)
        let attributes = view.entity.attributes
        // Aggregates from tables recomputed from the members (not from the stored state: `verify` compares the two).
        let tables = AggregateTable.tables(paths: view.paths, quantified: view.quantified)
        try AggregateTable.fill(tables) { entity in
            guard let source = view.aggregates?.tables.first(where: { $0.inverse.source == entity })?.source else { return [] }
            return try headObjects(of: entity, in: txn, canonicalFor: source.attributes)
        }
        let aggregates = TableAggregates(tables: tables)
        var failure: (any Error)?
        try forEachHeadObject(of: view.entity.name, reading: attributes, in: txn) { id, fetched in
            let values = fetched.objectValues
            let start = keys.count
            if view.appendKey(id: id, values: view.rowValues(id: id, values: values, lookup: lookup, aggregates: aggregates), to: &keys) {
                rows.append(start..<keys.count)
            }
            failure = failure ?? lookup.failure()
            counted()
        }
        if let failure { throw failure }
    }
}
