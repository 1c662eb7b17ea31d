import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogDocuments

/// Random appends and migrations (renames of an attribute and of the entity, a string ↔ int conversion) against a
/// plain model: every position's objects are the model's in the schema of that position, and `diff` across any span
/// is a change set that takes the view at its start to the view at its end (DESIGN §13).
@Suite struct MigrationModelTests {
    static let schema = """
    {"entities": {"Item": {"id": "string", "attributes": {"code": {"type": "string"}, "n": {"type": "int", "optional": true}}}},
     "views": {"v": {"entity": "Item", "where": "n != 3", "sort": "code, n"}}}
    """

    struct Model {
        var entity = "Item", number = "n", codeIsInt = false
        var objects: [ObjectID: ObjectValues] = [:]
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyPositionAndEverySpanMatchesAPlainModel(seed: UInt64) throws {
        try Self.withHistory(seed: seed) { store, history, rng in try checkPositionsAndSpans(store, history, &rng) }
    }

    /// A context with a results controller moved at random, forwards and backwards, across the migrations: each
    /// move's change set applied to the view before gives the view after (the one a fresh controller shows there),
    /// and its request carries the names of its position — never a refusal, never a reload.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aContextWithAControllerIsCarriedThroughMigrations(seed: UInt64) throws {
        try Self.withHistory(seed: seed) { store, history, rng in try moveAContext(store, history, &rng) }
    }

    func moveAContext(_ store: LogStore, _ history: [Model], _ rng: inout SeededGenerator) throws {
        let head = try store.head
        let context = try Context(store: store, name: "ui", at: 0)
        let controller = try context.makeResultsController(view: "v")
        var events: [ViewEvent] = []
        let observation = controller.observe { events.append($0) }
        defer { observation.cancel() }
        for _ in 0..<60 {
            let target = UInt64(rng.int(0...Int(head)))
            let before = controller.snapshot, from = context.position
            events = []
            try context.move(to: target)
            let fresh = try Context(store: store, name: "fresh", at: target).makeResultsController(view: "v")
            #expect(controller.snapshot == fresh.snapshot, "\(from) → \(target)")
            #expect(controller.fetchRequest.entity == history[Int(target)].entity, "\(from) → \(target)")
            #expect(controller.fetchRequest.predicate.expression == fresh.fetchRequest.predicate.expression)
            #expect(controller.fetchRequest.sortDescriptors == fresh.fetchRequest.sortDescriptors)
            for event in events {
                guard case .changes(let changes) = event else { Issue.record("\(from) → \(target): \(event)"); continue }
                #expect(changes.applied(to: before) == fresh.snapshot, "\(from) → \(target): \(changes)")
            }
            if events.isEmpty { #expect(before == fresh.snapshot, "\(from) → \(target)") }
        }
    }

    /// A follower (`watch`, the server's watch) of the view from the start to the head in random steps: never a
    /// reload; each change set is the `diff` of its span, and applied one after another to the view at the start they
    /// give the view at the head.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aFollowerIsCarriedThroughMigrations(seed: UInt64) throws {
        try Self.withHistory(seed: seed) { store, history, rng in
            let selection = ViewSelection(view: "v"), head = try store.head
            let follower = try ViewFollower(store: store, selection: selection, at: 0)
            var snapshot = follower.view.controller.snapshot, at: UInt64 = 0, given = 0
            while at < head {  // bounded: each turn moves `at` on
                at = min(head, at + UInt64(rng.int(1...4)))
                let from = follower.position
                guard let step = try follower.step(to: at) else { continue }
                given += 1
                try ViewFollowerTests.check(step, of: selection, from: from, store: store)
                snapshot = try #require(step.changes.applied(to: snapshot), "\(from) → \(at): \(step.changes)")
            }
            let fresh = try MaterializedView(store: store, selection: selection, at: head)
            #expect(snapshot == fresh.controller.snapshot)
            #expect(try follower.view.jsonText() == fresh.jsonText())
            #expect(given > 0)
        }
    }

    /// A store of random appends and migrations (seeded by `seed`) and its model at every position, for `body`.
    static func withHistory(seed: UInt64, _ body: (LogStore, [Model], inout SeededGenerator) throws -> Void) throws {
        let path = TestScratch.newPath("migration-model")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed))
        let (store, history) = try makeHistory(path, &rng)
        try body(store, history, &rng)
    }

    static func makeHistory(_ path: String, _ rng: inout SeededGenerator) throws -> (LogStore, [Model]) {
        let store = try LogStore.create(at: path, schema: try Schema(jsonText: Self.schema), options: StoreOptions(durable: false))
        var model = Model(), history: [Model] = [model], next = 0, migrations = 0
        func code() -> Value {
            let text = rng.pick(["007", "7", "10", "2", "042", "3"])
            return model.codeIsInt ? .int(Int64(text)!) : .string(text)
        }
        for _ in 0..<40 {
            if rng.chance(0.2) {
                // One migration of one or two steps, the model changed the same way.
                var steps: [String] = []
                if rng.chance(0.5) {
                    let to = model.number == "n" ? "m" : "n"
                    steps.append(#"{"renameAttribute": {"entity": "\#(model.entity)", "from": "\#(model.number)", "to": "\#(to)"}}"#)
                    for (id, var v) in model.objects {
                        v[to] = v.removeValue(forKey: model.number)
                        model.objects[id] = v
                    }
                    model.number = to
                }
                if rng.chance(0.5) {
                    let to = model.entity == "Item" ? "Thing" : "Item"
                    steps.append(#"{"renameEntity": {"from": "\#(model.entity)", "to": "\#(to)"}}"#)
                    model.entity = to
                }
                steps.append(#"{"changeType": {"entity": "\#(model.entity)", "attribute": "code", "to": "\#(model.codeIsInt ? "string" : "int")"}}"#)
                for (id, var v) in model.objects {
                    switch v["code"]! {
                    case .int(let i): v["code"] = .string(String(i))
                    case .string(let s): v["code"] = .int(Int64(s)!)
                    default: Issue.record("code is a string or an int")
                    }
                    model.objects[id] = v
                }
                model.codeIsInt.toggle()
                try store.migrate(try Migration(jsonText: "[" + steps.joined(separator: ", ") + "]"), author: "m")
                migrations += 1
            } else {
                var changes: [ChangeRequest] = []
                for _ in 0..<rng.int(1...3) {
                    let existing = model.objects.keys.sorted()
                    let n: Value = rng.chance(0.2) ? .null : .int(Int64(rng.int(0...5)))
                    if existing.isEmpty || rng.chance(0.5) {
                        next += 1
                        let id = ObjectID.string("i\(next)")
                        let values: ObjectValues = ["code": code(), model.number: n]
                        changes.append(.insert(entity: model.entity, id: id, values: values))
                        model.objects[id] = values
                    } else if rng.chance(0.7) {
                        let id = rng.pick(existing)
                        let values: ObjectValues = rng.chance(0.5) ? ["code": code()] : [model.number: n]
                        changes.append(.update(entity: model.entity, id: id, values: values))
                        model.objects[id]!.merge(values) { $1 }
                    } else {
                        let id = rng.pick(existing)
                        changes.append(.delete(entity: model.entity, id: id))
                        model.objects[id] = nil
                    }
                }
                try store.append(changes, author: "t")
            }
            history.append(model)
        }
        #expect(migrations >= 3, "the run migrates several times")
        return (store, history)
    }

    func checkPositionsAndSpans(_ store: LogStore, _ history: [Model], _ rng: inout SeededGenerator) throws {
        #expect(try store.verify().isOK)
        let head = try store.head
        #expect(Int(head) == history.count - 1)
        for p in 0...head {
            let m = history[Int(p)]
            let objects = try store.objects(of: m.entity, at: p)
            #expect(Dictionary(uniqueKeysWithValues: objects.map { ($0.id, $0.values.filter { !$0.value.isNull }) })
                    == m.objects.mapValues { $0.filter { !$0.value.isNull } }, "position \(p)")
        }
        let selection = ViewSelection(view: "v")
        for _ in 0..<60 {
            let a = UInt64(rng.int(0...Int(head))), b = UInt64(rng.int(0...Int(head)))
            let (view, changes, _) = try MaterializedView.diff(store: store, selection: selection, from: a, to: b)
            var rows = try MaterializedView(store: store, selection: selection, at: a).controller.fetchedObjects
            let removed = Set(changes.rowChanges.filter { $0.kind == .move || $0.kind == .delete }.map(\.id))
            rows.removeAll { removed.contains($0) }
            for change in changes.rowChanges.filter({ $0.kind == .move || $0.kind == .insert }).sorted(by: { $0.to![1] < $1.to![1] }) {
                rows.insert(change.id, at: change.to![1])
            }
            let expected = try MaterializedView(store: store, selection: selection, at: b).controller.fetchedObjects
            #expect(rows == expected, "diff \(a) → \(b)")
            #expect(view.controller.fetchedObjects == expected, "diff \(a) → \(b): the view at its end")
            // A rename alone is no change: an update names a value that differs, under the names at `b`.
            let names: Set<String> = ["code", history[Int(b)].number]
            for change in changes.rowChanges where change.kind == .update {
                #expect(!change.changed.isEmpty && Set(change.changed).isSubset(of: names), "diff \(a) → \(b): \(change)")
            }
        }
    }
}
