import Foundation
import ViewLog

/// A main-actor screen showing the tall employees by section, the way a table view controller would: it is the
/// controller's delegate and keeps its rows in step with every batch, using the batch's index paths.
@MainActor
public final class DirectoryScreen {
    public let context: Context
    public let controller: ResultsController
    /// What the table shows: section names and, per section, the employees' names.
    public private(set) var sections: [(name: String?, rows: [String])] = []
    /// How many batches the screen applied.
    public private(set) var batchesApplied = 0
    private var pending: ChangeSet?

    public init(store: LogStore) throws {
        context = try Context(store: store, name: "ui")
        controller = try context.makeResultsController(view: "tall")
        controller.delegate = self
        try reloadRows()
    }

    /// Rows as the controller shows them now, read as typed models.
    private func reloadRows() throws {
        sections = try controller.sections(as: Employee.self).map { ($0.section.name, $0.objects.map(\.name)) }
    }

    /// Follows every save of every context and process from now on, as Core Data's
    /// `automaticallyMergesChangesFromParent = true`: returns at once; the batches arrive on the main actor.
    public func startFollowing() {
        context.startMergingChangesAutomatically()
    }

    /// Stops following (it also stops when the screen, and so its context, goes).
    public func stopFollowing() {
        context.stopMergingChangesAutomatically()
    }
}

extension DirectoryScreen: @MainActor ResultsControllerDelegate {
    public func controllerDidChangeContent(_ controller: ResultsController) {
        batchesApplied += 1
        // A real table would call performBatchUpdates with the batch; this screen re-reads its typed rows.
        try? reloadRows()
    }

    public func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {
        try? reloadRows()
    }
}

/// A background writer: its own context on the same store, saving with Core Data's object-trump policy.
public func hire(_ employees: [Employee], into store: LogStore) throws {
    let writer = try Context(store: store, name: "hiring")
    writer.mergePolicy = .mergeByPropertyObjectTrump
    for employee in employees { try writer.insert(employee) }
    try writer.save()
}
