import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore

/// The bridge from a context's saves to an undo manager (DESIGN §14, issue 40 point 4), driven the way an Edit menu
/// drives Foundation's `UndoManager` — which Foundation on Linux lacks, so an undo manager with its rules stands in.
@MainActor
@Suite struct UndoManagerBridgeTests {
    /// Foundation's `UndoManager` as the bridge sees it: groups of actions on an undo and a redo stack; `undo()` runs
    /// the newest undo group's actions newest first, and what they register meanwhile becomes one redo group (`redo()`
    /// the mirror image); an action registered outside an undo or redo joins the open group (or makes a group of its
    /// own) and clears the redo stack. Targets are held weakly here, where `UndoManager` holds them unowned.
    final class UndoManagerModel: UndoRegistering {
        struct Action {
            weak var target: AnyObject?
            let run: @MainActor (AnyObject) -> Void
        }

        private(set) var undoStack: [[Action]] = []
        private(set) var redoStack: [[Action]] = []
        /// The group of a `beginUndoGrouping()` not yet ended.
        private var openGroup: [Action]?
        /// The group an undo or redo collects the actions its actions register: a redo group during an undo.
        private var collecting: (group: [Action], undoing: Bool)?

        var canUndo: Bool { !undoStack.isEmpty }
        var canRedo: Bool { !redoStack.isEmpty }

        func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @MainActor (Target) -> Void) {
            let action = Action(target: target) { handler($0 as! Target) }
            if collecting != nil {
                collecting!.group.append(action)
                return
            }
            redoStack.removeAll()
            if openGroup != nil { openGroup!.append(action) } else { undoStack.append([action]) }
        }

        func removeAllActions(withTarget target: Any) {
            let target = target as AnyObject
            undoStack = undoStack.map { $0.filter { $0.target !== target } }.filter { !$0.isEmpty }
            redoStack = redoStack.map { $0.filter { $0.target !== target } }.filter { !$0.isEmpty }
        }

        func beginUndoGrouping() {
            precondition(openGroup == nil, "nested groups are not modelled")
            openGroup = []
        }

        func endUndoGrouping() {
            if let group = openGroup, !group.isEmpty { undoStack.append(group) }
            openGroup = nil
        }

        func undo() { run(undoing: true) }
        func redo() { run(undoing: false) }

        private func run(undoing: Bool) {
            guard let group = undoing ? undoStack.popLast() : redoStack.popLast() else { return }
            collecting = ([], undoing)
            for action in group.reversed() {
                if let target = action.target { action.run(target) }
            }
            let registered = collecting!.group
            collecting = nil
            guard !registered.isEmpty else { return }
            if undoing { redoStack.append(registered) } else { undoStack.append(registered) }
        }
    }

    let store: LogStore
    let ann = ObjectKey(entity: "Employee", id: 1)

    init() throws {
        store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                    options: StoreOptions(durable: false))
        try ForkTests.employees(store)
    }

    func rank(_ id: ObjectID = 1) throws -> Value? { try store.object(ObjectKey(entity: "Employee", id: id))?["rank"] }

    /// The errors a bridge passed to its `onFailure`.
    final class Failures { var errors: [StoreError] = [] }

    /// A context of author "hr" whose saves register with a new undo manager.
    func bridged() throws -> (UndoManagerModel, Context, Failures) {
        let undoManager = UndoManagerModel(), failures = Failures()
        let context = try Context(store: store, name: "hr")
        context.registerSavesForUndo(with: undoManager) { failures.errors.append($0) }
        return (undoManager, context, failures)
    }

    /// Saves `rank` as the rank of employee `id`: one step.
    func save(_ context: Context, rank: Int64, of id: ObjectID) throws {
        try context.update("Employee", id: id, values: ["rank": .int(rank)])
        try context.save()
    }

    @Test func theEditMenuUndoesAndRedoesSavesAndANewSaveClearsRedo() throws {
        let (undoManager, context, failures) = try bridged()
        try save(context, rank: 10, of: 1)
        try save(context, rank: 20, of: 2)
        #expect(undoManager.undoStack.count == 2 && !undoManager.canRedo)

        undoManager.undo()
        #expect(try rank(2) == 2 && rank(1) == 10 && context.position == 4)
        undoManager.undo()
        #expect(try rank(1) == 1 && !undoManager.canUndo && undoManager.redoStack.count == 2)
        undoManager.redo()
        #expect(try rank(1) == 10 && rank(2) == 2 && undoManager.canUndo && undoManager.canRedo)
        #expect(try store.transactions(after: 1).map(\.reverts) == [[], [], [3], [2], [5]])

        try save(context, rank: 30, of: 3)
        #expect(!undoManager.canRedo, "a new save cleared the redo stack")
        undoManager.undo()
        #expect(try rank(3) == 3)
        undoManager.undo()
        #expect(try rank(1) == 1 && !undoManager.canUndo)
        #expect(failures.errors.isEmpty && !context.canUndo)
    }

    @Test func savesInOneUndoGroupAreOneStep() throws {
        let (undoManager, context, failures) = try bridged()
        undoManager.beginUndoGrouping()
        try save(context, rank: 10, of: 1)
        try save(context, rank: 20, of: 2)
        undoManager.endUndoGrouping()
        #expect(undoManager.undoStack.count == 1)
        undoManager.undo()
        #expect(try rank(1) == 1 && rank(2) == 2 && undoManager.redoStack.count == 1)
        undoManager.redo()
        #expect(try rank(1) == 10 && rank(2) == 20 && undoManager.undoStack.count == 1)
        #expect(try store.transactions(after: 3).map(\.reverts) == [[3], [2], [5], [4]])
        #expect(failures.errors.isEmpty)
    }

    @Test func aRefusedUndoIsReportedAndAppendsNothing() throws {
        let (undoManager, context, failures) = try bridged()
        try save(context, rank: 10, of: 1)
        try store.append([.update(entity: "Employee", id: 1, values: ["rank": 30])], author: "sync")

        undoManager.undo()
        #expect(failures.errors == [.revertConflict(ann, attribute: "rank", seq: 3)])
        #expect(try store.head == 3 && rank(1) == 30)
        #expect(!undoManager.canUndo && !undoManager.canRedo, "the refused step is dropped, nothing to redo")

        // Unsaved changes refuse an undo too.
        failures.errors = []
        try save(context, rank: 21, of: 2)
        try context.update("Employee", id: 3, values: ["rank": 31])
        undoManager.undo()
        #expect(try failures.errors.map(\.code) == [.cannotRevert] && store.head == 4)
    }

    @Test func anUndoTheMergePolicyLeavesEmptyRegistersNoRedo() throws {
        let (undoManager, context, failures) = try bridged()
        context.mergePolicy = .rollback
        try save(context, rank: 10, of: 1)
        try store.append([.update(entity: "Employee", id: 1, values: ["rank": 30])], author: "sync")
        undoManager.undo()
        #expect(try store.head == 3 && rank(1) == 30)
        #expect(!undoManager.canRedo && failures.errors.isEmpty, "nothing appended, nothing to redo, nothing refused")
    }

    @Test func stoppingRemovesTheContextsActionsAndLaterSavesRegisterNothing() throws {
        let (undoManager, context, failures) = try bridged()
        try save(context, rank: 10, of: 1)
        context.stopRegisteringSavesForUndo()
        #expect(!undoManager.canUndo)
        try save(context, rank: 11, of: 1)
        #expect(!undoManager.canUndo && context.canUndo && failures.errors.isEmpty, "the log still has both steps")
    }
}
