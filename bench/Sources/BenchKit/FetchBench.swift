import GRDB
@_spi(Engine) import ViewLog

/// A row as a GRDB user fetches it: a plain struct decoded by column index (GRDB's fastest record decoding).
public struct ItemRecord: FetchableRecord, Sendable {
    public var id: Int64
    public var name: String
    public var score: Int64
    public var active: Bool

    public init(row: Row) throws {
        id = row[0]
        name = row[1]
        score = row[2]
        active = row[3]
    }
}

/// ViewLog's initial fetch as an application makes it: a context's results controller, which reads every object of
/// the entity from the object store — decoding only the attributes the view reads — then filters, sorts and
/// builds its tree.
@inline(never)
public func viewLogInitialFetch(_ store: LogStore) -> ResultsController {
    do {
        return try Context(store: store, name: "bench").makeResultsController(Workload.fetchRequest())
    } catch { fatalError("initial fetch: \(error)") }
}

/// The initial fetch from whole objects (`LogStore.objects(of:)` decodes every attribute), as before contexts
/// decoded only a view's attributes: kept to measure what that saves.
@inline(never)
public func viewLogInitialFetchOfWholeObjects(_ store: LogStore) -> ResultsController {
    do {
        let objects = try store.objects(of: Workload.entityName)
        return try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                     objects: objects.lazy.map { ($0.id, $0.values) }, position: try store.head)
    } catch { fatalError("initial fetch: \(error)") }
}

/// GRDB fetching the same rows in the same order, as records.
@inline(never)
public func grdbFetchRecords(_ pool: DatabasePool) -> [ItemRecord] {
    do { return try pool.read { db in try ItemRecord.fetchAll(db, sql: GRDBWorkload.rowsQuery) } } catch {
        fatalError("GRDB fetch: \(error)")
    }
}

/// GRDB fetching only the ids in view order (the covering index alone; what the observation fetches).
@inline(never)
public func grdbFetchIDs(_ pool: DatabasePool) -> [Int64] {
    do { return try pool.read { db in try Int64.fetchAll(db, sql: GRDBWorkload.idsQuery) } } catch {
        fatalError("GRDB fetch: \(error)")
    }
}

/// Heap bytes a live view of `items` keeps, measured around its construction (the objects it is built from
/// are made before and freed after). Returns (bytes per row, mallocs are not counted here).
public func viewHeapBytesPerRow(items: [(id: Int, score: Int64)]) -> Double {
    let objects = items.map { (ObjectID.int(Int64($0.id)), Workload.values($0.id, score: $0.score)) }
    let before = heapBytesInUse()
    let controller: ResultsController
    do {
        controller = try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                           objects: objects, position: 1)
    } catch { fatalError("controller: \(error)") }
    let after = heapBytesInUse()
    return withExtendedLifetime((controller, objects)) { Double(after - before) / Double(items.count) }
}
