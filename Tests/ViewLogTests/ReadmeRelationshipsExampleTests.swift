import Foundation
import Testing
import TestSupport
import ViewLog
import ViewLogTesting

/// The README's relationships example (section "Relationships"), so that it keeps compiling and doing what its
/// comments say; `schema/company.json` is the schema file it names. Only the public API is imported, as a user has it.
@Suite("README example: relationships")
struct ReadmeRelationshipsExampleTests {
    struct Employee: EntityType {
        static let entityName = "Employee"
        var id: String
        var name: String
        var department: Int?     // a to-one: the target's id, null when it names nothing
        var manager: String?
    }

    /// The README's ```swift block of its "Relationships" section is the code of the test below, line for line.
    @Test func theReadmeBlockIsThisCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Relationships\n").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let code = lines(block), me = lines(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(code.count > 10)
        #expect(me.indices.contains { me[$0...].starts(with: code) }, "the README's relationships example is not this test's code")
    }

    @Test func theRelationshipsExampleRuns() throws {
        let companySchemaText = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schema/company.json"), encoding: .utf8)
        let path = newStorePath()
        defer { try? FileManager.default.removeItem(atPath: path) }

        // From the README:
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: companySchemaText))
        try store.append([
            .insert(entity: "Department", id: .int(1), values: ["name": .string("Sales"), "floor": .int(2)]),
            .insert(entity: "Employee", id: .string("ann"), values: ["name": .string("Ann"), "department": .int(1)]),
            .insert(entity: "Employee", id: .string("bob"), values: ["name": .string("Bob"), "department": .int(1),
                                                                     "manager": .string("ann")]),
        ], author: "hr")

        let context = try Context(store: store, name: "ui")
        var request = FetchRequest(entity: "Employee", sortDescriptors: try ViewSortDescriptor.parse("department.name, name"),
                                   sectionKey: "department.name")
        request.includes = ["manager.name"]
        let byDepartment = try context.makeResultsController(request)
        let paths = byDepartment.keyPaths                     // ["department.name", "manager.name"]
        let bobsPaths = byDepartment.pathValues(of: "bob")     // ["department.name": "Sales", "manager.name": "Ann"]

        let hr = try Context(store: store, name: "hr")
        try hr.update("Department", id: 1, values: ["name": "Alpha"])
        try hr.save()
        try context.refresh()      // one batch: section "Sales" deleted, "Alpha" inserted, Ann and Bob moved,
                                   // each with changed == ["department.name"]
        let bob = try context.object(Employee.self, id: "bob")    // department 1, manager "ann"
        // (end of the README's code)

        #expect(paths == ["department.name", "manager.name"])
        #expect(bobsPaths == ["department.name": .string("Sales"), "manager.name": .string("Ann")])
        #expect(bob?.department == 1 && bob?.manager == "ann")
        #expect(byDepartment.sections.map(\.name) == ["Alpha"])
        // The batch the comment describes, checked through a fresh controller moved over the same transaction.
        let replay = try Context(store: store, name: "replay", at: 1)
        let view = try replay.makeResultsController(request)
        let recorder = ChangeRecorder()
        recorder.attach(to: view)
        try replay.refresh()
        let batch = try #require(recorder.batches.first)
        #expect(batch.sectionChanges.map(\.kind) == [.delete, .insert])
        #expect(batch.rowChanges.map(\.kind) == [.move, .move])
        #expect(Set(batch.rowChanges.map(\.id)) == [.string("ann"), .string("bob")])
        #expect(batch.rowChanges.allSatisfy { $0.changed == ["department.name"] })
        #expect(recorder.validate().isEmpty)
    }
}
