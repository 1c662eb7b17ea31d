import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog
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

    /// `step`'s change set is `diff --from from --to to`'s, byte for byte, with and without seqs.
    static func check(_ step: ViewFollower.Step, of selection: ViewSelection, from: UInt64, store: LogStore) throws {
        #expect(step.changes.from == from)
        let diff = try MaterializedView.diff(store: store, selection: selection, from: from, to: step.changes.to)
        for seq in [false, true] {
            #expect(step.changes.json(includeSeq: seq).text == diff.changes.json(includeSeq: seq).text,
                    "\(selection) \(from)…\(step.changes.to) seq \(seq)")
        }
    }
}
