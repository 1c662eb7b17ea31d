import Foundation
import Testing
import TestSupport
import ViewLog
import ViewLogTesting

/// A reload is never silent (issue 38): a delegate that implements only the batch methods — as a table adapter
/// written from NSFetchedResultsController's habits does — is told of a reload through them, and ends with the view.
@Suite("Delegate reloads")
struct DelegateReloadTests {
    /// A table's model kept by the batch methods alone, applied with UITableView's rules; no `controllerDidReload`.
    final class BatchOnlyTable: ResultsControllerDelegate {
        var shown: ViewSnapshot
        var batches = 0
        private var sections: [SectionChange] = []
        private var rows: [RowChange] = []

        init(_ controller: ResultsController) {
            shown = controller.snapshot
            controller.delegate = self
        }

        func controllerWillChangeContent(_ controller: ResultsController) {
            sections = []
            rows = []
        }

        func controller(_ controller: ResultsController, didChange section: SectionChange) { sections.append(section) }

        func controller(_ controller: ResultsController, didChange row: RowChange) { rows.append(row) }

        func controllerDidChangeContent(_ controller: ResultsController) {
            batches += 1
            let batch = ChangeSet(from: 0, to: 0, isSectioned: controller.isSectioned, sectionChanges: sections, rowChanges: rows)
            guard let next = batch.applied(to: shown) else {
                Issue.record("a batch does not apply to the table:\n\(batch)\nto \(shown)")
                return
            }
            #expect(ChangeSetValidator.validate(batch, from: shown, to: next).isEmpty, "\(batch)")
            shown = next
        }
    }

    /// A delegate that handles reloads itself: the default's batches never reach it.
    final class ReloadingTable: ResultsControllerDelegate {
        var reloads: [ViewSnapshot] = []
        var batches = 0
        func controllerDidChangeContent(_ controller: ResultsController) { batches += 1 }
        func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) { reloads.append(snapshot) }
    }

    static func store() throws -> (LogStore, String) {
        let path = TestScratch.newPath("delegate-reload")
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: employeesSchemaText), options: StoreOptions(durable: false))
        let writer = try Context(store: store, name: "setup")
        for (id, name, height, section) in [("e1", "Ann", 180, "A"), ("e2", "Bob", 160, "B"), ("e3", "Cy", 175, "A")] {
            try writer.insert("Employee", id: .string(id), values: ["name": .string(name), "height": .int(Int64(height)),
                                                                    "sectionName": .string(section)])
        }
        try writer.save()  // seq 1
        try writer.insert("Employee", id: "e4", values: ["name": "Dee", "height": 190, "sectionName": "C"])
        try writer.update("Employee", id: "e1", values: ["sectionName": "C"])
        try writer.save()  // seq 2
        return (store, path)
    }

    @Test func aDelegateWithoutReloadHandlingEndsWithTheView() throws {
        let (store, path) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let context = try Context(store: store, name: "ui")
        let byName = [ViewSortDescriptor(key: "name")]
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: byName))
        let table = BatchOnlyTable(controller)

        try context.reset(to: 1)  // a reset: e4 gone
        #expect(table.shown == controller.snapshot && table.shown.rowIDs == ["e1", "e2", "e3"])
        #expect(table.batches == 2)  // every row out, every row in
        try controller.performFetch(FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170"),
                                                 sortDescriptors: [ViewSortDescriptor(key: "name", ascending: false)]))
        #expect(table.shown == controller.snapshot && table.shown.rowIDs == ["e3", "e1"])
        // Sections appear (a definition change from one implicit section to sections), move, and go again.
        try controller.performFetch(FetchRequest(entity: "Employee", sortDescriptors: byName, sectionKey: "sectionName"))
        #expect(table.shown == controller.snapshot && table.shown.sections.map(\.name) == ["A", "B"])
        try context.reset()
        #expect(table.shown == controller.snapshot && table.shown.sections.map(\.name) == ["A", "B", "C"])
        try controller.performFetch(FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 500"), sortDescriptors: byName))
        #expect(table.shown == controller.snapshot && table.shown.rowIDs.isEmpty)
        let batches = table.batches
        try controller.performFetch()  // empty to empty: nothing to report
        #expect(table.batches == batches)
        try controller.performFetch(FetchRequest(entity: "Employee", sortDescriptors: byName))
        #expect(table.shown == controller.snapshot && table.shown.rowIDs == ["e1", "e2", "e3", "e4"])
    }

    @Test func aDelegateThatHandlesReloadsGetsNoBatches() throws {
        let (store, path) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let context = try Context(store: store, name: "ui")
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "name")]))
        let table = ReloadingTable()
        controller.delegate = table
        try context.reset(to: 1)
        #expect(table.reloads == [controller.snapshot] && table.batches == 0)
    }
}
