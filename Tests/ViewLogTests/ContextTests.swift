import Foundation
import Testing
import TestSupport
import ViewLogTesting
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

let testDummySchemaText = """
{"entities": {"TestDummy": {"id": "int", "attributes": {
  "isEven": {"type": "bool", "default": false}, "value": {"type": "int", "default": 0},
  "label": {"type": "string", "optional": true}}}},
 "views": {"evens": {"entity": "TestDummy", "where": "isEven == YES", "sort": "value"}}}
"""

func makeDummyStore() throws -> LogStore {
    try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: testDummySchemaText), options: StoreOptions(durable: false))
}

func dummy(_ i: Int64) -> ObjectID { .int(i) }

/// Checks a recorded batch against the UITableView rules and the snapshots around it.
func expectValid(_ changes: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let problems = ChangeSetValidator.validate(changes, from: before, to: after)
        + ChangeSetValidator.validateSequential(changes, from: before, to: after)
    #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
}

@Suite("Contexts")
struct ContextTests {
    /// The Core Data sibling-stack scenario: a background context inserts objects that do not match, saves,
    /// then updates some so that they match, saves. After the main context merges, its controller reports
    /// exactly those objects as inserts — where NSFetchedResultsController reports nothing.
    @Test func siblingUpdatesThatNewlyMatchAreInserted() throws {
        let store = try makeDummyStore()
        let main = try Context(store: store, name: "main")
        let controller = try main.makeResultsController(view: "evens")
        let recorder = ChangeRecorder()
        recorder.attach(to: controller)

        let background = try Context(store: store, name: "background")
        for i in 0..<10 { try background.insert("TestDummy", id: dummy(Int64(i)), values: ["value": .int(Int64(i)), "isEven": .bool(false)]) }
        try background.save()
        for i in stride(from: 0, to: 10, by: 2) { try background.update("TestDummy", id: dummy(Int64(i)), values: ["isEven": .bool(true)]) }
        try background.save()

        #expect(controller.fetchedObjects.isEmpty, "the main context has not merged yet: its position is pinned")
        let before = controller.snapshot
        try main.refresh()
        #expect(main.position == 2)
        #expect(recorder.batches.count == 1, "one move is one batch")
        let batch = try #require(recorder.batches.first)
        #expect(batch.rowChanges.map(\.kind) == Array(repeating: .insert, count: 5))
        #expect(batch.rowChanges.map(\.id) == [0, 2, 4, 6, 8].map { dummy($0) })
        #expect(batch.rowChanges.allSatisfy { $0.seq == 2 }, "the update made them members")
        expectValid(batch, from: before, to: controller.snapshot)

        // The reverse: updated so that they stop matching → deletes.
        for i in [2, 6] as [Int64] { try background.update("TestDummy", id: dummy(i), values: ["isEven": .bool(false)]) }
        try background.save()
        let before2 = controller.snapshot
        try main.refresh()
        let batch2 = try #require(recorder.batches.last)
        #expect(batch2.rowChanges.map(\.kind) == [.delete, .delete])
        #expect(Set(batch2.rowChanges.map(\.id)) == [dummy(2), dummy(6)])
        expectValid(batch2, from: before2, to: controller.snapshot)
        #expect(controller.fetchedObjects == [0, 4, 8].map { dummy($0) })
    }

    @Test func stagedChangesReachControllersOnProcessPendingChangesAndSave() throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "ui")
        let controller = try context.makeResultsController(view: "evens")
        try context.insert("TestDummy", id: dummy(1), values: ["isEven": .bool(true), "value": .int(10)])
        #expect(controller.fetchedObjects.isEmpty)
        try context.processPendingChanges()
        #expect(controller.fetchedObjects == [dummy(1)])
        #expect(try store.head == 0, "nothing is appended before save")
        let recorder = ChangeRecorder()
        recorder.attach(to: controller)
        let saved = try #require(try context.save())
        #expect(saved.seq == 1 && saved.author == "ui")
        #expect(recorder.batches.isEmpty, "the change was already shown: saving it changes nothing in the view")
        #expect(context.position == 1 && !context.hasChanges)

        try context.update("TestDummy", id: dummy(1), values: ["isEven": .bool(false)])
        try context.rollback()
        #expect(controller.fetchedObjects == [dummy(1)])
        #expect(try context.save() == nil, "nothing to save after a rollback")
    }

    @Test func insertThenDeleteInOneContextIsNothing() throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "c")
        try context.insert("TestDummy", id: dummy(1), values: [:])
        try context.delete("TestDummy", id: dummy(1))
        #expect(!context.hasChanges)
        #expect(throws: StoreError.self) { try context.update("TestDummy", id: dummy(1), values: ["value": .int(1)]) }
        #expect(throws: StoreError.self) { try context.insert("TestDummy", id: dummy(2), values: ["value": .string("x")]) }
    }

    // MARK: Merge policies

    func twoContextsEditingOneObject(_ policy: MergePolicy) throws -> (LogStore, Context, Context) {
        let store = try makeDummyStore()
        let setup = try Context(store: store, name: "setup")
        try setup.insert("TestDummy", id: dummy(1), values: ["value": .int(1), "label": .string("one")])
        try setup.insert("TestDummy", id: dummy(2), values: ["value": .int(2)])
        try setup.save()
        let mine = try Context(store: store, name: "mine")
        mine.mergePolicy = policy
        let theirs = try Context(store: store, name: "theirs")
        return (store, mine, theirs)
    }

    @Test func errorPolicyThrowsAConflictNamingObjectAndAttributeAndAppendsNothing() throws {
        let (store, mine, theirs) = try twoContextsEditingOneObject(.error)
        try theirs.update("TestDummy", id: dummy(1), values: ["value": .int(100)])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["value": .int(5)])
        try mine.update("TestDummy", id: dummy(2), values: ["value": .int(6)])
        let head = try store.head
        #expect(throws: StoreError.conflict([Conflict(key: ObjectKey(entity: "TestDummy", id: dummy(1)), attributes: ["value"], seq: 2)])) {
            try mine.save()
        }
        #expect(try store.head == head)
        #expect(mine.hasChanges, "a refused save keeps the changes staged")
    }

    @Test func mergeByPropertyMergesDisjointAttributesAndRefusesOverlaps() throws {
        let (store, mine, theirs) = try twoContextsEditingOneObject(.mergeDisjointProperties)
        try theirs.update("TestDummy", id: dummy(1), values: ["value": .int(100)])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["label": .string("uno")])
        try mine.save()
        let merged = try #require(try store.object(ObjectKey(entity: "TestDummy", id: dummy(1))))
        #expect(merged["value"] == .int(100) && merged["label"] == .string("uno"))

        try theirs.refresh()
        try theirs.update("TestDummy", id: dummy(1), values: ["label": .string("eins")])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["label": .string("un")])
        #expect(throws: StoreError.self) { try mine.save() }
    }

    @Test func rollbackDropsTheContextsChangeOfAConflictingObjectOnly() throws {
        let (store, mine, theirs) = try twoContextsEditingOneObject(.rollback)
        try theirs.update("TestDummy", id: dummy(1), values: ["value": .int(100)])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["value": .int(5)])
        try mine.update("TestDummy", id: dummy(2), values: ["value": .int(6)])
        try mine.save()
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(1)))?["value"] == .int(100))
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2)))?["value"] == .int(6))
    }

    @Test func objectTrumpWritesTheContextsChangesAndRecreatesDeletedObjects() throws {
        let (store, mine, theirs) = try twoContextsEditingOneObject(.mergeByPropertyObjectTrump)
        try theirs.update("TestDummy", id: dummy(1), values: ["value": .int(100)])
        try theirs.delete("TestDummy", id: dummy(2))
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["value": .int(5)])
        try mine.update("TestDummy", id: dummy(2), values: ["value": .int(6)])
        try mine.save()
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(1)))?["value"] == .int(5))
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2)))?["value"] == .int(6))
        #expect(try store.verify().isOK)
    }

    /// Both sides change `value` of object 1; the context also changes `label`. Core Data's meanings, side by side.
    func conflictingEdits(_ policy: MergePolicy) throws -> (store: LogStore, key: ObjectKey) {
        let (store, mine, theirs) = try twoContextsEditingOneObject(policy)
        try theirs.update("TestDummy", id: dummy(1), values: ["value": .int(100), "label": .string("theirs")])
        try theirs.update("TestDummy", id: dummy(2), values: ["value": .int(200)])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["value": .int(5)])
        try mine.update("TestDummy", id: dummy(2), values: ["label": .string("mine")])
        try mine.save()
        #expect(try store.verify().isOK)
        return (store, ObjectKey(entity: "TestDummy", id: dummy(1)))
    }

    @Test func storeTrumpKeepsTheStoresAttributesAndTheContextsOthers() throws {
        let (store, key) = try conflictingEdits(.mergeByPropertyStoreTrump)
        #expect(try store.object(key)?["value"] == .int(100), "the store's value of an attribute both changed")
        #expect(try store.object(key)?["label"] == .string("theirs"))
        let other = try #require(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2))))
        #expect(other["value"] == .int(200) && other["label"] == .string("mine"), "disjoint attributes merge")
    }

    @Test func objectTrumpKeepsTheContextsAttributesAndTheStoresOthers() throws {
        let (store, key) = try conflictingEdits(.mergeByPropertyObjectTrump)
        #expect(try store.object(key)?["value"] == .int(5), "the context's value of an attribute both changed")
        #expect(try store.object(key)?["label"] == .string("theirs"), "the store's change of another attribute survives")
    }

    @Test func overwriteWritesTheContextsWholeObject() throws {
        let (store, key) = try conflictingEdits(.overwrite)
        #expect(try store.object(key)?["value"] == .int(5))
        #expect(try store.object(key)?["label"] == .string("one"), "the store's change is overwritten by the context's view")
        let other = try #require(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2))))
        #expect(other["value"] == .int(2) && other["label"] == .string("mine"))
    }

    @Test func overwriteRecreatesAndDeletes() throws {
        let (store, mine, theirs) = try twoContextsEditingOneObject(.overwrite)
        try theirs.delete("TestDummy", id: dummy(1))
        try theirs.update("TestDummy", id: dummy(2), values: ["value": .int(20)])
        try theirs.save()
        try mine.update("TestDummy", id: dummy(1), values: ["value": .int(7)])
        try mine.delete("TestDummy", id: dummy(2))
        try mine.save()
        let back = try #require(try store.object(ObjectKey(entity: "TestDummy", id: dummy(1))))
        #expect(back["value"] == .int(7) && back["label"] == .string("one"))
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2))) == nil)
        #expect(try store.verify().isOK)
    }

    @Test func rollbackKeepsTheStoresObject() throws {
        let (store, key) = try conflictingEdits(.rollback)
        #expect(try store.object(key)?["value"] == .int(100) && store.object(key)?["label"] == .string("theirs"))
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: dummy(2)))?["label"] != .string("mine"))
    }

    @Test(arguments: MergePolicy.allCases)
    func concurrentSavesFromManyTasks(policy: MergePolicy) async throws {
        let store = try makeDummyStore()
        let setup = try Context(store: store, name: "setup")
        for i in 0..<4 { try setup.insert("TestDummy", id: dummy(Int64(i)), values: ["value": .int(0)]) }
        try setup.save()
        let tasks = 8, rounds = 20
        let outcomes = await withTaskGroup(of: (saved: Int, conflicts: Int).self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var saved = 0, conflicts = 0
                    guard let context = try? Context(store: store, name: "task\(t)") else { return (0, 0) }
                    context.mergePolicy = policy
                    for r in 0..<rounds {
                        do {
                            try context.refresh()
                            // Every task touches object 0 (contended) and one of its own attributes elsewhere.
                            try context.update("TestDummy", id: dummy(0), values: ["value": .int(Int64(t * 1000 + r))])
                            try context.update("TestDummy", id: dummy(Int64(1 + t % 3)), values: ["label": .string("t\(t)r\(r)")])
                            if try context.save() != nil { saved += 1 }
                        } catch StoreError.conflict {
                            conflicts += 1
                            try? context.rollback()
                        } catch {
                            Issue.record("task \(t): \(error)")
                        }
                        await Task.yield()
                    }
                    return (saved, conflicts)
                }
            }
            var all: [(Int, Int)] = []
            for await o in group { all.append(o) }
            return all
        }
        let saved = outcomes.map(\.0).reduce(0, +), conflicts = outcomes.map(\.1).reduce(0, +)
        #expect(saved + conflicts <= tasks * rounds)
        #expect(try store.head == UInt64(1 + saved), "every save is one transaction; refused saves append nothing")
        if policy != .error && policy != .mergeDisjointProperties { #expect(conflicts == 0, "\(policy) never refuses a save") }
        if policy == .mergeByPropertyObjectTrump || policy == .overwrite { #expect(saved == tasks * rounds) }
        #expect(try store.verify().isOK)
    }

    // MARK: Moving

    @Test func movingBackwardsAndForwardsGivesValidBatchesAndFreshViews() throws {
        let store = try makeStore()
        var rng = SeededGenerator(stream: 41)
        var ids: [String] = []
        for step in 0..<60 {
            var changes: [ChangeRequest] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let roll = Int.random(in: 0..<10, using: &rng)
                if ids.isEmpty || roll < 4 {
                    let id = "e\(step)-\(changes.count)"
                    if changes.contains(where: { $0.key.id == .string(id) }) { continue }
                    ids.append(id)
                    changes.append(.insert(entity: "Employee", id: .string(id), values: [
                        "name": .string(["Ann", "Bob", "Cy", "Di"].randomElement(using: &rng)!),
                        "height": Bool.random(using: &rng) ? .null : .int(Int64.random(in: 150...200, using: &rng)),
                        "sectionName": .string(["A", "B", "C"].randomElement(using: &rng)!)]))
                } else if roll < 8 {
                    let id = ids.randomElement(using: &rng)!
                    if changes.contains(where: { $0.key.id == .string(id) }) { continue }
                    changes.append(.update(entity: "Employee", id: .string(id), values: [
                        "height": .int(Int64.random(in: 150...200, using: &rng)),
                        "sectionName": .string(["A", "B", "C", "D"].randomElement(using: &rng)!)]))
                } else {
                    let i = Int.random(in: 0..<ids.count, using: &rng)
                    let id = ids[i]
                    if changes.contains(where: { $0.key.id == .string(id) }) { continue }
                    ids.remove(at: i)
                    changes.append(.delete(entity: "Employee", id: .string(id)))
                }
            }
            if !changes.isEmpty { try store.append(changes, author: "gen") }
        }
        let head = try store.head
        let requests = [
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170"), sortDescriptors: try ViewSortDescriptor.parse("sectionName, height desc, name"), sectionKey: "sectionName"),
            FetchRequest(entity: "Employee", sortDescriptors: try ViewSortDescriptor.parse("name, height"), limit: 5, offset: 2),
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height == nil OR name BEGINSWITH 'A'"), sortDescriptors: try ViewSortDescriptor.parse("height desc")),
        ]
        let context = try Context(store: store, name: "reader", at: head / 2)
        let controllers = try requests.map { try context.makeResultsController($0) }
        let recorders = controllers.map { c in let r = ChangeRecorder(); r.attach(to: c); return r }
        for _ in 0..<25 {
            let target = UInt64.random(in: 0...head, using: &rng)
            let before = controllers.map(\.snapshot)
            let batchesBefore = recorders.map(\.batches.count)
            try context.move(to: target)
            for (i, c) in controllers.enumerated() {
                #expect(c.position == target)
                let fresh = try ResultsController(fetchRequest: requests[i], entity: try store.schema.entity(named: "Employee"),
                                                  objects: try store.objects(of: "Employee", at: target).map { ($0.id, $0.values) })
                #expect(c.snapshot == fresh.snapshot, "view \(i) at \(target) (seed \(rng.seed))")
                #expect(recorders[i].batches.count <= batchesBefore[i] + 1, "one move is at most one batch")
                if recorders[i].batches.count > batchesBefore[i] {
                    expectValid(recorders[i].batches.last!, from: before[i], to: c.snapshot)
                } else {
                    #expect(before[i] == c.snapshot)
                }
            }
        }
        #expect(throws: StoreError.positionPastHead(position: head + 1, head: head)) { try context.move(to: head + 1) }
    }

    @Test func resetIsReportedAsOneReload() throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "c")
        let controller = try context.makeResultsController(view: "evens")
        let recorder = ChangeRecorder()
        recorder.attach(to: controller)
        try store.append([.insert(entity: "TestDummy", id: dummy(1), values: ["isEven": .bool(true)])], author: "other")
        try context.reset()
        #expect(recorder.events.count == 1)
        guard case .reload? = recorder.events.first else { Issue.record("expected a reload, got \(recorder.events)"); return }
        #expect(controller.fetchedObjects == [dummy(1)])
    }

    // MARK: Readers

    /// A context pins its position by seq, not by an open LMDB reader: rewriting the same objects many times
    /// while a context sits at position 1 lets LMDB reuse pages, so the file stays small. The control run
    /// holds a real read transaction open during the same workload and the file grows far more.
    @Test func aContextAtAnOldPositionDoesNotMakeTheFileGrow() throws {
        func workload(holdReader: Bool) throws -> Int {
            let store = try makeStore()
            let payload = String(repeating: "x", count: 400)
            try store.append((0..<50).map { .insert(entity: "Employee", id: .string("e\($0)"), values: ["name": .string(payload)]) }, author: "setup")
            let context = try Context(store: store, name: "old")
            _ = try context.makeResultsController(FetchRequest(entity: "Employee"))
            let opened = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            if holdReader {
                Thread.detachNewThread {
                    _ = try? store.environment.read { _ in opened.signal(); release.wait() }
                }
                opened.wait()
            }
            for round in 0..<400 {
                try store.append((0..<50).map { .update(entity: "Employee", id: .string("e\($0)"), values: ["height": .int(Int64(round))]) }, author: "writer")
            }
            let used = store.usedBytes
            if holdReader { release.signal() }
            #expect(context.position == 1)
            _ = try context.objects(of: "Employee")
            return used
        }
        let pinnedBySeq = try workload(holdReader: false)
        let pinnedByReader = try workload(holdReader: true)
        #expect(pinnedBySeq * 3 < pinnedByReader, "seq-pinned: \(pinnedBySeq) bytes, reader-pinned: \(pinnedByReader) bytes")
    }

    // MARK: Automatic merging

    @MainActor
    @Test func mergesAutomaticallyWhenAnotherContextSaves() async throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "ui")
        let controller = try context.makeResultsController(view: "evens")
        let follower = Task { @MainActor in try await context.mergeChangesAutomatically() }
        defer { follower.cancel() }
        let writer = Task.detached {
            let background = try Context(store: store, name: "bg")
            try background.insert("TestDummy", id: .int(7), values: ["isEven": .bool(true), "value": .int(7)])
            try background.save()
        }
        try await writer.value
        for _ in 0..<1000 where context.position < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(context.position == 1)
        #expect(controller.fetchedObjects == [.int(7)])
    }

    /// The switch form (issue 38): Core Data's `automaticallyMergesChangesFromParent = true` is a call that returns at
    /// once — the test never awaits a never-ending call — and a sibling context's save reaches the controller.
    @MainActor
    @Test func theMergeSwitchReturnsAtOnceAndFollowsASibling() async throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "ui")
        let controller = try context.makeResultsController(view: "evens")
        #expect(!context.automaticallyMergesChanges)
        context.startMergingChangesAutomatically()
        context.startMergingChangesAutomatically()  // already on: nothing more
        #expect(context.automaticallyMergesChanges)
        let sibling = try Context(store: store, name: "sibling")
        try sibling.insert("TestDummy", id: .int(8), values: ["isEven": .bool(true), "value": .int(8)])
        try sibling.save()
        #expect(controller.fetchedObjects.isEmpty)  // not yet: the follower runs when this test awaits
        for _ in 0..<1000 where controller.fetchedObjects.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(controller.fetchedObjects == [.int(8)])
        #expect(context.position == 1 && context.automaticMergeError == nil)

        // Off: a later save is not merged.
        context.stopMergingChangesAutomatically()
        #expect(!context.automaticallyMergesChanges)
        try sibling.insert("TestDummy", id: .int(10), values: ["isEven": .bool(true), "value": .int(10)])
        try sibling.save()
        try await Task.sleep(for: .milliseconds(200))
        #expect(context.position == 1 && controller.fetchedObjects == [.int(8)])

        // On again: it catches up with the head it finds.
        context.startMergingChangesAutomatically()
        for _ in 0..<1000 where context.position < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(controller.fetchedObjects == [.int(8), .int(10)])
        context.stopMergingChangesAutomatically()
    }

    /// The follower does not keep its context alive, and stops with it.
    @MainActor
    @Test func theMergeSwitchStopsWithTheContext() async throws {
        let store = try makeDummyStore()
        var context: Context? = try Context(store: store, name: "ui")
        weak let released = context
        context!.startMergingChangesAutomatically()
        try await Task.sleep(for: .milliseconds(20))
        context = nil
        #expect(released == nil)
        let sibling = try Context(store: store, name: "sibling")
        try sibling.insert("TestDummy", id: .int(2), values: ["isEven": .bool(true), "value": .int(2)])
        try sibling.save()
        try await Task.sleep(for: .milliseconds(50))
        #expect(released == nil)
    }

    // MARK: Typed models

    struct Dummy: EntityType {
        static let entityName = "TestDummy"
        var id: Int
        var isEven: Bool
        var value: Int
        var label: String?
    }

    @Test func typedObjectsGoThroughAContext() throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "typed")
        try context.insert(Dummy(id: 1, isEven: false, value: 3, label: nil))
        try context.insert(Dummy(id: 2, isEven: true, value: 4, label: "two"))
        try context.save()
        var one = try #require(try context.object(Dummy.self, id: 1))
        #expect(one.value == 3 && one.label == nil)
        one.isEven = true
        one.value = 1
        try context.update(one)
        try context.save()
        let controller = try context.makeResultsController(view: "evens")
        #expect(try context.objects(Dummy.self, of: controller).map(\.id) == [1, 2])
        try context.delete(Dummy.self, id: 2)
        try context.save()
        #expect(try context.object(Dummy.self, id: 2) == nil)
        #expect(controller.fetchedObjects == [.int(1)])
    }
}

@Suite("Contexts: staged values")
struct ContextStagedValuesTests {
    @Test func stagedInsertsShowTheirDefaultsBeforeTheSave() throws {
        let store = try makeDummyStore()
        let context = try Context(store: store, name: "c")
        try context.insert("TestDummy", id: .int(1), values: ["isEven": .bool(true)])
        let staged = try #require(try context.object(ObjectKey(entity: "TestDummy", id: .int(1))))
        #expect(staged["value"] == .int(0) && staged["label"] == .null)
        let controller = try context.makeResultsController(view: "evens")
        let before = controller.snapshot
        try context.save()
        #expect(controller.snapshot == before)
        #expect(try store.object(ObjectKey(entity: "TestDummy", id: .int(1))) == staged)
    }
}
