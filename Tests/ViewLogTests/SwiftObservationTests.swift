import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import Observation

/// Swift's Observation (DESIGN §14, issue 40 point 6): a controller's rows and a context's position, unsaved changes
/// and undo state are observable, so code in the style of SwiftData's observed models reacts without a delegate.
@Suite struct SwiftObservationTests {
    /// Tracks what `read` reads; returns a flag set when one of them changes.
    final class Flag: @unchecked Sendable { var changed = false }

    static func track(_ read: () -> Void) -> Flag {
        let flag = Flag()
        withObservationTracking(read, onChange: { flag.changed = true })
        return flag
    }

    @Test func batchesReloadsStagingSavesAndUndosAreChanges() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                        options: StoreOptions(durable: false))
        try ForkTests.employees(store)
        let context = try Context(store: store, name: "hr")
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee", predicate: try ViewPredicate("rank > 3")))
        var rows = Self.track { _ = controller.fetchedObjects }
        let sections = Self.track { _ = controller.sections }
        let changes = Self.track { _ = context.hasChanges }
        try context.update("Employee", id: 1, values: ["rank": 1])
        #expect(changes.changed && !rows.changed, "staging is a change of hasChanges, not yet of the rows")
        try context.processPendingChanges()
        #expect(!rows.changed, "a batch that changes no row of the view is reported to no one")
        try context.update("Employee", id: 1, values: ["rank": 8])
        try context.processPendingChanges()
        #expect(rows.changed && sections.changed)
        let position = Self.track { _ = context.position }
        let undo = Self.track { _ = context.canUndo }
        try context.save()
        #expect(position.changed && undo.changed)
        rows = Self.track { _ = controller.fetchedObjects }
        let redo = Self.track { _ = context.canRedo }
        try context.undo()
        #expect(rows.changed && redo.changed && !context.hasChanges)
        // Another writer's append reaches the context's observers when it merges.
        let merged = Self.track { _ = controller.fetchedObjects }
        try store.append([.update(entity: "Employee", id: 2, values: ["rank": 9])], author: "bob")
        #expect(!merged.changed)
        try context.refresh()
        #expect(merged.changed)
    }
}
