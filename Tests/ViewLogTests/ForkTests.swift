import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import ViewLogTesting

/// `Context.fork()` (DESIGN §14): a child on the parent's position and unsaved changes whose own changes the parent
/// sees only when `merge()` stages them in it, and `discard()` drops; every change set its controllers report is
/// valid by the UIKit rules; nothing is appended until the parent saves.
@Suite struct ForkTests {
    static func employees(_ store: LogStore) throws {
        try store.append((1...6).map { .insert(entity: "Employee", id: .int(Int64($0)),
                                                values: ["name": .string("e\($0)"), "rank": .int(Int64($0))]) }, author: "setup")
    }

    @Test func aForkShowsItsChangesOnTopOfItsParentsAndMergesOrDiscardsThem() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                        options: StoreOptions(durable: false))
        try Self.employees(store)
        let request = FetchRequest(entity: "Employee", predicate: try ViewPredicate("rank >= 3"),
                                   sortDescriptors: [ViewSortDescriptor(key: "rank")])
        let parent = try Context(store: store, name: "hr")
        let parentView = try parent.makeResultsController(request)
        try parent.update("Employee", id: 1, values: ["rank": 9])  // the parent's own unsaved change
        try parent.processPendingChanges()
        let fork = try parent.fork()
        #expect(fork.isFork && !parent.isFork && fork.name == "hr")
        let forkView = try fork.makeResultsController(request)
        let recorder = ChangeRecorder()
        recorder.attach(to: forkView)
        #expect(forkView.fetchedObjects == parentView.fetchedObjects)  // the parent's unsaved change included
        try fork.delete("Employee", where: try ViewPredicate("rank < 5"))
        try fork.update("Employee", id: 6, values: ["rank": 4])
        try fork.processPendingChanges()
        #expect(forkView.fetchedObjects == [.int(6), .int(5), .int(1)])
        #expect(parentView.fetchedObjects == [.int(3), .int(4), .int(5), .int(6), .int(1)])
        #expect(try parent.object(ObjectKey(entity: "Employee", id: 2)) != nil, "the parent saw the fork's delete")
        // Discard: the fork shows its parent's state again.
        try fork.discard()
        #expect(forkView.fetchedObjects == parentView.fetchedObjects)
        // Merge: the parent stages the fork's changes, all or none.
        try fork.update("Employee", id: 5, values: ["rank": 1])
        try fork.merge()
        try parent.processPendingChanges()
        #expect(parentView.fetchedObjects == [.int(3), .int(4), .int(6), .int(1)])
        #expect(forkView.fetchedObjects == parentView.fetchedObjects)
        #expect(try store.head == 1, "a fork or a merge appended")
        // A change the parent refuses at merge: nothing is staged in the parent; the fork keeps it.
        try fork.update("Employee", id: 3, values: ["name": "x"])
        try parent.delete("Employee", id: 3)
        #expect(throws: StoreError.self) { try fork.merge() }
        #expect(try parent.object(ObjectKey(entity: "Employee", id: 3)) == nil)
        #expect(try fork.object(ObjectKey(entity: "Employee", id: 3))?["name"] == "x")
        try fork.discard()
        let saved = try #require(try parent.save())
        #expect(saved.changes.count == 3)
        #expect(recorder.validate().isEmpty, "\(recorder.validate())")
    }
}
