import Foundation
import Testing
import ViewLog
import ViewLogTesting
@testable import EmployeeDirectory

@MainActor
@Suite struct DepartmentsTests {
    final class Store {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("viewlog-example-\(UUID().uuidString)").path
        let store: LogStore
        init() throws { store = try LogStore.create(at: path, schema: try Schema(jsonText: companySchemaText)) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The NSFetchedResultsController bug one hop away: a department renamed in another context moves exactly its
    /// employees to the new section, each with `department.name` in `changed`.
    @Test func aRenamedDepartmentMovesItsEmployees() throws {
        let fixture = try Store()
        let setup = try Context(store: fixture.store, name: "setup")
        try setup.insert(Department(id: 1, name: "Sales"))
        try setup.insert(Department(id: 2, name: "Ops"))
        try setup.insert(StaffMember(id: "ann", name: "Ann", department: 1))
        try setup.insert(StaffMember(id: "bob", name: "Bob", department: 2))
        try setup.insert(StaffMember(id: "cy", name: "Cy", department: 1))
        try setup.save()

        let screen = try DepartmentsScreen(store: fixture.store)
        #expect(screen.sections.map(\.name) == ["Ops", "Sales"])
        let recorder = ChangeRecorder()
        recorder.attach(to: screen.controller)

        try rename(department: 1, to: "Alpha", in: fixture.store)
        try screen.context.refresh()
        #expect(screen.sections.map(\.name) == ["Alpha", "Ops"])
        #expect(screen.sections.first?.rows == ["Ann", "Cy"])
        #expect(recorder.validate().isEmpty)
        let batch = try #require(recorder.batches.last)
        #expect(Set(batch.rowChanges.map(\.id)) == ["ann", "cy"])
        #expect(batch.rowChanges.allSatisfy { $0.kind == .move && $0.changed == ["department.name"] })
        #expect(try screen.context.object(StaffMember.self, id: "ann")?.department == 1)
    }
}
