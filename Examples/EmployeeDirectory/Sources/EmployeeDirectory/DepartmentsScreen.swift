import Foundation
import ViewLog

/// A department (DESIGN §10): employees name it through their to-one `department`.
public struct Department: EntityType, Equatable, Sendable {
    public static let entityName = "Department"
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// A staff member in a department: a to-one relationship is a property of the target's id type.
public struct StaffMember: EntityType, Equatable, Sendable {
    public static let entityName = "Employee"
    public var id: String
    public var name: String
    public var department: Int?

    public init(id: String, name: String, department: Int? = nil) {
        self.id = id
        self.name = name
        self.department = department
    }
}

/// The company's schema: employees in departments, a view sectioned by the department's name.
public let companySchemaText = """
    {"entities": {
      "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
      "Employee": {"id": "string", "attributes": {"name": {"type": "string"}},
        "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
     "views": {"byDepartment": {"entity": "Employee", "sort": "department.name, name", "section": "department.name"}}}
    """

/// A main-actor screen of employees by department, the `sectionNameKeyPath: "department.name"` screen of a Core Data
/// app: when another context renames a department, its employees move to the new section in one batch.
@MainActor
public final class DepartmentsScreen {
    public let context: Context
    public let controller: ResultsController
    /// Section names (a department's name, `nil` for employees without one) and, per section, the employees' names.
    public private(set) var sections: [(name: String?, rows: [String])] = []

    public init(store: LogStore) throws {
        context = try Context(store: store, name: "ui")
        controller = try context.makeResultsController(view: "byDepartment")
        controller.delegate = self
        try reloadRows()
    }

    private func reloadRows() throws {
        sections = try controller.sections(as: StaffMember.self).map { ($0.section.name, $0.objects.map(\.name)) }
    }
}

extension DepartmentsScreen: @MainActor ResultsControllerDelegate {
    public func controllerDidChangeContent(_ controller: ResultsController) {
        try? reloadRows()
    }

    public func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {
        try? reloadRows()
    }
}

/// Renames a department from a context of its own, as a background sync would.
public func rename(department id: Int, to name: String, in store: LogStore) throws {
    let writer = try Context(store: store, name: "sync")
    guard var department = try writer.object(Department.self, id: id) else { return }
    department.name = name
    try writer.update(department)
    try writer.save()
}
