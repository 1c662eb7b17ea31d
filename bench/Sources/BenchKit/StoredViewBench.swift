import GRDB
@_spi(Engine) import ViewLog

/// The named views the stored-view appends keep (DESIGN §11): the bench's view, a filtered one by name, and a
/// sectioned one in descending order.
public enum StoredViewWorkload {
    static let views = [
        #""byScore": {"entity": "Item", "where": "score >= 0", "sort": "score"}"#,
        #""activeByName": {"entity": "Item", "where": "active == YES", "sort": "name"}"#,
        #""sections": {"entity": "Item", "sort": "score desc, name", "section": "active"}"#,
    ]

    /// The bench's schema with the first `count` of ``views`` as named views.
    public static func schema(views count: Int) -> Schema {
        let entities = #"{"Item": {"id": "int", "attributes": {"name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": true}}}}"#
        let text = "{\"entities\": \(entities)" + (count == 0 ? "" : ", \"views\": {" + views.prefix(count).joined(separator: ", ") + "}") + "}"
        do { return try Schema(jsonText: text) } catch { fatalError("stored-view bench schema: \(error)") }
    }
}

/// Appends of 10,000 inserts per durable write into three fresh stores whose schemas have 0, 1 and 3 stored named
/// views, the stores taking turns write after write so that all see the same machine load. Returns nanoseconds per
/// write for each view count.
/// `durable: false` (MDB_NOSYNC) leaves out the flushes: the CPU side alone, for profiles.
public func measureAppendWithStoredViews(root: String, writes: Int, rounds: Int = 5, durable: Bool = true) -> [Int: [Double]] {
    let counts = [0, 1, 3]
    let stores = counts.map { n -> LogStore in
        do {
            return try LogStore.create(at: scratchPath(root, "append-views-\(n)"), schema: StoredViewWorkload.schema(views: n),
                                       options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30))
        } catch { fatalError("create store: \(error)") }
    }
    let plan = AppendPlan(shape: .batch, writes: writes * rounds + 1, firstID: 1, firstSeq: 1)
    for s in stores { do { try s.append(plan.requests[0]) } catch { fatalError("append: \(error)") } }
    var out: [Int: [Double]] = [:]
    for i in 1..<plan.requests.count {
        for (k, s) in stores.enumerated() {
            let requests = plan.requests[i]
            out[counts[k], default: []].append(time { do { try s.append(requests) } catch { fatalError("append: \(error)") } })
        }
    }
    for n in counts { removeTree(root + "/append-views-\(n)") }
    return out
}

/// The peer of ``measureAppendWithStoredViews(root:writes:rounds:)``: SQLite (through GRDB, WAL, `synchronous =
/// FULL`: one flush per commit) inserting the same rows, 10,000 per transaction through one prepared statement, into
/// three tables with 0, 1 and 3 secondary indexes that hold the rows of the views (partial where the view filters,
/// in the view's order; the rowid, the id, ends every index entry as it ends every view key). The databases take
/// turns as the stores do. Returns nanoseconds per transaction for each index count.
public func measureSQLiteInsertWithIndexes(root: String, writes: Int, rounds: Int = 5) -> [Int: [Double]] {
    let counts = [0, 1, 3]
    let indexes = [
        "CREATE INDEX item_by_score ON item(score) WHERE score >= 0",
        "CREATE INDEX item_active_by_name ON item(name) WHERE active = 1",
        "CREATE INDEX item_sections ON item(active, score DESC, name)",
    ]
    let paths = counts.map { scratchPath(root, "sqlite-indexes-\($0).sqlite") }
    let pools = zip(counts, paths).map { n, path -> DatabasePool in
        do {
            let pool = try DatabasePool(path: path)
            // On the writer itself (see `GRDBWorkload.makePool`): one fdatasync per commit.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL,
                                       active INTEGER NOT NULL DEFAULT 1)
                    """)
                for sql in indexes.prefix(n) { try db.execute(sql: sql) }
            }
            return pool
        } catch { fatalError("SQLite setup: \(error)") }
    }
    let perWrite = 10_000
    var nextID = [Int](repeating: 1, count: counts.count)
    func insert(_ k: Int) throws {
        let first = nextID[k]
        nextID[k] += perWrite
        try pools[k].write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO item (id, name, score, active) VALUES (?, ?, ?, 1)")
            for id in first..<(first + perWrite) {
                // The rows of `AppendPlan(shape: .batch, …)`: `Workload.values(id, score: id % 1000)`.
                try statement.execute(arguments: [id, Workload.name(id), id % 1000])
            }
        }
    }
    for k in counts.indices { do { try insert(k) } catch { fatalError("SQLite insert: \(error)") } }
    var out: [Int: [Double]] = [:]
    for _ in 0..<(writes * rounds) {
        for k in counts.indices {
            out[counts[k], default: []].append(time { do { try insert(k) } catch { fatalError("SQLite insert: \(error)") } })
        }
    }
    for (pool, path) in zip(pools, paths) {
        try? pool.close()
        for suffix in ["", "-wal", "-shm"] { removeTree(path + suffix) }
    }
    return out
}
