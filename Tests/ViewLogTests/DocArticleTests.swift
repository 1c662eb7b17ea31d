import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog
import ViewLogTesting

/// The DocC articles' code, compiled and run: each ```swift block of `Sources/*/*.docc/*.md` must appear in this
/// file (compared line by line, indentation aside), inside a test that runs it.
@Suite("Documentation articles")
struct DocArticleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every ```swift block of every article, with the article's name.
    static func articleBlocks() throws -> [(article: String, code: [String])] {
        var blocks: [(String, [String])] = []
        let sources = packageRoot.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "md", url.path.contains(".docc/") else { continue }
            var current: [String]?
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if current == nil, trimmed == "```swift" { current = [] } else if current != nil, trimmed == "```" {
                    blocks.append((url.lastPathComponent, current!))
                    current = nil
                } else if current != nil, !trimmed.isEmpty {
                    current!.append(trimmed)
                }
            }
        }
        return blocks
    }

    @Test func everyArticleBlockIsCompiledHere() throws {
        // This file, and the replication tests' for the Replication article (it needs a NATS server).
        let sources = [URL(fileURLWithPath: #filePath),
                       Self.packageRoot.appendingPathComponent("Tests/ViewLogReplicationTests/ReplicationArticleTests.swift")]
        let me = try sources.flatMap { try String(contentsOf: $0, encoding: .utf8).split(separator: "\n") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let blocks = try Self.articleBlocks()
        #expect(blocks.count >= 12, "found \(blocks.count) blocks: are the articles where this test looks?")
        for (article, code) in blocks {
            let found = me.indices.contains { start in
                start + code.count <= me.count && Array(me[start..<start + code.count]) == code
            }
            #expect(found, "a code block of \(article) is not compiled by DocArticleTests:\n\(code.joined(separator: "\n"))")
        }
    }

    // MARK: Getting started

    struct Employee: EntityType {
        static let entityName = "Employee"
        var id: String
        var name: String
        var height: Int?
        var sectionName: String
    }

    /// A fresh store directory path, removed when the test ends.
    final class Scratch {
        let path = TestScratch.newPath("docs")
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    func gettingStarted(at path: String) throws -> (LogStore, Context, ResultsController, AsyncStream<ViewEvent>) {
        let schema = try Schema(jsonText: """
            {"entities": {"Employee": {"id": "string", "attributes": {
              "name": {"type": "string"}, "height": {"type": "int", "optional": true},
              "sectionName": {"type": "string", "default": ""}}}}}
            """)
        let store = try LogStore.create(at: path, schema: schema)
        try store.append([
            .insert(entity: "Employee", id: "e1", values: ["name": "Ann", "height": 180, "sectionName": "A"]),
            .insert(entity: "Employee", id: "e2", values: ["name": "Bob", "height": 165, "sectionName": "B"]),
        ], author: "import")
        let context = try Context(store: store, name: "ui")
        let tall = try context.makeResultsController(
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170"),
                         sortDescriptors: try ViewSortDescriptor.parse("sectionName, name"), sectionKey: "sectionName"))
        let events = tall.changes          // the current view first, then one event per batch

        try context.update("Employee", id: "e2", values: ["height": 181])
        try context.save()                 // one transaction; `tall` reports Bob's insert at [1, 0]
        return (store, context, tall, events)
    }

    @Test func gettingStartedRuns() async throws {
        let scratch = Scratch()
        let (_, _, tall, events) = try gettingStarted(at: scratch.path)
        var iterator = events.makeAsyncIterator()
        guard case .reload? = await iterator.next(), case .changes(let batch)? = await iterator.next() else {
            Issue.record("expected the snapshot, then a batch")
            return
        }
        #expect(batch.rowChanges == [.insert("e2", to: IndexPath(row: 0, section: 1), seq: 2)])
        #expect(try tall.objects(as: Employee.self).map(\.name) == ["Ann", "Bob"])
    }

    // MARK: Undo, revert and what-if

    @Test func undoRevertAndWhatIfRuns() throws {
        let scratch = Scratch()
        let schema = try Schema(jsonText: try String(contentsOf: Self.packageRoot.appendingPathComponent("schema/company.json"),
                                                     encoding: .utf8))
        let store = try LogStore.create(at: scratch.path, schema: schema)
        try store.append([
            .insert(entity: "Department", id: 1, values: ["name": "Sales"]),
            .insert(entity: "Employee", id: "ann", values: ["name": "Ann", "height": 180, "department": 1]),
            .insert(entity: "Employee", id: "bob", values: ["name": "Bob"]),
        ], author: "import")
        let context = try Context(store: store, name: "hr")
        let raised = try context.update("Employee", where: try ViewPredicate("department.name == 'Sales'"),
                                         values: ["salary": 5000])
        try context.delete("Project", where: try ViewPredicate("owner == nil"), max: 10)
        try context.save()
        #expect(raised == ["ann"])
        #expect(try store.object(ObjectKey(entity: "Employee", id: "ann"))?["salary"] == 5000.0)

        try context.update("Employee", id: "ann", values: ["height": 181])
        try context.save()
        try context.undo()    // height 180 again; the context is at the head, its controllers got one batch
        try context.redo()
        #expect(try store.object(ObjectKey(entity: "Employee", id: "ann"))?["height"] == 181)
        #expect(try store.transactions(after: 1).map(\.reverts) == [[], [], [3], [4]])

        let draft = try context.fork()
        try draft.delete("Employee", where: try ViewPredicate("height < 100"))
        try draft.merge()
        try context.save()
        #expect(try store.head == 5, "nothing matched: nothing staged, nothing saved")
    }

    @MainActor
    @Test func undoManagerBridgeRuns() throws {
        let scratch = Scratch()
        let schema = try Schema(jsonText: try String(contentsOf: Self.packageRoot.appendingPathComponent("schema/company.json"),
                                                     encoding: .utf8))
        let store = try LogStore.create(at: scratch.path, schema: schema)
        try store.append([.insert(entity: "Employee", id: "ann", values: ["name": "Ann", "height": 180])], author: "import")
        let context = try Context(store: store, name: "hr")
        let undoManager = UndoManagerBridgeTests.UndoManagerModel()  // Foundation's UndoManager on Apple platforms
        var refused: [StoreError] = []

        context.registerSavesForUndo(with: undoManager) { error in
            refused.append(error)    // e.g. a later change of what the undo would set back
        }
        try context.update("Employee", id: "ann", values: ["height": 182])
        try context.save()           // one undo action: the Edit menu's Undo calls context.undo() and registers the redo
        undoManager.undo()
        #expect(try store.object(ObjectKey(entity: "Employee", id: "ann"))?["height"] == 180)
        #expect(undoManager.canRedo && refused.isEmpty)
    }

    // MARK: Error codes

    @Test func errorCodes() throws {
        let scratch = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        // Not `catch … as any ViewLogError where error.code == …`: in this function Swift 6.3.1's
        // MandatoryAllocBoxToStack pass (StackNesting::fixNesting) spins and then crashes on that form.
        // An error of another code would leave this test by its `throw`; no error would append seq 3.
        do {
            try store.append([.update(entity: "Employee", id: "e9", values: ["height": 180])], author: "app")
        } catch let error as any ViewLogError {
            guard error.code == .invalidChange else { throw error }
            print("refused, nothing appended:", error)
        }
        #expect(try store.head == 2)
    }

    // MARK: Coming from Core Data

    @Test func siblingContextChangesAreNeverMissed() throws {
        let scratch = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        try store.append([.update(entity: "Employee", id: "e2", values: ["height": 160])], author: "reset")
        let main = try Context(store: store, name: "main")
        let tall = try main.makeResultsController(
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170")))
        let background = try Context(store: store, name: "background")
        try background.update("Employee", id: "e2", values: ["height": 190])   // Bob now matches
        try background.save()
        try main.refresh()                  // `tall` reports Bob's insert, though `main` never read Bob
        #expect(tall.fetchedObjects == ["e1", "e2"] && tall.position == background.position)
        main.mergePolicy = .mergeByPropertyObjectTrump
        #expect(main.mergePolicy == .mergeByPropertyObjectTrump)
    }

    @MainActor
    @Test func mergingAutomatically() async throws {
        let scratch = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        let main = try Context(store: store, name: "main")
        let tall = try main.makeResultsController(
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170")))
        #expect(tall.fetchedObjects == ["e1", "e2"])
        main.startMergingChangesAutomatically()   // returns at once: from now on every save reaches `tall` by itself
        let other = try Context(store: store, name: "other")
        try other.update("Employee", id: "e1", values: ["height": 150])   // Ann no longer matches
        try other.save()                          // `tall` reports Ann's delete when the main actor is next free
        #expect(main.automaticallyMergesChanges && tall.fetchedObjects == ["e1", "e2"])
        for _ in 0..<1000 where tall.fetchedObjects != ["e2"] { try await Task.sleep(for: .milliseconds(5)) }
        #expect(tall.fetchedObjects == ["e2"] && main.position == other.position)
        main.stopMergingChangesAutomatically()    // `automaticallyMergesChangesFromParent = false`
        #expect(!main.automaticallyMergesChanges && main.automaticMergeError == nil)
    }

    // MARK: Change sets and UIKit/AppKit

    /// Stands for a UITableView inside `performBatchUpdates`: records the calls.
    final class TableUpdates {
        var calls: [String] = []
        func beginUpdates() { calls.append("beginUpdates") }
        func endUpdates() { calls.append("endUpdates") }
        func reloadData() { calls.append("reloadData") }
        func deleteSection(_ i: Int) { calls.append("deleteSection \(i)") }
        func insertSection(_ i: Int) { calls.append("insertSection \(i)") }
        func deleteRow(at p: IndexPath) { calls.append("deleteRow \(p)") }
        func insertRow(at p: IndexPath) { calls.append("insertRow \(p)") }
        func moveRow(from a: IndexPath, to b: IndexPath) { calls.append("moveRow \(a) \(b)") }
        func reloadRow(at p: IndexPath) { calls.append("reloadRow \(p)") }
    }

    func apply(_ changeSet: ChangeSet, to table: TableUpdates) {
        for section in changeSet.sectionChanges {
            switch section.kind {
            case .delete: table.deleteSection(section.index)
            case .insert: table.insertSection(section.index)
            }
        }
        for row in changeSet.rowChanges {
            switch row.kind {
            case .delete: table.deleteRow(at: row.from!)
            case .insert: table.insertRow(at: row.to!)
            case .move: table.moveRow(from: row.from!, to: row.to!)
            case .update: table.reloadRow(at: row.to!)
            }
        }
    }

    @Test func changeSetsFeedTablesInBothForms() throws {
        let scratch = Scratch()
        let store = try LogStore.create(at: scratch.path, schema: try Schema(jsonText: """
            {"entities": {"Employee": {"id": "string", "attributes": {"name": {"type": "string"}}}}}
            """), options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Employee", id: "a", values: ["name": "A"]),
                          .insert(entity: "Employee", id: "c", values: ["name": "C"])], author: "t")
        let context = try Context(store: store, name: "ui")
        let view = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "name")]))
        let snapshotBefore = view.snapshot
        try store.append([.insert(entity: "Employee", id: "b", values: ["name": "B"]),
                          .delete(entity: "Employee", id: "a")], author: "t")
        try context.refresh()
        let changeSet = try #require(try ChangeRecorderless.last(of: view, since: snapshotBefore, store: store))
        let table = TableUpdates()
        apply(changeSet, to: table)
        #expect(table.calls.count == 2)
        var rows = snapshotBefore.sections[0].rows
        for step in changeSet.sequentialSteps {
            switch step {
            case let .deleteRow(_, at: path, isMove: _): rows.remove(at: path.row)
            case let .insertRow(id, at: path, isMove: _): rows.insert(id, at: path.row)
            case .deleteSection, .insertSection, .updateRow: break
            }
        }
        #expect(rows == view.snapshot.sections[0].rows)
    }

    final class EmployeeTable: ResultsControllerDelegate {
        let table = TableUpdates()

        func controllerWillChangeContent(_ controller: ResultsController) {
            table.beginUpdates()
        }

        func controller(_ controller: ResultsController, didChange section: SectionChange) {
            switch section.kind {
            case .delete: table.deleteSection(section.index)
            case .insert: table.insertSection(section.index)
            }
        }

        func controller(_ controller: ResultsController, didChange row: RowChange) {
            switch row.kind {
            case .delete: table.deleteRow(at: row.from!)
            case .insert: table.insertRow(at: row.to!)
            case .move: table.moveRow(from: row.from!, to: row.to!)
            case .update: table.reloadRow(at: row.to!)
            }
        }

        func controllerDidChangeContent(_ controller: ResultsController) {
            table.endUpdates()
        }

        func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {
            table.reloadData()                // the rows are now `snapshot`'s: forget the old ones
        }
    }

    @Test func theDelegatesFiveMethods() throws {
        let scratch = Scratch()
        let (_, context, tall, _) = try gettingStarted(at: scratch.path)
        let adapter = EmployeeTable()
        tall.delegate = adapter
        try context.update("Employee", id: "e1", values: ["sectionName": "C"])   // A empties, C appears: Ann moves
        try context.save()
        #expect(adapter.table.calls == ["beginUpdates", "deleteSection 0", "insertSection 1", "moveRow [0, 0] [1, 0]", "endUpdates"])
        adapter.table.calls = []
        try tall.performFetch()
        #expect(adapter.table.calls == ["reloadData"])
    }

    /// The batch that took `view` from `before` to its current state, recomputed from the store's delta.
    enum ChangeRecorderless {
        static func last(of view: ResultsController, since before: ViewSnapshot, store: LogStore) throws -> ChangeSet? {
            let replay = try ResultsController(fetchRequest: view.fetchRequest, entity: view.entity,
                                               objects: store.objects(of: view.entity.name, at: 1).lazy.map { ($0.id, $0.values) },
                                               position: 1)
            #expect(replay.snapshot == before)
            return replay.apply(try store.delta(from: 1, to: view.position))
        }
    }

    // MARK: Time travel and replay

    @Test func timeTravel() throws {
        let scratch = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        try store.append([.delete(entity: "Employee", id: "e1")], author: "t")
        let then = try store.object(ObjectKey(entity: "Employee", id: "e2"), at: 1)
        let everyone = try store.objects(of: "Employee", at: 1)
        let delta = try store.delta(from: 3, to: 1)       // each touched object, before and after
        #expect(then?["height"] == 165 && everyone.count == 2 && delta.objects.count == 2)

        let context = try Context(store: store, name: "history", at: 1)
        let view = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "name")]))
        let recorder = ChangeRecorder()
        recorder.attach(to: view)
        try context.move(to: 3)           // one batch: what transactions 2 and 3 did to the view
        try context.move(to: 0)           // backwards: every row deleted
        try context.refresh()             // to the head
        #expect(recorder.validate().isEmpty && view.fetchedObjects == ["e2"])
    }

    // MARK: Retention and compaction

    @Test func retentionAndCompaction() throws {
        let scratch = Scratch(), scratch2 = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        let result = try store.compact(.keepLast(1))      // or .before(seq), .keepFor(RetentionPeriod("30d")!)
        let horizon = try store.horizon                   // result.horizon
        #expect(result.horizon == 1 && horizon == 1)
        do {
            _ = try store.objects(of: "Employee", at: horizon - 1)
        } catch {
            print(error.code, error)                      // log.compacted position 0 is below the horizon (1): …
        }
        #expect(throws: StoreError.compacted(position: 0, horizon: 1)) { _ = try store.objects(of: "Employee", at: horizon - 1) }
        let copy = try LogStore.create(at: scratch2.path, schema: try store.schema)
        let snapshot = try store.snapshot()               // nil for a store never compacted
        try copy.start(from: snapshot!, then: try store.transactions())
        #expect(try copy.horizon == 1 && copy.head == 2 && copy.objects(of: "Employee").count == 2)
    }

    @Test func migrations() throws {
        let scratch = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        let migration = try Migration(jsonText: """
            [{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}},
             {"changeType": {"entity": "Employee", "attribute": "heightCm", "to": "double"}}]
            """)
        let t = try store.migrate(migration, author: "ops")     // one transaction
        let before = try store.object(ObjectKey(entity: "Employee", id: "e1"), at: t.seq - 1)   // ["height": 180, …]
        let now = try store.object(ObjectKey(entity: "Employee", id: "e1"))                      // ["heightCm": 180.0, …]
        #expect(before?["height"] == 180 && before?["heightCm"] == nil)
        #expect(now?["heightCm"] == .double(180) && now?["height"] == nil)
    }

    // MARK: Testing your views

    @Test func testingYourViews() throws {
        let scratch = Scratch()
        let (_, context, controller, _) = try gettingStarted(at: scratch.path)
        let before = controller.snapshot
        let recorder = ChangeRecorder()
        recorder.attach(to: controller)      // observes; the app's delegate stays in place
        try context.update("Employee", id: "e1", values: ["sectionName": "C"])
        try context.save()
        #expect(recorder.validate().isEmpty) // each batch, applied with the UITableView rules, gives the next snapshot
        let changeSet = recorder.batches[0], after = controller.snapshot
        #expect(before != after)
        try ChangeSetValidator.check(changeSet, from: before, to: after)
        do {
            try ChangeSetValidator.check(changeSet, from: before, to: after)
        } catch let error as ChangeSetValidationError {
            print(error.problems)             // each rule broken, naming the change and the index path
        }
        #expect(ChangeSetValidator.validate(changeSet, from: before, to: after).isEmpty)
        let goldenDirectory = URL(fileURLWithPath: scratch.path)
        var recording = GoldenFile(directory: goldenDirectory)
        recording.isRecording = true
        recording.expect(ChangeSetRenderer.render(changeSet), matches: "promotion.txt")
        let goldens = GoldenFile(directory: goldenDirectory)
        goldens.expect(ChangeSetRenderer.render(changeSet), matches: "promotion.txt")
    }

    /// The manifest lines the article shows for a folder of golden files are the example package's own, which CI
    /// builds with zero warnings (SwiftPM's "unhandled file" warning among them).
    @Test func theGoldenFolderManifestLinesAreTheExamples() throws {
        let article = try String(contentsOf: Self.packageRoot.appendingPathComponent(
            "Sources/ViewLogTesting/ViewLogTesting.docc/TestingYourViews.md"), encoding: .utf8)
        var blocks: [[String]] = []  // every fenced block, whatever its language
        var current: [String]?
        for line in article.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if current == nil, line.hasPrefix("```") { current = [] } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        let manifest = try #require(blocks.first { $0.contains { $0.contains("exclude: [\"Goldens\"]") } },
                                    "the article shows no manifest line excluding the golden files")
        let example = try String(contentsOf: Self.packageRoot.appendingPathComponent("Examples/EmployeeDirectory/Package.swift"),
                                 encoding: .utf8).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(example.indices.contains { example[$0...].starts(with: manifest) },
                "the article's manifest lines are not Examples/EmployeeDirectory/Package.swift's:\n\(manifest.joined(separator: "\n"))")
        let goldens = Self.packageRoot.appendingPathComponent("Examples/EmployeeDirectory/Tests/EmployeeDirectoryTests/Goldens")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: goldens.path).isEmpty, "the example keeps no golden file")
    }

    // MARK: The log and durability

    @Test func theLog() throws {
        let scratch = Scratch(), scratch2 = Scratch()
        let (store, _, _, _) = try gettingStarted(at: scratch.path)
        let schema = try store.schema(at: store.head)
        let scratchPath = scratch2.path
        let fast = try LogStore.create(at: scratchPath, schema: schema, options: StoreOptions(durable: false))
        #expect(try fast.head == 0)
        for transaction in try store.transactions(after: 0) {
            print(transaction.seq, transaction.author, transaction.changes.count)
        }
        #expect(try store.transactions(after: 0).map(\.seq) == [1, 2])
    }
}
