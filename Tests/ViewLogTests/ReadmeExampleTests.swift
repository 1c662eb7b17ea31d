import Testing
import ViewLogTesting
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The README's library example, so that it keeps compiling and doing what it says.
@Suite("README example")
struct ReadmeExampleTests {
    struct Employee: EntityType {
        static let entityName = "Employee"
        var id: String
        var name: String
        var height: Int?
    }

    @Test func theLibraryExampleRuns() async throws {
        let schema = try Schema(jsonText: employeesSchemaText)
        let store = try LogStore.create(at: newStorePath(), schema: schema)
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180)])],
                         author: "import")
        var batches: [[TransactionRequest]] = (2...5).map { i in
            [TransactionRequest(author: "import", changes: [.insert(entity: "Employee", id: .string("imported-\(i)"), values: ["name": .string("N\(i)")])])]
        }
        func nextBatchOfRequests() -> [TransactionRequest]? { batches.isEmpty ? nil : batches.removeFirst() }
        var pending = nextBatchOfRequests()
        let seqs = try store.append(batches: { defer { pending = nextBatchOfRequests() }; return pending })
        #expect(seqs == [2, 3, 4, 5])
        let context = try Context(store: store, name: "ui")
        let tall = try context.makeResultsController(
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170"),
                         sortDescriptors: try ViewSortDescriptor.parse("sectionName, height desc, name"), sectionKey: "sectionName"))
        let events = tall.changes
        let consumer = Task { () -> Int in
            var batches = 0
            for await event in events { if case .changes = event { batches += 1; if batches == 3 { break } } }
            return batches
        }
        var observed = 0
        let log = tall.observe { _ in observed += 1 }
        let recorder = ChangeRecorder()
        recorder.attach(to: tall)
        try context.update("Employee", id: .string("e1"), values: ["height": .int(182)])
        try context.save()
        try context.refresh()
        try context.move(to: 1)
        try context.insert(Employee(id: "e2", name: "Bob", height: 175))
        try context.save()
        let bob = try context.object(Employee.self, id: "e2")
        #expect(bob?.height == 175)
        #expect(try context.objects(Employee.self, of: tall).map(\.name) == ["Ann", "Bob"])
        #expect(recorder.validate().isEmpty)
        #expect(observed == recorder.batches.count)
        #expect(await consumer.value == 3)
        log.cancel()
        #expect(!ChangeSetRenderer.render(recorder.batches[0]).isEmpty)
    }
}
