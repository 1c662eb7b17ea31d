import GRDB
@_spi(Engine) import ViewLog

/// What opening a library controller of the stored named view `byScore` costs (DESIGN §11), beside GRDB reading
/// the same rows over its index: a window of 20 rows, the whole view from the stored rows' keys, and the whole view
/// built from the objects (a request the store keeps no view for). Medians of `reps` opens, the two sides in turn.
public struct StoredWindowOpen: Sendable {
    /// Nanoseconds per open: ViewLog's window, GRDB's `LIMIT 20`; ViewLog's whole view from the stored keys, from
    /// the objects; GRDB's whole query.
    public var window: Timing, grdbWindow: Timing, wholeStored: Timing, wholeFromObjects: Timing, grdbWhole: Timing
}

public func measureStoredWindowOpen(root: String, rows n: Int, reps: Int) -> StoredWindowOpen {
    let items = Workload.items(n)
    let store: LogStore
    do {
        store = try LogStore.create(at: scratchPath(root, "open-views-\(n)"), schema: StoredViewWorkload.schema(views: 1),
                                    options: StoreOptions(durable: true, mapSizeBytes: 4 << 30))
        try loadItems(store, items)
    } catch { fatalError("open-views store: \(error)") }
    let path = scratchPath(root, "open-views-\(n).sqlite")
    let pool = GRDBWorkload.makePool(path: path, items: items, durable: true)
    defer {
        do { try pool.close() } catch { fatalError("GRDB close: \(error)") }
        for suffix in ["", "-wal", "-shm"] { removeTree(path + suffix) }
        removeTree(root + "/open-views-\(n)")
    }
    let view: ViewLog.FetchRequest
    do { view = try ViewLog.FetchRequest(store.schema.views["byScore"]!) } catch { fatalError("byScore: \(error)") }
    var window = view
    window.limit = 20
    var unnamed = view  // the same rows; no stored view is this request
    do { unnamed.predicate = try ViewPredicate("score > -1") } catch { fatalError("predicate: \(error)") }
    func open(_ request: ViewLog.FetchRequest, rows expected: Int) -> Double {
        time {
            do {
                let controller = try Context(store: store, name: "bench").makeResultsController(request)
                precondition(controller.numberOfRows == expected, "rows \(controller.numberOfRows), expected \(expected)")
            } catch { fatalError("open: \(error)") }
        }
    }
    func grdb(_ sql: String, rows expected: Int) -> Double {
        time {
            do {
                let ids = try pool.read { db in try Int64.fetchAll(db, sql: sql) }
                precondition(ids.count == expected)
            } catch { fatalError("GRDB: \(error)") }
        }
    }
    var w: [Double] = [], gw: [Double] = [], ws: [Double] = [], wo: [Double] = [], gwh: [Double] = []
    let windowSQL = GRDBWorkload.idsQuery + " LIMIT 20"
    for _ in 0..<reps {
        w.append(open(window, rows: min(20, n)))
        gw.append(grdb(windowSQL, rows: min(20, n)))
    }
    for _ in 0..<max(3, reps / 20) {
        ws.append(open(view, rows: n))
        wo.append(open(unnamed, rows: n))
        gwh.append(grdb(GRDBWorkload.idsQuery, rows: n))
    }
    return StoredWindowOpen(window: Timing(w), grdbWindow: Timing(gw), wholeStored: Timing(ws),
                            wholeFromObjects: Timing(wo), grdbWhole: Timing(gwh))
}
