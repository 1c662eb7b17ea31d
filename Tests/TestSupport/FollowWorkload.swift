@_spi(Engine) import ViewLog

/// Random bursts of transactions over departments and employees, for the tests of the follow loop (`watch`, the
/// server's watch): named views of every kind a follow can hold — a stored window, a window with an offset, a
/// sectioned view, windows over to-one paths and over aggregates of a to-many inverse.
public struct FollowWorkload {
    public static let schemaText = """
        {"entities": {
          "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
          "Employee": {"id": "int", "attributes": {
              "name": {"type": "string"}, "height": {"type": "int", "optional": true},
              "sectionName": {"type": "string", "default": ""}, "salary": {"type": "double", "default": 0},
              "active": {"type": "bool", "default": true}},
            "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
         "views": {
           "window": {"entity": "Employee", "where": "height > 150", "sort": "height desc, name", "limit": 3},
           "page": {"entity": "Employee", "sort": "name", "limit": 3, "offset": 2},
           "sections": {"entity": "Employee", "where": "active == YES", "sort": "sectionName, name", "section": "sectionName"},
           "byDepartment": {"entity": "Employee", "sort": "department.name, name", "limit": 4},
           "headcount": {"entity": "Department", "where": "ANY employees.height > 150",
                         "sort": "employees.@count desc, employees.@max.height, name", "limit": 2}}}
        """

    /// The views of ``schemaText`` by name.
    public static let viewNames = ["window", "page", "sections", "byDepartment", "headcount"]

    public private(set) var employees: Set<Int64> = []
    public private(set) var departments: Set<Int64> = []
    private var nextID: Int64 = 1
    private var rng: SeededGenerator

    public init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    /// The schema of ``schemaText``.
    public static func schema() throws -> Schema { try Schema(jsonText: schemaText) }

    /// Appends the first objects: 4 departments and 16 employees, in one transaction.
    public mutating func setUp(_ store: LogStore) throws {
        var changes: [ChangeRequest] = []
        for _ in 0..<4 { changes.append(insertDepartment()) }
        for _ in 0..<16 { changes.append(insertEmployee()) }
        try store.append(changes, author: "setup")
    }

    /// Appends one random transaction of 1–3 changes (never fewer than 8 employees or 2 departments, so that every
    /// view keeps rows); a refused one (a department deleted that employees still name… ) is not counted.
    /// - Returns: whether it was appended.
    @discardableResult
    public mutating func appendOne(_ store: LogStore, appended record: ([ChangeRequest]) -> Void = { _ in }) throws -> Bool {
        let savedEmployees = employees, savedDepartments = departments
        var changes: [ChangeRequest] = []
        var touched = Set<Int64>()
        for _ in 0..<rng.int(1...3) {
            let roll = rng.int(0...99)
            if roll < 12 || employees.count < 8 {
                changes.append(insertEmployee())
            } else if roll < 20, employees.count > 10 {
                let id = rng.pick(employees.sorted())
                guard touched.insert(id).inserted else { continue }
                employees.remove(id)
                changes.append(.delete(entity: "Employee", id: .int(id)))
            } else if roll < 25 {
                changes.append(insertDepartment())
            } else if roll < 28, departments.count > 2 {
                let id = rng.pick(departments.sorted())
                departments.remove(id)
                changes.append(.delete(entity: "Department", id: .int(id)))
            } else if roll < 35, let id = departments.sorted().randomElement(using: &rng) {
                changes.append(.update(entity: "Department", id: .int(id), values: ["name": .string(name())]))
            } else {
                let id = rng.pick(employees.sorted())
                guard touched.insert(id).inserted else { continue }
                changes.append(.update(entity: "Employee", id: .int(id), values: employeeValues(some: true)))
            }
        }
        guard !changes.isEmpty else { return false }
        do {
            try store.append(changes, author: "burst")
            record(changes)
            return true
        } catch {
            guard case .invalidChange = error else { throw error }
            employees = savedEmployees
            departments = savedDepartments
            return false
        }
    }

    private mutating func insertEmployee() -> ChangeRequest {
        insertEmployee(employeeValues(some: false))
    }

    /// The insert of a new employee with `values`, counted among ``employees``.
    public mutating func insertEmployee(_ values: ObjectValues) -> ChangeRequest {
        let id = nextID
        nextID += 1
        employees.insert(id)
        return .insert(entity: "Employee", id: .int(id), values: values)
    }

    private mutating func insertDepartment() -> ChangeRequest {
        let id = nextID
        nextID += 1
        departments.insert(id)
        return .insert(entity: "Department", id: .int(id), values: ["name": .string(name())])
    }

    private mutating func name() -> String { rng.pick(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]) + String(rng.int(0...3)) }

    /// An employee's values: all of them, or (`some`) one to three of them.
    private mutating func employeeValues(some: Bool) -> ObjectValues {
        var all: ObjectValues = [
            "name": .string(name()),
            "height": rng.chance(0.1) ? .null : .int(Int64(rng.int(14...20) * 10)),
            "sectionName": .string(rng.pick(["A", "B", "C"])),
            "salary": .double(Double(rng.int(0...4)) * 1.5),
            "active": .bool(rng.chance(0.7)),
        ]
        if !departments.isEmpty, rng.chance(0.9) { all["department"] = .int(rng.pick(departments.sorted())) }
        guard some else { return all }
        var out: ObjectValues = [:]
        let keys = all.keys.sorted()
        for _ in 0..<rng.int(1...3) {
            let k = rng.pick(keys)
            out[k] = all[k]
        }
        if out.isEmpty { out["name"] = all["name"] }
        return out
    }
}
