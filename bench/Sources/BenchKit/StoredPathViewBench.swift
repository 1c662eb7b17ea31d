@_spi(Engine) import ViewLog

/// What a stored named view over a to-one key path (DESIGN §10, §11: `department.name, name`) costs the writes that
/// move its rows: two stores of the same organization, one whose schema stores the view and one without it, take
/// turns appending the same one-change transactions — a department of `k` employees renamed (k rows move, found
/// through the relationships index), and an employee renamed (one row). Nanoseconds per append, by store and change.
public struct StoredPathViewAppend: Sendable {
    public var renameDepartment: (without: Timing, with: Timing)
    public var renameEmployee: (without: Timing, with: Timing)
    /// The department's `floor` changed: an attribute the view's path does not read (no row moves, none is visited).
    public var moveDepartment: (without: Timing, with: Timing)
}

public func measureStoredPathViewAppend(root: String, employees n: Int, k: Int, reps: Int, durable: Bool) -> StoredPathViewAppend {
    let org = Org(employees: n, special: [k])
    let withView: Schema
    do {
        var schema = RelWorkload.schema()
        schema.views = ["byDepartment": ViewDefinition(entity: "Employee", sort: RelWorkload.sort)]
        withView = schema
    }
    let stores = [
        makeRelStore(path: scratchPath(root, "path-view-none-\(n)"), org: org, durable: durable),
        makeRelStore(path: scratchPath(root, "path-view-stored-\(n)"), org: org, durable: durable, schema: withView),
    ]
    defer {
        removeTree(root + "/path-view-none-\(n)")
        removeTree(root + "/path-view-stored-\(n)")
    }
    var changes = RelChangeStream(seed: 7)
    var department: [[Double]] = [[], []], employee: [[Double]] = [[], []], floor: [[Double]] = [[], []]
    for r in 0..<reps {
        let rename = changes.departmentRename(1...1).request  // department 1 holds the k employees
        let person = changes.employeeRename(n: n).request
        let move = ChangeRequest.update(entity: "Department", id: .int(1), values: ["floor": .int(Int64(r % 7 + 10))])
        for (s, store) in stores.enumerated() {
            floor[s].append(time { do { try store.append([move], author: RelWorkload.author) } catch { fatalError("append: \(error)") } })
            department[s].append(time { do { try store.append([rename], author: RelWorkload.author) } catch { fatalError("append: \(error)") } })
            employee[s].append(time { do { try store.append([person], author: RelWorkload.author) } catch { fatalError("append: \(error)") } })
        }
    }
    do {
        let problems = try stores[1].verify().problems
        precondition(problems.isEmpty, "the stored view over key paths: \(problems)")
    } catch { fatalError("verify: \(error)") }
    return StoredPathViewAppend(renameDepartment: (Timing(department[0]), Timing(department[1])),
                                renameEmployee: (Timing(employee[0]), Timing(employee[1])),
                                moveDepartment: (Timing(floor[0]), Timing(floor[1])))
}

/// What a stored named view over aggregates of a to-many inverse (DESIGN §10, §11: departments by
/// `employees.@count desc, employees.@max.salary`, filtered by `ANY employees.salary > 190000`) costs: the load, and
/// the one-change writes that change a target's state — an employee's salary (its department's state and member
/// entry), an employee moved to another department (two targets), an employee renamed (nothing the view reads: no
/// state touched). Two stores of the same organization, one storing the view, take turns.
public struct StoredAggregateViewAppend: Sendable {
    public var load: (without: Double, with: Double)
    public var salary: (without: Timing, with: Timing)
    public var move: (without: Timing, with: Timing)
    public var rename: (without: Timing, with: Timing)
}

public func measureStoredAggregateViewAppend(root: String, employees n: Int, reps: Int, durable: Bool) -> StoredAggregateViewAppend {
    let org = Org(employees: n)
    var withView = RelWorkload.schema()
    withView.views = ["departments": ViewDefinition(entity: "Department", predicate: "ANY employees.salary > 190000",
                                                    sort: "employees.@count desc, employees.@max.salary, name")]
    var stores: [LogStore] = []
    var load: [Double] = []
    for (s, schema) in [RelWorkload.schema(), withView].enumerated() {
        var store: LogStore?
        load.append(time { store = makeRelStore(path: scratchPath(root, "aggregate-view-\(s)-\(n)"), org: org, durable: durable, schema: schema) })
        stores.append(store!)
    }
    defer { for s in 0..<2 { removeTree(root + "/aggregate-view-\(s)-\(n)") } }
    var g = SeededGenerator(seed: 11)
    let departments = org.departments.count
    var salary: [[Double]] = [[], []], move: [[Double]] = [[], []], rename: [[Double]] = [[], []]
    for _ in 0..<reps {
        let paid = ChangeRequest.update(entity: "Employee", id: .int(Int64.random(in: 1...Int64(n), using: &g)),
                                        values: ["salary": .int(Int64.random(in: 0..<200_000, using: &g))])
        let moved = ChangeRequest.update(entity: "Employee", id: .int(Int64.random(in: 1...Int64(n), using: &g)),
                                         values: ["department": .int(Int64.random(in: 1...Int64(departments), using: &g))])
        let renamed = ChangeRequest.update(entity: "Employee", id: .int(Int64.random(in: 1...Int64(n), using: &g)),
                                           values: ["name": .string(RelWorkload.employeeName(&g))])
        for (s, store) in stores.enumerated() {
            func run(_ c: ChangeRequest) -> Double { time { do { try store.append([c], author: RelWorkload.author) } catch { fatalError("append: \(error)") } } }
            salary[s].append(run(paid))
            move[s].append(run(moved))
            rename[s].append(run(renamed))
        }
    }
    do {
        let problems = try stores[1].verify().problems
        precondition(problems.isEmpty, "the stored view over aggregates: \(problems)")
        let stored = try stores[1].storedViewStatistics().first?.isStored == true
        precondition(stored, "the view over aggregates is stored")
    } catch { fatalError("verify: \(error)") }
    return StoredAggregateViewAppend(load: (load[0], load[1]), salary: (Timing(salary[0]), Timing(salary[1])),
                                     move: (Timing(move[0]), Timing(move[1])), rename: (Timing(rename[0]), Timing(rename[1])))
}
