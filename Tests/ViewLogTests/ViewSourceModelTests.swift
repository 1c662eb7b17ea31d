import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews
import ViewLogTesting

/// Every source a live controller's rows come from (``ViewSource``: the whole view, a flat stored window, a stored
/// window over key paths, a stored range below the head) against the same views built in memory, through random
/// writes by another writer, merges, moves both ways, staged changes, saves and rollbacks — with faults injected into
/// the stored views' reads. Each controller must report what the in-memory one reports (change sets with their
/// seqs, by the UITableView rules too), hold its rows and path values, and never stay behind its context: a source
/// that cannot read gives way to the whole view, and a controller that cannot follow at all says so with a reload.
@Suite struct ViewSourceModelTests {
    /// The requests followed: every named view of ``FollowWorkload`` (windowed ones with other windows too) and one
    /// that no stored view serves.
    static func requests(_ schema: Schema) throws -> [FetchRequest] {
        var out: [FetchRequest] = []
        for name in FollowWorkload.viewNames { out.append(try FetchRequest(schema.views[name]!)) }
        var offset = try FetchRequest(schema.views["headcount"]!)
        offset.limit = 3
        offset.offset = 1
        out.append(offset)
        var adHoc = try FetchRequest(schema.views["window"]!)
        adHoc.predicate = try ViewPredicate("height > 160")
        out.append(adHoc)
        return out
    }

    /// Windows a watcher follows that no stored view serves (``ViewSource/firstRows(exact:)``): with an offset, with
    /// sections, with a predicate that rows enter and leave.
    static func watchedWindows(_ schema: Schema) throws -> [FetchRequest] {
        var tall = try FetchRequest(schema.views["window"]!)
        tall.predicate = try ViewPredicate("height > 170")
        tall.offset = 1
        var sections = try FetchRequest(schema.views["sections"]!)
        sections.predicate = try ViewPredicate("height >= 150")
        sections.limit = 4
        sections.offset = 2
        var page = try FetchRequest(schema.views["page"]!)
        page.predicate = try ViewPredicate("name != 'nobody'")
        // Over key paths: a department rename moves its employees across the window's edge, a delete nullifies them.
        var byDepartment = try FetchRequest(schema.views["byDepartment"]!)
        byDepartment.predicate = try ViewPredicate("name != 'nobody'")
        byDepartment.offset = 1
        var departmentSections = try FetchRequest(schema.views["byDepartment"]!)
        departmentSections.predicate = try ViewPredicate("height >= 150")
        departmentSections.sectionKey = "department.name"
        departmentSections.limit = 3
        var headcount = try FetchRequest(schema.views["headcount"]!)
        headcount.predicate = try ViewPredicate("ANY employees.height > 160")
        return [tall, sections, page, byDepartment, departmentSections, headcount]
    }

    /// A controller and its in-memory twin, with what each reported since the last check.
    final class Pair {
        let stored: ResultsController, memory: ResultsController
        var storedEvents: [ViewEvent] = [], memoryEvents: [ViewEvent] = []
        var before: ViewSnapshot
        var observations: [ViewObservation] = []
        init(stored: ResultsController, memory: ResultsController) {
            self.stored = stored
            self.memory = memory
            before = stored.snapshot
            observations = [stored.observe { [unowned self] in storedEvents.append($0) },
                            memory.observe { [unowned self] in memoryEvents.append($0) }]
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everySourceFollowsAsTheViewInMemoryThroughFaults(seed: UInt64) throws {
        let path = TestScratch.newPath("sources")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var workload = FollowWorkload(seed: SeededGenerator.seed(default: seed))
        try workload.setUp(store)
        for _ in 0..<10 { try workload.appendOne(store) }
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed) &+ 1)
        let requests = try Self.requests(try store.schema)
        let label = "seed \(seed) (VIEWLOG_SEED=\(SeededGenerator.seed(default: seed)))"

        // Two contexts and their in-memory twins, made again from time to time (a partial source gives way to the
        // whole view for good): at the head, or a few transactions below it.
        func open(at position: UInt64) throws -> (stored: Context, memory: Context, pairs: [Pair]) {
            let stored = try Context(store: store, name: "stored", at: position)
            let memory = try Context(store: store, name: "memory", at: position)
            var pairs = try requests.map {
                Pair(stored: try stored.makeResultsController($0), memory: try memory.makeResultsControllerAndObjects($0).controller)
            }
            // A watcher's windows no stored view serves: their first rows and a small reserve, read again as moves use
            // it up.
            stored.firstRowsReserveMinimum = 1
            for request in try Self.watchedWindows(try store.schema) {
                pairs.append(Pair(stored: try stored.openView(request, for: .watch, keepingRows: false).controller,
                                  memory: try memory.makeResultsControllerAndObjects(request).controller))
            }
            return (stored, memory, pairs)
        }
        var contexts = [try open(at: try store.head), try open(at: try store.head - 3)]
        var kinds = Set<String>()
        var faults = 0, faultsOnPartial = 0, reloads = 0, gaveWay = 0
        for round in 0..<120 {
            if rng.chance(0.4) { try workload.appendOne(store) }
            let k = rng.int(0...1)
            if rng.chance(0.15) { contexts[k] = try open(at: try store.head - UInt64(rng.int(0...4))) }
            let (stored, memory, pairs) = contexts[k]
            for c in pairs.map(\.stored) {
                kinds.insert(c.holdsStoredWindow ? "stored window" : c.holdsStoredPathWindow ? "stored path window"
                             : c.holdsStoredPathRange ? "stored path range"
                             : c.holdsFirstRows ? (c.relational == nil ? "first rows" : "first rows over key paths") : "whole")
            }
            let injected = rng.chance(0.4) ? rng.int(1...3) : 0
            store.storedViewFaults.withLock { $0 = injected }
            let partial = pairs.map(\.stored.holdsPartOfView)
            var saved = false
            switch rng.int(0...9) {
            case 0...2:
                try stored.refresh()
                try memory.refresh()
            case 3...4:
                let head = try store.head
                let to = UInt64(rng.int(Int(max(1, head - 6))...Int(head)))
                try stored.move(to: to)
                try memory.move(to: to)
            case 5...7:
                // A staged change, shown to the controllers (objects deleted at this position refuse it: skipped).
                let id = rng.pick(workload.employees.sorted())
                let values: ObjectValues = rng.chance(0.5) ? ["height": .int(Int64(rng.int(14...21) * 10))] : ["name": .string("Zed\(round)")]
                if (try? stored.update("Employee", id: .int(id), values: values)) != nil {
                    try memory.update("Employee", id: .int(id), values: values)
                }
                try stored.processPendingChanges()
                try memory.processPendingChanges()
            case 8:
                if (try? stored.save()) != nil {
                    saved = true
                    try memory.rollback()
                    try memory.move(to: stored.position)
                } else {
                    try stored.rollback()
                    try memory.rollback()
                }
            default:
                try stored.rollback()
                try memory.rollback()
            }
            let consumed = injected - store.storedViewFaults.withLock { n in defer { n = 0 }; return n }
            faults += consumed
            if consumed > 0, partial.contains(true) { faultsOnPartial += 1 }
            for (p, pair) in pairs.enumerated() {
                let what = "round \(round) context \(k) request \(p), \(label)"
                let c = pair.stored, m = pair.memory
                #expect(c.position == stored.position && m.position == memory.position, "never behind: \(what)")
                #expect(c.fetchedObjects == m.fetchedObjects, "rows: \(what)")
                #expect(c.sections.map(\.name) == m.sections.map(\.name), "sections: \(what)")
                #expect(c.sections.map(\.numberOfObjects) == m.sections.map(\.numberOfObjects), "sections: \(what)")
                for id in c.fetchedObjects { #expect(c.pathValues(of: id) == m.pathValues(of: id), "path values: \(what)") }
                // Every change set by the UITableView rules, from the snapshot before to the one after.
                var at = pair.before
                for event in pair.storedEvents {
                    switch event {
                    case .reload(let snapshot):
                        reloads += 1
                        #expect(c.followError != nil, "a reload says why: \(what)")
                        at = snapshot
                    case .changes(let changes):
                        switch ChangeSetValidator.apply(changes, to: at) {
                        case .success(let next):
                            #expect(ChangeSetValidator.validate(changes, from: at, to: next).isEmpty, "\(what)")
                            at = next
                        case .failure(let problem):
                            Issue.record("\(problem): \(what)")
                        }
                    }
                }
                #expect(at == c.snapshot, "the change sets lead to the rows held: \(what)")
                // What the in-memory view reports, change set for change set (a save is one batch in one context and
                // a rollback and a move in the other: rows only).
                if !saved, !pair.storedEvents.contains(where: { if case .reload = $0 { return true }; return false }) {
                    #expect(pair.storedEvents == pair.memoryEvents,
                            "the change sets: \(what)")
                }
                if partial[p] && !c.holdsPartOfView { gaveWay += 1 }
                pair.storedEvents = []
                pair.memoryEvents = []
                pair.before = c.snapshot
            }
        }
        #expect(kinds == ["stored window", "stored path window", "stored path range", "first rows", "first rows over key paths", "whole"], "every source: \(kinds)")
        #expect(faults > 0 && faultsOnPartial > 0, "faults were injected into stored reads")
        #expect(gaveWay > 0, "partial sources gave way to the whole view")
        _ = reloads
    }
}
