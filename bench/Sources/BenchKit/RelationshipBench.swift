import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import GRDB
@_spi(Engine) import ViewLog

// Relationships (DESIGN §10) beside GRDB (DESIGN §8's relationship rows): employees in departments, a view sorted
// (and filtered) through `department`, and the same JOIN observed by GRDB's ValueObservation.

/// The data: `Department` (int id; `name` unique, `floor` = id % 10) and `Employee` (int id; `name`, `salary`, an
/// optional `department`). Views sort by `department.name, name` (ties by id); GRDB runs the same JOIN ordered
/// `d.name, e.name, e.id` over `department(name)` (UNIQUE: a department's employees are then contiguous, so SQLite
/// needs no sort) and `employee(department, name)` (the rowid `id` is in every entry).
public enum RelWorkload {
    public static let schemaJSON = """
    {"entities": {
      "Employee": {"id": "int", "attributes": {"name": {"type": "string"}, "salary": {"type": "int"}},
        "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}},
      "Department": {"id": "int", "attributes": {"name": {"type": "string"}, "floor": {"type": "int"}}}
    }}
    """
    public static let sort = "department.name, name"
    public static let filter = "department.floor > 2"
    public static let author = "bench"

    public static func schema() -> Schema {
        do { return try Schema(jsonText: schemaJSON) } catch { fatalError("relationship schema: \(error)") }
    }

    /// The view of every employee sorted by `department.name, name`, sectioned by `department.name` or not;
    /// `filtered` adds `department.floor > 2`.
    public static func request(sectioned: Bool = false, filtered: Bool = false) -> ViewLog.FetchRequest {
        do {
            return ViewLog.FetchRequest(entity: "Employee", predicate: filtered ? try ViewPredicate(filter) : .all,
                                sortDescriptors: try ViewSortDescriptor.parse(sort),
                                sectionKey: sectioned ? "department.name" : nil)
        } catch { fatalError("relationship request: \(error)") }
    }

    public static let idsSQL = """
        SELECT e.id FROM employee e JOIN department d ON d.id = e.department ORDER BY d.name, e.name, e.id
        """
    public static let filteredIdsSQL = """
        SELECT e.id FROM employee e JOIN department d ON d.id = e.department WHERE d.floor > 2
        ORDER BY d.name, e.name, e.id
        """
    /// What a ViewLog row of the filtered view holds: the employee's values and its path values.
    public static let filteredRowsSQL = """
        SELECT e.id, e.name, e.salary, e.department, d.name, d.floor FROM employee e
        JOIN department d ON d.id = e.department WHERE d.floor > 2 ORDER BY d.name, e.name, e.id
        """

    /// A department's name: random (so ids are not in name order), unique through the id suffix.
    static func departmentName(_ id: Int, _ g: inout SeededGenerator) -> String {
        "d\(Int.random(in: 0..<100_000_000, using: &g))-\(id)"
    }

    static func employeeName(_ g: inout SeededGenerator) -> String {
        "e\(Int.random(in: 0..<1_000_000_000, using: &g))"
    }
}

/// Departments and employees: departments 1… `special.count` have exactly `special[i]` employees; the other
/// employees fill departments of `fill` each. Members are drawn at random among the employee ids.
public struct Org: Sendable {
    public struct Department: Sendable { public var id: Int; public var name: String; public var floor: Int }
    public struct Employee: Sendable { public var id: Int; public var name: String; public var salary: Int; public var department: Int }
    public var departments: [Department] = []
    public var employees: [Employee] = []

    public init(employees n: Int, special: [Int] = [], fill: Int = 1_000, seed: UInt64 = 42) {
        var g = SeededGenerator(seed: seed)
        var assignment: [Int] = []
        assignment.reserveCapacity(n)
        for (i, k) in special.enumerated() { assignment += repeatElement(i + 1, count: k) }
        precondition(assignment.count <= n, "special departments hold more than \(n) employees")
        var d = special.count
        while assignment.count < n {
            d += 1
            assignment += repeatElement(d, count: min(fill, n - assignment.count))
        }
        assignment.shuffle(using: &g)
        departments = (1...d).map { Department(id: $0, name: RelWorkload.departmentName($0, &g), floor: $0 % 10) }
        employees = (0..<n).map { Employee(id: $0 + 1, name: RelWorkload.employeeName(&g), salary: Int.random(in: 0..<200_000, using: &g),
                                           department: assignment[$0]) }
    }

    /// Department ids whose floor passes `department.floor > 2`.
    public var filteredRows: Int {
        let passing = Set(departments.filter { $0.floor > 2 }.map(\.id))
        return employees.count { passing.contains($0.department) }
    }
}

/// One change of either side, with the new value: an employee renamed (it moves inside its department) or a
/// department renamed (its employees move together).
public enum RelChange: Sendable {
    case employeeName(id: Int, name: String)
    case departmentName(id: Int, name: String)

    public var request: ChangeRequest {
        switch self {
        case .employeeName(let id, let name): .update(entity: "Employee", id: .int(Int64(id)), values: ["name": .string(name)])
        case .departmentName(let id, let name): .update(entity: "Department", id: .int(Int64(id)), values: ["name": .string(name)])
        }
    }
}

/// Seeded changes: employee renames over employees 1…n, department renames of the departments `ids`.
public struct RelChangeStream: Sendable {
    var g: SeededGenerator
    var serial = 0
    public init(seed: UInt64) { g = SeededGenerator(seed: seed) }

    public mutating func employeeRename(n: Int) -> RelChange {
        .employeeName(id: Int.random(in: 1...n, using: &g), name: RelWorkload.employeeName(&g))
    }

    public mutating func departmentRename(_ ids: ClosedRange<Int>) -> RelChange {
        let id = Int.random(in: ids, using: &g)
        serial += 1
        // The serial keeps two renames of one department from giving it the same name (an empty change set).
        return .departmentName(id: id, name: "d\(Int.random(in: 0..<100_000_000, using: &g))-\(id)-\(serial)")
    }
}

// MARK: - ViewLog

/// Makes a ViewLog store holding `org` (departments first, then employees in transactions of 10,000 changes, ten
/// transactions per LMDB write).
public func makeRelStore(path: String, org: Org, durable: Bool, schema: Schema = RelWorkload.schema()) -> LogStore {
    do {
        let store = try LogStore.create(at: path, schema: schema,
                                        options: StoreOptions(durable: durable, mapSizeBytes: 1 << 33))
        var changes: [ChangeRequest] = org.departments.map {
            .insert(entity: "Department", id: .int(Int64($0.id)), values: ["name": .string($0.name), "floor": .int(Int64($0.floor))])
        }
        try store.append(changes, author: RelWorkload.author)
        var batch: [TransactionRequest] = []
        var i = 0
        while i < org.employees.count {
            let chunk = org.employees[i..<min(i + 10_000, org.employees.count)]
            changes = chunk.map {
                .insert(entity: "Employee", id: .int(Int64($0.id)),
                        values: ["name": .string($0.name), "salary": .int(Int64($0.salary)), "department": .int(Int64($0.department))])
            }
            batch.append(TransactionRequest(author: RelWorkload.author, changes: changes))
            i += chunk.count
            if batch.count == 10 || i == org.employees.count {
                try store.append(batch)
                batch.removeAll()
            }
        }
        return store
    } catch { fatalError("relationship store: \(error)") }
}

/// A context's results controller over key paths, at the head: one step appends one change (one transaction) and
/// refreshes the context; the step ends when the controller has delivered its change set.
public final class ViewLogRelationalView {
    public let store: LogStore
    public let context: Context
    public let controller: ResultsController
    private var observation: ViewObservation?
    private final class Box { var rows = 0 }
    private let delivered = Box()

    public init(store: LogStore, request: ViewLog.FetchRequest) {
        self.store = store
        do {
            context = try Context(store: store, name: "bench")
            controller = try context.makeResultsController(request)
        } catch { fatalError("relational view: \(error)") }
        let box = delivered
        observation = controller.observe { event in
            if case .changes(let changes) = event { box.rows += changes.rowChanges.count }
        }
    }

    /// Append → refresh → change set delivered. Returns the whole step's and the refresh's nanoseconds, the number of
    /// row changes delivered (never 0: traps otherwise) and the process's CPU nanoseconds (user + sys) over the step.
    @inline(never)
    public func step(_ change: ChangeRequest) -> (total: Double, refresh: Double, rows: Int, cpu: Double) {
        delivered.rows = 0
        let c0 = processCPUNanoseconds()
        let t0 = nowNanoseconds()
        do { try store.append([change], author: RelWorkload.author) } catch { fatalError("append: \(error)") }
        let t1 = nowNanoseconds()
        do { try context.refresh() } catch { fatalError("refresh: \(error)") }
        let t2 = nowNanoseconds()
        let c2 = processCPUNanoseconds()
        precondition(delivered.rows > 0, "a benchmark change left the view unchanged")
        return (Double(t2 - t0), Double(t2 - t1), delivered.rows, Double(c2 - c0))
    }

    /// Row ids in view order.
    public var ids: [Int64] {
        controller.snapshot.rowIDs.map { id -> Int64 in
            guard case .int(let v) = id else { fatalError("int ids") }
            return v
        }
    }
}

/// ViewLog's initial fetch of a view over key paths, as an application makes it.
@inline(never)
public func viewLogRelationalFetch(_ store: LogStore, _ request: ViewLog.FetchRequest) -> ResultsController {
    do { return try Context(store: store, name: "bench").makeResultsController(request) } catch {
        fatalError("relational fetch: \(error)")
    }
}

// MARK: - GRDB

/// A row of the JOIN as a GRDB user fetches it: the employee's columns and its department's, by column index.
public struct EmployeeDepartmentRecord: FetchableRecord, Sendable {
    public var id: Int64
    public var name: String
    public var salary: Int64
    public var department: Int64
    public var departmentName: String
    public var departmentFloor: Int64

    public init(row: Row) throws {
        id = row[0]
        name = row[1]
        salary = row[2]
        department = row[3]
        departmentName = row[4]
        departmentFloor = row[5]
    }
}

public enum GRDBRelWorkload {
    /// A DatabasePool (WAL) holding `org`, with the indexes the JOIN's order needs and the same durability as the
    /// ViewLog store (as ``GRDBWorkload/makePool(path:items:durable:)``); ANALYZEd.
    public static func makePool(path: String, org: Org, durable: Bool) -> DatabasePool {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "OFF")") }
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "OFF")") }
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE department (id INTEGER PRIMARY KEY, name TEXT NOT NULL, floor INTEGER NOT NULL);
                    CREATE UNIQUE INDEX department_name ON department(name);
                    CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary INTEGER NOT NULL,
                                           department INTEGER REFERENCES department(id));
                    CREATE INDEX employee_department_name ON employee(department, name);
                    """)
                let d = try db.makeStatement(sql: "INSERT INTO department (id, name, floor) VALUES (?, ?, ?)")
                for x in org.departments { try d.execute(arguments: [x.id, x.name, x.floor]) }
                let e = try db.makeStatement(sql: "INSERT INTO employee (id, name, salary, department) VALUES (?, ?, ?, ?)")
                for x in org.employees { try e.execute(arguments: [x.id, x.name, x.salary, x.department]) }
                try db.execute(sql: "ANALYZE")
            }
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            return pool
        } catch { fatalError("GRDB relationship setup: \(error)") }
    }

    public static func fetchIDs(_ pool: DatabasePool, _ sql: String) -> [Int64] {
        do { return try pool.read { db in try Int64.fetchAll(db, sql: sql) } } catch { fatalError("GRDB fetch: \(error)") }
    }
}

/// GRDB fetching the filtered JOIN's rows in view order, as records.
@inline(never)
public func grdbFetchJoinRecords(_ pool: DatabasePool) -> [EmployeeDepartmentRecord] {
    do { return try pool.read { db in try EmployeeDepartmentRecord.fetchAll(db, sql: RelWorkload.filteredRowsSQL) } } catch {
        fatalError("GRDB fetch: \(error)")
    }
}

/// `ValueObservation.trackingConstantRegion` of the JOIN's ids (both tables are in its region). One step commits one
/// change, waits for the fresh array, then computes the `CollectionDifference` of ids.
public final class GRDBJoinView {
    public let pool: DatabasePool
    private var cancellable: AnyDatabaseCancellable?
    private let inbox = Inbox()
    public private(set) var current: [Int64]
    private let queue = DispatchQueue(label: "grdb-join-observation")
    public private(set) var lastDifferenceCount = 0

    public init(pool: DatabasePool, sql: String) {
        self.pool = pool
        let observation = ValueObservation.trackingConstantRegion { db in try Int64.fetchAll(db, sql: sql) }
        let inbox = self.inbox
        cancellable = observation.start(in: pool, scheduling: .async(onQueue: queue),
                                        onError: { error in fatalError("observation: \(error)") },
                                        onChange: { ids in inbox.put(ids) })
        current = inbox.take()
        usleep(300_000)
        if let newer = inbox.drain() { current = newer }
    }

    /// Commit → fresh array (`array` ns) → difference (`difference` ns); `arrayCPU`: the process's CPU time (user +
    /// sys, every thread: the writer's and the observation's fetch) until the array is delivered.
    @inline(never)
    public func step(_ change: RelChange) -> (array: Double, difference: Double, arrayCPU: Double) {
        let c0 = processCPUNanoseconds()
        let t0 = nowNanoseconds()
        do {
            try pool.write { db in
                switch change {
                case .employeeName(let id, let name):
                    try db.execute(sql: "UPDATE employee SET name = ? WHERE id = ?", arguments: [name, id])
                case .departmentName(let id, let name):
                    try db.execute(sql: "UPDATE department SET name = ? WHERE id = ?", arguments: [name, id])
                }
            }
        } catch { fatalError("GRDB update: \(error)") }
        let fresh = inbox.take()
        let t1 = nowNanoseconds()
        let c1 = processCPUNanoseconds()
        let difference = fresh.difference(from: current)
        let t2 = nowNanoseconds()
        lastDifferenceCount = difference.count
        current = fresh
        return (Double(t1 - t0), Double(t2 - t1), Double(c1 - c0))
    }

    public func close() {
        cancellable?.cancel()
        cancellable = nil
        queue.sync {}
        do { try pool.close() } catch { fatalError("GRDB close: \(error)") }
    }

    deinit { cancellable?.cancel() }
}

// MARK: - Report

public struct RelationshipReport: Codable, Sendable {
    /// Update → change set at `size` employees, against GRDB, no sync on both sides.
    public struct UpdateRow: Codable, Sendable {
        public var size: Int
        public var departments: Int
        /// "employee-name" or "department-name".
        public var change: String
        public var sectioned: Bool
        public var viewlog: Timing
        public var viewlogRefresh: Timing
        public var viewlogRowChanges: Double
        /// The process's CPU time over a ViewLog step (user + sys): what the step cost when the machine was busy.
        public var viewlogCPU: Timing
        public var grdbArray: Timing
        public var grdbDifference: Timing
        public var grdbArrayPlusDifference: Timing
        /// The process's CPU time until GRDB delivered the array (its writer and its observation's fetch).
        public var grdbArrayCPU: Timing
    }
    /// A department of `k` employees renamed in a view of `n` rows (ViewLog alone).
    public struct FanOutRow: Codable, Sendable {
        public var n: Int
        public var k: Int
        public var viewlog: Timing
        public var viewlogRefresh: Timing
        public var viewlogCPU: Timing
        public var viewlogBuildNs: Double
        /// Heap bytes per row the live view over key paths keeps (mallinfo2 around its build, the store's objects
        /// freed), and the same for a view of the same rows without key paths (sorted by `name`), for comparison.
        public var viewlogHeapBytesPerRow: Double?
        public var flatHeapBytesPerRow: Double?
        /// GRDB's observed JOIN of the same data, the same renames (views of at most ``RelationshipBenchOptions/fanOutGRDBMax`` rows).
        public var grdbArray: Timing?
        public var grdbDifference: Timing?
        public var grdbArrayCPU: Timing?
    }
    public struct FetchRow: Codable, Sendable {
        public var size: Int
        public var rows: Int
        public var viewlog: Timing
        public var grdbRecords: Timing
        public var grdbIDs: Timing
    }
    public var updates: [UpdateRow] = []
    public var fanOut: [FanOutRow] = []
    public var fetch: [FetchRow] = []
    public var grdbPlans: [String: String] = [:]
    public var peakResidentBytes = 0
    public var seconds = 0.0
    public init() {}
}

/// SQLite's plan for `sql`.
public func grdbQueryPlan(_ pool: DatabasePool, _ sql: String) -> String {
    do {
        return try pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { ($0["detail"] as String?) ?? "" }.joined(separator: "; ")
        }
    } catch { return "unknown: \(error)" }
}
