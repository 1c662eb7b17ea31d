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
