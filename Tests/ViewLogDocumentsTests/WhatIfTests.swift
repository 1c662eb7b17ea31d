import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog
import ViewLogDocuments
import ViewLogTesting

/// What-if (DESIGN §14): `query --with FILE` and `diff --from P --with FILE` give the view, and the change set, that
/// appending FILE would give — checked against a copy of the store where FILE is appended for real, through the
/// workload's views (stored windows, offsets, sections, key paths, aggregates); every what-if change set is valid by
/// the UIKit rules; the store itself is never written.
@Suite struct WhatIfTests {
    static let selections: [ViewSelection] = FollowWorkload.viewNames.map { ViewSelection(view: $0) } + [
        ViewSelection(entity: "Employee", sort: "salary desc, name", limit: 2),
        ViewSelection(view: "window", offset: 1),
    ]

    /// The rows of a view: ids by section, and each row's values.
    static func rows(_ view: MaterializedView) throws -> [[String]] {
        try view.controller.sections.indices.map { s in
            try (0..<view.controller.sections[s].numberOfObjects).map { r in
                let id = view.controller.object(at: IndexPath(row: r, section: s))
                return "\(id.json.text) \(try view.rowValues(of: id).sorted { $0.key < $1.key })"
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aWhatIfIsTheViewAndTheDiffOfAppendingForReal(seed: UInt64) throws {
        let path = TestScratch.newPath("whatif"), copyPath = TestScratch.newPath("whatif-copy")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: copyPath)
        }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        var workload = FollowWorkload(seed: SeededGenerator.seed(default: seed))
        try workload.setUp(store)
        var rng = SeededGenerator(seed: SeededGenerator.seed(default: seed) &+ 7)
        for _ in 0..<20 { try workload.appendOne(store) }
        var checked = 0
        for round in 0..<8 {
            let head = try store.head
            // FILE: what the workload would append next, found by appending it to a copy.
            let copy = try LogStore.create(at: copyPath + "-\(round)", schema: try store.schema(at: 0))
            defer { try? FileManager.default.removeItem(atPath: copyPath + "-\(round)") }
            try copy.append(try store.transactions().map(TransactionRequest.init(replaying:)))
            var next = workload
            var file: [TransactionRequest] = []
            for _ in 0..<rng.int(1...3) { try next.appendOne(copy) { file.append(TransactionRequest(author: "burst", changes: $0)) } }
            let after = try copy.head
            let from = head > 5 ? head - UInt64(rng.int(0...5)) : head
            for selection in Self.selections {
                let (view, changes, before) = try MaterializedView.whatIf(store: store, selection: selection, at: head,
                                                                            with: file, from: from)
                let real = try MaterializedView.diff(store: copy, selection: selection, from: from, to: after)
                #expect(try Self.rows(view) == Self.rows(real.view), "round \(round) \(selection): the view from \(from) to \(head) with \(file.map(\.changes))")
                #expect(changes.rowChanges.map { $0.withoutSeq } == real.changes.rowChanges.map { $0.withoutSeq },
                        "round \(round) \(selection): the change set")
                #expect(changes.sectionChanges == real.changes.sectionChanges)
                // The values before of every row that changed (what `diff` prints beside each change).
                for change in changes.rowChanges where change.kind != .insert {
                    #expect(before[change.id] == real.before[change.id], "round \(round) \(selection): \(change.id) before")
                }
                let start = try MaterializedView(store: store, selection: selection, at: from)
                ChangeSetValidator.expectValid(changes, from: start.controller.snapshot, to: view.controller.snapshot)
                checked += 1
            }
            #expect(try store.head == head, "a what-if appended")
            try workload.appendOne(store)
        }
        #expect(checked == 8 * Self.selections.count)
    }
}

extension RowChange {
    /// The change without the seq of the transaction that last touched its row (a what-if's changes have none yet).
    var withoutSeq: String { "\(kind) \(id) \(String(describing: from)) \(String(describing: to)) \(changed)" }
}
