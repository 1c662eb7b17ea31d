import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import GRDB
@_spi(Engine) import ViewLog

// MARK: - ViewLog, in memory

/// A live ViewLog view of `n` rows and a stream of one-row changes as deltas, to time `apply` alone: the
/// cost of a change "after it is read from the log" (DESIGN §8).
public final class InMemoryView {
    public let controller: ResultsController
    private var updates: UpdateStream
    private var position: UInt64 = 1

    public init(items: [(id: Int, score: Int64)], kind: ViewChangeKind) {
        let objects = items.lazy.map { (ObjectID.int(Int64($0.id)), Workload.values($0.id, score: $0.score)) }
        do {
            controller = try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                               objects: objects, position: position)
        } catch { fatalError("controller: \(error)") }
        updates = UpdateStream(items: items, kind: kind)
    }

    /// The kind of the next changes.
    public var kind: ViewChangeKind {
        get { updates.kind }
        set { updates.kind = newValue }
    }

    /// The next change, as the delta the store would give for it.
    public func nextDelta() -> Delta {
        let u = updates.next()
        let key = ObjectKey(entity: Workload.entityName, id: .int(Int64(u.id)))
        let d = Delta(from: position, to: position + 1, objects: [
            ObjectDelta(key: key, before: Workload.values(u.id, score: u.oldScore),
                        after: Workload.values(u.id, score: u.newScore), seq: position + 1),
        ])
        position += 1
        return d
    }

    /// Applies `d`; traps when the change set is empty (every benchmark change changes the view).
    @inline(never)
    public func apply(_ d: Delta) {
        let changes = controller.apply(d)
        precondition(!changes.isEmpty, "a benchmark change left the view unchanged")
    }

    /// Deltas made ahead by ``prepare(_:)``, so that a benchmark's measured body is `apply` alone (its malloc
    /// count then counts `apply`'s allocations only).
    private var prepared: [Delta] = []
    private var nextPrepared = 0

    /// Makes the next `count` deltas now.
    public func prepare(_ count: Int) {
        prepared = (0..<count).map { _ in nextDelta() }
        nextPrepared = 0
    }

    /// Applies the next prepared delta (made by ``prepare(_:)``); traps when they are used up.
    @inline(never)
    public func applyPrepared() {
        precondition(nextPrepared < prepared.count, "InMemoryView: prepared deltas are used up")
        let changes = controller.apply(prepared[nextPrepared])
        nextPrepared += 1
        precondition(!changes.isEmpty, "a benchmark change left the view unchanged")
    }
}

// MARK: - ViewLog, end to end

/// A ViewLog store of `n` items and a live view over it: one step appends one update (one transaction, one
/// LMDB write, flushed when durable), reads the delta from the log and applies it to the view.
public final class ViewLogLiveView {
    public let store: LogStore
    public let controller: ResultsController
    private var updates: UpdateStream

    public init(path: String, items: [(id: Int, score: Int64)], durable: Bool, kind: ViewChangeKind) {
        do {
            store = try LogStore.create(at: path, schema: Workload.schema(),
                                        options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30))
            try loadItems(store, items)
            let objects = try store.objects(of: Workload.entityName)
            controller = try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                               objects: objects.lazy.map { ($0.id, $0.values) },
                                               position: try store.head)
        } catch { fatalError("ViewLog live view: \(error)") }
        updates = UpdateStream(items: items, kind: kind)
    }

    /// The next update as a request.
    public func nextRequest() -> ChangeRequest {
        let u = updates.next()
        return .update(entity: Workload.entityName, id: .int(Int64(u.id)), values: ["score": .int(u.newScore)])
    }

    /// Append → delta → apply: the change set a UI would get.
    @inline(never)
    public func step(_ request: ChangeRequest) {
        do {
            let t = try store.append([request], author: Workload.author)
            let delta = try store.delta(from: controller.position, to: t.seq, entities: [Workload.entityName])
            let changes = controller.apply(delta)
            precondition(!changes.isEmpty, "a benchmark change left the view unchanged")
        } catch { fatalError("step: \(error)") }
    }
}

/// Inserts `items` into `store` in transactions of 10,000 changes, 10 transactions per LMDB write.
public func loadItems(_ store: LogStore, _ items: [(id: Int, score: Int64)]) throws {
    var batch: [TransactionRequest] = []
    var i = 0
    while i < items.count {
        let chunk = items[i..<min(i + 10_000, items.count)]
        batch.append(TransactionRequest(author: Workload.author, changes: chunk.map {
            .insert(entity: Workload.entityName, id: .int(Int64($0.id)), values: Workload.values($0.id, score: $0.score))
        }))
        i += chunk.count
        if batch.count == 10 || i == items.count {
            try store.append(batch)
            batch.removeAll()
        }
    }
}

// MARK: - GRDB

/// The same query in SQL, over the covering index `item_score(score)` (the rowid `id` is in every index entry).
public enum GRDBWorkload {
    public static let idsQuery = "SELECT id FROM item WHERE score >= 0 ORDER BY score, id"
    public static let rowsQuery = "SELECT id, name, score, active FROM item WHERE score >= 0 ORDER BY score, id"

    /// GRDB's fastest setup: a DatabasePool (WAL), the index, and the same durability as the ViewLog store
    /// (`synchronous = FULL` flushes the WAL on every commit; `OFF` never flushes, like MDB_NOSYNC).
    public static func makePool(path: String, items: [(id: Int, score: Int64)], durable: Bool) -> DatabasePool {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            // Set on `prepareDatabase` alone, the writer did not flush per commit (strace: 9 fdatasync for 50
            // commits, as WAL's NORMAL does): set it on the writer, the one connection that commits, directly.
            // Checked with strace: FULL now gives one fdatasync per commit, OFF none.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
            }
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL,
                                       active INTEGER NOT NULL DEFAULT 1);
                    CREATE INDEX item_score ON item(score);
                    """)
                // One transaction, one prepared statement.
                let insert = try db.makeStatement(sql: "INSERT INTO item (id, name, score, active) VALUES (?, ?, ?, 1)")
                for item in items {
                    try insert.execute(arguments: [item.id, Workload.name(item.id), item.score])
                }
            }
            // Copy the bulk load out of the WAL now, so that no step pays for (or waits behind) that checkpoint.
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            return pool
        } catch { fatalError("GRDB setup: \(error)") }
    }

    /// SQLite's plan for `sql` (proof that the index is used and no temporary B-tree sorts).
    public static func queryPlan(_ pool: DatabasePool, _ sql: String) -> String {
        do {
            return try pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { ($0["detail"] as String?) ?? "" }
                    .joined(separator: "; ")
            }
        } catch { return "unknown: \(error)" }
    }
}

/// Values that a GRDB observation delivers on its queue, handed to the benchmark thread.
final class Inbox: Sendable {
    let values = Locked<[[Int64]]>([])
    let ready = DispatchSemaphore(value: 0)

    func put(_ ids: [Int64]) {
        values.withLock { $0.append(ids) }
        ready.signal()
    }

    func take() -> [Int64] {
        ready.wait()
        return values.withLock { $0.removeFirst() }
    }

    /// Drops what arrived without being waited for; returns the newest of it.
    func drain() -> [Int64]? {
        var newest: [Int64]?
        while ready.wait(timeout: .now()) == .success { newest = values.withLock { $0.removeFirst() } }
        return newest
    }
}

/// A GRDB database of `n` items observed by `ValueObservation.trackingConstantRegion` of the view's ids. One
/// step commits one update, waits for the fresh array, and computes the `CollectionDifference` of ids that a
/// UI needs to animate a table.
public final class GRDBLiveView {
    public let pool: DatabasePool
    private var cancellable: AnyDatabaseCancellable?
    private let inbox = Inbox()
    private var current: [Int64]
    private var updates: UpdateStream
    private let queue = DispatchQueue(label: "grdb-observation")
    /// Size of the last difference (kept so that the work is not optimized away).
    public private(set) var lastDifferenceCount = 0

    public init(path: String, items: [(id: Int, score: Int64)], durable: Bool, kind: ViewChangeKind) {
        pool = GRDBWorkload.makePool(path: path, items: items, durable: durable)
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int64.fetchAll(db, sql: GRDBWorkload.idsQuery)
        }
        let inbox = self.inbox
        cancellable = observation.start(in: pool, scheduling: .async(onQueue: queue),
                                        onError: { error in fatalError("observation: \(error)") },
                                        onChange: { ids in inbox.put(ids) })
        current = inbox.take()
        // With a pool, GRDB may deliver the initial value twice (a reader's fetch, then the writer's check).
        usleep(200_000)
        if let newer = inbox.drain() { current = newer }
        updates = UpdateStream(items: items, kind: kind)
    }

    public func nextUpdate() -> ScoreUpdate { updates.next() }

    /// Commit → fresh array → difference.
    @inline(never)
    public func step(_ u: ScoreUpdate) {
        do {
            try pool.write { db in
                try db.execute(sql: "UPDATE item SET score = ? WHERE id = ?", arguments: [u.newScore, u.id])
            }
        } catch { fatalError("GRDB update: \(error)") }
        let fresh = inbox.take()
        let difference = fresh.difference(from: current)
        // May be empty: a new score that keeps the row's place leaves the ids as they were.
        lastDifferenceCount = difference.count
        current = fresh
    }

    /// Stops the observation and closes the database before its files are removed. Dropping the view only cancels
    /// the observation: a fetch it had started could still open a reader on the path after the files were removed
    /// and a new database made there (the report's no-sync phase reuses the path), and fail with SQLite's
    /// "disk I/O error".
    public func close() {
        cancellable?.cancel()
        cancellable = nil
        queue.sync {}  // whatever the observation had scheduled has run
        do { try pool.close() } catch { fatalError("GRDB close: \(error)") }
    }

    deinit { cancellable?.cancel() }
}
