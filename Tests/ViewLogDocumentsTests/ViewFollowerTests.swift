import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
import ViewLogDocuments

/// The follow loop's contract (`watch`, the server's watch): every change set is the `diff` of its own from/to, with
/// and without seqs; they chain; the last reaches the head; the view is the view at each `to`. Random bursts of
/// transactions, taken one step at a time or several together (folded when some do not change the view), through
/// every kind of view a follow holds: stored windows, offsets, sections, to-one paths, aggregates.
@Suite struct ViewFollowerTests {
    static let selections: [ViewSelection] = FollowWorkload.viewNames.map { ViewSelection(view: $0) } + [
        ViewSelection(entity: "Employee", sort: "salary desc, name", limit: 2),
        ViewSelection(view: "window", offset: 1),
        ViewSelection(view: "headcount", limit: 3, offset: 1),
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyChangeSetIsTheDiffOfItsOwnSpanAndTheyChainToTheHead(seed: UInt64) throws {
        let path = TestScratch.newPath("follow")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var workload = FollowWorkload(seed: SeededGenerator.seed(default: seed))
        try workload.setUp(store)
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed) &+ 99)
        let start = try store.head
        let followers = try Self.selections.map { try ViewFollower(store: store, selection: $0, at: start) }
        var given = Array(repeating: 0, count: followers.count)
        var folded = 0
        for _ in 0..<40 {
            for _ in 0..<rng.int(1...3) { try workload.appendOne(store) }
            let head = try store.head
            for (k, follower) in followers.enumerated() where rng.chance(0.6) {
                let from = follower.position
                let movedFrom = follower.view.controller.position
                guard let step = try follower.step(to: head) else {
                    #expect(follower.position == from)
                    continue
                }
                if movedFrom > from { folded += 1 }
                given[k] += 1
                try Self.check(step, of: Self.selections[k], from: from, store: store)
                #expect(follower.position == head && step.changes.to == head)
                #expect(try follower.view.jsonText() == MaterializedView(store: store, selection: Self.selections[k], at: head).jsonText())
            }
        }
        // The last change set reaches the head: nothing the view shows changed since.
        let head = try store.head
        for (k, follower) in followers.enumerated() {
            if let step = try follower.step(to: head) {
                try Self.check(step, of: Self.selections[k], from: step.changes.from, store: store)
            }
            let rest = try MaterializedView.diff(store: store, selection: Self.selections[k], from: follower.position, to: head).changes
            #expect(rest.isEmpty, "\(Self.selections[k]): changes after the last change set")
        }
        #expect(given.allSatisfy { $0 >= 3 }, "every view changed: \(given)")
        #expect(folded > 0, "some change sets folded batches that changed nothing")
    }

    /// A watcher's window no stored view serves holds its first rows and a reserve, not the view: 600 employees, random
    /// inserts, updates and deletes that move rows through the window and use the reserve up, each step still the
    /// `diff` of its span, and the rows and values held bounded by the window and its reserve all along.
    @Test(arguments: [1, 2] as [UInt64])
    func aWatchedWindowHoldsItsFirstRowsNotTheView(seed: UInt64) throws {
        let path = TestScratch.newPath("first-rows")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed))
        var ids = Set<Int64>(), next: Int64 = 1
        func insert() -> ChangeRequest {
            defer { ids.insert(next); next += 1 }
            return .insert(entity: "Employee", id: .int(next), values: ["name": .string("e\(next)"),
                                                                        "height": .int(Int64(rng.int(140...210)))])
        }
        _ = try store.append((0..<600).map { _ in insert() }, author: "setup")
        let selections = [ViewSelection(entity: "Employee", predicate: "height > 160", sort: "height desc, name", limit: 5),
                          ViewSelection(entity: "Employee", predicate: "height >= 150", sort: "name", limit: 3, offset: 4)]
        let followers = try selections.map { try ViewFollower(store: store, selection: $0, at: try store.head) }
        // The window's end and twice the reserve (at least 64 rows), and twice the changes of the span a step moves over
        // (batches that changed nothing the window shows are folded into the next step): a move reads the window, the
        // reserve and the rows it touches again when it needs more.
        let bounds = selections.map { s in (s.offset ?? 0) + s.limit! + 2 * max(64, (s.offset ?? 0) + s.limit!) }
        var changesAt: [UInt64: Int] = [:]
        var refilled = 0
        for _ in 0..<150 {
            var changes: [ChangeRequest] = []
            var touched = Set<Int64>()
            for _ in 0..<rng.int(1...4) {
                let id = rng.pick(ids.sorted())
                guard touched.insert(id).inserted else { continue }
                switch rng.int(0...9) {
                case 0...1 where ids.count > 100:
                    ids.remove(id)
                    changes.append(.delete(entity: "Employee", id: .int(id)))
                case 2...3:
                    changes.append(insert())
                default:
                    // Mostly into the window's end of the order: a row that leaves it pulls the next one in.
                    changes.append(.update(entity: "Employee", id: .int(id), values: ["height": .int(Int64(rng.int(195...230)))]))
                }
            }
            let head = try store.append(changes, author: "w").seq
            changesAt[head] = changes.count
            for (k, follower) in followers.enumerated() {
                if try Self.stepFirstRows(follower, of: selections[k], to: head, bound: bounds[k], touchedAt: changesAt, store: store) {
                    refilled += 1
                }
            }
        }
        #expect(refilled > 0, "the reserve was used up and read again")
    }

    /// The key-path twin of ``aWatchedWindowHoldsItsFirstRowsNotTheView(seed:)``: a watched window sorted by
    /// `department.name` holds its first rows and their path values, not the view, through department renames that
    /// move a whole department across the window's edge, employees moved between departments, inserts and deletes —
    /// each step still the `diff` of its span.
    @Test(arguments: [1, 2] as [UInt64])
    func aWatchedWindowOverKeyPathsHoldsItsFirstRowsNotTheView(seed: UInt64) throws {
        let path = TestScratch.newPath("first-path-rows")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed))
        let departments = Array(Int64(1)...20), size = 30
        var ids = Set<Int64>(), next: Int64 = 100
        func insert() -> ChangeRequest {
            defer { ids.insert(next); next += 1 }
            return .insert(entity: "Employee", id: .int(next), values: ["name": .string("e\(rng.int(100...999))"),
                                                                        "department": .int(rng.pick(departments))])
        }
        _ = try store.append(departments.map { .insert(entity: "Department", id: .int($0), values: ["name": .string("d\(rng.int(10...99))")]) }
                             + (0..<(departments.count * size)).map { _ in insert() }, author: "setup")
        let selections = [ViewSelection(entity: "Employee", predicate: "name != 'nobody'", sort: "department.name, name", limit: 5),
                          ViewSelection(entity: "Employee", predicate: "name != 'nobody'", sort: "department.name, name",
                                        section: "department.name", limit: 4, offset: 3)]
        let followers = try selections.map { try ViewFollower(store: store, selection: $0, at: try store.head) }
        // The window's end and twice the reserve, and twice the rows the span a step moves over touched (a rename
        // touches a department's employees: about `size`, twice that after inserts).
        let bounds = selections.map { s in (s.offset ?? 0) + s.limit! + 2 * max(64, (s.offset ?? 0) + s.limit!) }
        var touchedAt: [UInt64: Int] = [:]
        var refilled = 0
        for _ in 0..<100 {
            var changes: [ChangeRequest] = []
            var touched = Set<Int64>(), reached = 0
            for _ in 0..<rng.int(1...3) {
                let id = rng.pick(ids.sorted())
                guard touched.insert(id).inserted else { continue }
                switch rng.int(0...9) {
                case 0 where ids.count > 300:
                    ids.remove(id)
                    changes.append(.delete(entity: "Employee", id: .int(id)))
                case 1:
                    changes.append(insert())
                case 2...4:
                    // Mostly to the front of the order: the department's employees enter the window, others leave it.
                    reached += 3 * size
                    changes.append(.update(entity: "Department", id: .int(rng.pick(departments)),
                                           values: ["name": .string(rng.chance(0.5) ? "a\(rng.int(10...99))" : "d\(rng.int(10...99))")]))
                case 5...6:
                    changes.append(.update(entity: "Employee", id: .int(id), values: ["department": .int(rng.pick(departments))]))
                default:
                    changes.append(.update(entity: "Employee", id: .int(id), values: ["name": .string("e\(rng.int(100...999))")]))
                }
            }
            guard !changes.isEmpty else { continue }
            let head = try store.append(changes, author: "w").seq
            touchedAt[head] = changes.count + reached
            for (k, follower) in followers.enumerated() {
                if try Self.stepFirstRows(follower, of: selections[k], to: head, bound: bounds[k], touchedAt: touchedAt, store: store) {
                    refilled += 1
                }
            }
        }
        #expect(refilled > 0, "the reserve was used up and read again")
    }

    /// The store's horizon passing the follow's position (DESIGN §13: a compaction, a schema's retention) does not end
    /// a follow that takes reloads: the view is opened again at the head and given to `reloaded`, and the next change
    /// set is the `diff` from there — what `watch` prints as `{"reload": true}` and a query document, and the server sends.
    @Test func aCompactionPastTheFollowReopensTheViewAtTheHead() async throws {
        let path = TestScratch.newPath("follow-compaction")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var workload = FollowWorkload(seed: 5)
        try workload.setUp(store)
        let selection = ViewSelection(entity: "Employee", sort: "name", limit: 3)
        let follower = try ViewFollower(store: store, selection: selection, at: try store.head)
        var reloadedAt: [UInt64] = [], viewAtReload = "", steps: [(UInt64, UInt64)] = []
        func rename(_ id: Int64, _ name: String) throws {
            _ = try store.append([.update(entity: "Employee", id: .int(id), values: ["name": .string(name)])], author: "t")
        }
        // Two appends the follower has not seen, and a compaction past both.
        let ids = workload.employees.sorted()
        try rename(ids[0], "Aaa")
        try rename(ids[1], "Aab")
        _ = try store.compact(.keepLast(0))
        try await follower.follow(store, count: 1, reloaded: { view in
            reloadedAt.append(view.controller.position)
            viewAtReload = try view.jsonText()
            try rename(ids[2], "Aac")  // one append the reopened view follows
        }) { step in
            steps.append((step.changes.from, step.changes.to))
        }
        let horizon = try store.horizon, head = try store.head
        #expect(horizon > 0 && reloadedAt == [horizon])
        #expect(try viewAtReload == MaterializedView(store: store, selection: selection, at: horizon).jsonText())
        #expect(steps.count == 1 && steps.first?.0 == horizon && steps.first?.1 == head, "\(steps)")
        #expect(try follower.view.jsonText() == MaterializedView(store: store, selection: selection, at: head).jsonText())
    }

    /// A follow across migrations (DESIGN §13): a rename is no change and a converted value an update or a move under
    /// the new name — change sets, never a reload, each the `diff` of its span, that applied one after another to the
    /// view at the start give the view at the end. A migration that sets the watched named view starts it again (§5's
    /// reload), one that removes it ends the follow (`view.removed`), and an ad hoc request reading an attribute a
    /// migration removed starts again (at the head, where it is checked).
    @Test func aFollowIsCarriedThroughMigrations() throws {
        let path = TestScratch.newPath("follow-migration")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try MigrationSpanTests.makeStore(path)
        let selections = [ViewSelection(view: "byCode"), ViewSelection(view: "byName"), ViewSelection(entity: "Item", sort: "code, name")]
        let followers = try selections.map { try ViewFollower(store: store, selection: $0, at: 1) }
        // The selection as `diff` and `query` name it at `p`: the ad hoc request's sort key is renamed at 2.
        func selection(_ k: Int, at p: UInt64) -> ViewSelection {
            k == 2 && p >= 2 ? ViewSelection(entity: "Item", sort: "sku, name") : selections[k]
        }
        var snapshots = followers.map(\.view.controller.snapshot)
        var given = 0
        func step(_ k: Int) throws {
            let from = followers[k].position
            guard let step = try followers[k].step(to: try store.head) else { return }
            given += 1
            try Self.check(step, of: selection(k, at: from), from: from, store: store)
            snapshots[k] = try #require(step.changes.applied(to: snapshots[k]), "\(selections[k]): \(step.changes)")
        }
        func migrate(_ json: String) throws { try store.migrate(try Migration(jsonText: json), author: "m") }
        func update(_ id: String, _ values: ObjectValues) throws {
            try store.append([.update(entity: "Item", id: .string(id), values: values)], author: "t")
        }
        try migrate(#"[{"renameAttribute": {"entity": "Item", "from": "code", "to": "sku"}}]"#)
        for k in followers.indices {
            #expect(try followers[k].step(to: try store.head).map(\.changes) == nil, "\(selections[k]): a rename is no change")
        }
        try update("i2", ["sku": .string("5")])
        try migrate(#"[{"changeType": {"entity": "Item", "attribute": "sku", "to": "int"}}]"#)
        for k in followers.indices { try step(k) }
        try update("i1", ["sku": .int(1)])
        for k in followers.indices { try step(k) }
        let head = try store.head
        for k in followers.indices {
            let fresh = try MaterializedView(store: store, selection: selection(k, at: head), at: head)
            #expect(snapshots[k] == fresh.controller.snapshot, "\(selections[k])")
            #expect(try followers[k].view.jsonText() == fresh.jsonText(), "\(selections[k])")
        }
        #expect(given >= 5, "the conversion and the update changed the views")

        try migrate(#"[{"setView": {"name": "byName", "view": {"entity": "Item", "sort": "sku"}}}]"#)
        #expect(throws: ViewFollower.Reopen.self) { try followers[1].step(to: try store.head) }
        try migrate(#"[{"removeView": "byCode"}]"#)
        #expect(throws: StoreError.viewRemoved("byCode", seq: try store.head)) { try followers[0].step(to: try store.head) }
        #expect(try followers[2].step(to: try store.head).map(\.changes) == nil, "a view not set or removed is carried")
        try migrate(#"[{"removeAttribute": {"entity": "Item", "name": "name"}}]"#)
        #expect(throws: ViewFollower.Reopen.self) { try followers[2].step(to: try store.head) }
        // Started again at the head, the request is refused there, naming the attribute: the follow ends with it.
        let refused = #expect(throws: QueryError.self) { try followers[2].reopenAtHead(of: store) }
        #expect(refused?.description.contains("'name'") == true, "\(String(describing: refused))")
    }

    /// An ad hoc follow carried through a rename, that a compaction then passes, starts again at the head under the
    /// names it was carried to (the request the user gave names the attribute as it was).
    @Test func anAdHocFollowCarriedThroughARenameStartsAgainUnderItsNewNames() async throws {
        let path = TestScratch.newPath("follow-migration")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try MigrationSpanTests.makeStore(path)
        let follower = try ViewFollower(store: store, selection: ViewSelection(entity: "Item", sort: "code, name"), at: 1)
        func update(_ id: String, _ sku: String) throws {
            try store.append([.update(entity: "Item", id: .string(id), values: ["sku": .string(sku)])], author: "t")
        }
        try store.migrate(try Migration(jsonText: #"[{"renameAttribute": {"entity": "Item", "from": "code", "to": "sku"}}]"#), author: "m")
        #expect(try follower.step(to: try store.head).map(\.changes) == nil)
        try update("i1", "0")
        _ = try store.compact(.keepLast(0))
        var reloaded: [String] = [], steps = 0
        try await follower.follow(store, count: 1, reloaded: { view in
            reloaded.append(try view.jsonText())
            try update("i2", "00")
        }) { _ in steps += 1 }
        let carried = ViewSelection(entity: "Item", sort: "sku, name")
        #expect(try reloaded == [MaterializedView(store: store, selection: carried, at: try store.horizon).jsonText()])
        #expect(steps == 1)
        #expect(try follower.view.jsonText() == MaterializedView(store: store, selection: carried, at: try store.head).jsonText())
    }

    /// `step`'s change set is `diff --from from --to to`'s, byte for byte, with and without seqs.
    /// Steps a watcher's window no stored view serves to `head` and checks it: the step is the `diff` of its span, the
    /// view the view at `head`, and the rows held (and, over key paths, their path values) at most `bound` and twice the
    /// rows touched (`touchedAt`, by seq) in the span; the values kept only the window's.
    /// - Returns: whether the rows held grew (the reserve was read again).
    static func stepFirstRows(_ follower: ViewFollower, of selection: ViewSelection, to head: UInt64, bound: Int,
                              touchedAt: [UInt64: Int], store: LogStore) throws -> Bool {
        let held = follower.view.controller.rows.count
        let from = follower.position
        let span = touchedAt.filter { $0.key > from }.values.reduce(0, +)
        if let step = try follower.step(to: head) { try check(step, of: selection, from: from, store: store) }
        let controller = follower.view.controller
        #expect(controller.holdsFirstRows, "\(selection)")
        #expect(controller.rows.count <= bound + 2 * span, "\(selection): \(controller.rows.count) rows held")
        if let relational = controller.relational {
            #expect(relational.pathValues.count <= bound + 2 * span, "\(selection): path values of \(relational.pathValues.count) rows held")
        }
        #expect(follower.view.values.count <= selection.limit!, "\(selection): values of rows not shown kept")
        #expect(try follower.view.jsonText() == MaterializedView(store: store, selection: selection, at: head).jsonText())
        return controller.rows.count > held
    }

    static func check(_ step: ViewFollower.Step, of selection: ViewSelection, from: UInt64, store: LogStore) throws {
        #expect(step.changes.from == from)
        let diff = try MaterializedView.diff(store: store, selection: selection, from: from, to: step.changes.to)
        for seq in [false, true] {
            #expect(step.changes.json(includeSeq: seq).text == diff.changes.json(includeSeq: seq).text,
                    "\(selection) \(from)…\(step.changes.to) seq \(seq)")
        }
    }
}
