@_spi(Engine) import ViewLog

/// A store whose log holds `changes` changes: `items` inserts, then updates of seeded rows' scores, in
/// transactions of 10,000 changes (10 per LMDB write, not flushed).
public func makeReplayStore(path: String, items: Int, changes: Int) -> LogStore {
    do {
        let store = try LogStore.create(at: path, schema: Workload.schema(),
                                        options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
        let initial = Workload.items(items)
        try loadItems(store, initial)
        var updates = UpdateStream(items: initial, kind: .sortPosition, seed: 99)
        var done = items
        var batch: [TransactionRequest] = []
        while done < changes {
            let n = min(10_000, changes - done)
            batch.append(TransactionRequest(author: Workload.author, changes: (0..<n).map { _ in
                let u = updates.next()
                return .update(entity: Workload.entityName, id: .int(Int64(u.id)), values: ["score": .int(u.newScore)])
            }))
            done += n
            if batch.count == 10 || done == changes {
                try store.append(batch)
                batch.removeAll()
            }
        }
        return store
    } catch { fatalError("replay store: \(error)") }
}

/// Rebuilds the view at the head by replaying the whole log with the library's own path: the delta from
/// position 0 to the head (every change read, decoded and folded into each object's state), applied to an
/// empty view as one batch. Returns the number of rows.
@inline(never)
public func replayViewByDelta(_ store: LogStore) -> Int {
    do {
        let head = try store.head
        let controller = try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                               objects: [(ObjectID, ObjectValues)](), position: 0)
        let delta = try store.delta(from: 0, to: head, entities: [Workload.entityName])
        controller.apply(delta)
        return controller.numberOfRows
    } catch { fatalError("replay: \(error)") }
}

/// Rebuilds the view by folding every logged change, in order, into the objects' states, then building the
/// view from them. Returns the number of rows.
@inline(never)
public func replayViewByFold(_ store: LogStore) -> Int {
    var state: [ObjectID: ObjectValues] = [:]
    do {
        try store.forEachTransaction { t in
            for change in t.changes {
                switch change {
                case let .insert(key, values): state[key.id] = values
                case let .update(key, values, _): state[key.id]?.merge(values) { $1 }
                case let .delete(key, _): state[key.id] = nil
                case .schema, .migration: break  // the bench's log has neither
                }
            }
        }
        let controller = try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                               objects: state.lazy.map { ($0.key, $0.value) }, position: try store.head)
        return controller.numberOfRows
    } catch { fatalError("replay: \(error)") }
}

/// Reads and decodes every logged change, and nothing else. Returns the number of changes.
@inline(never)
public func decodeLog(_ store: LogStore) -> Int {
    var n = 0
    do { try store.forEachTransaction { n += $0.changes.count } } catch { fatalError("decode: \(error)") }
    return n
}
