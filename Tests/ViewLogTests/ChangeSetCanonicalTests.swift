import Foundation
import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

@Suite struct ChangeSetCanonicalTests {
    /// `ChangeSet.canonical` (sorted as integers) against the rule written out with `IndexPath`'s own order:
    /// deletes by `from` descending, then inserts, moves and updates, each by `to` ascending.
    @Test func canonicalOrderIsTheRuleWrittenOut() {
        var g = SeededGenerator(stream: 70)
        for round in 0..<300 {
            var rows: [RowChange] = []
            var used = Set<[Int]>()
            for k in 0..<Int.random(in: 0...40, using: &g) {
                let kind = RowChange.Kind.allCases.randomElement(using: &g)!
                var p = [Int.random(in: 0..<4, using: &g), Int.random(in: 0..<30, using: &g)]
                while !used.insert([RowChange.Kind.allCases.firstIndex(of: kind)!] + p).inserted { p[1] += 30 }
                let path = IndexPath(row: p[1], section: p[0])
                let other = IndexPath(row: Int.random(in: 0..<30, using: &g), section: Int.random(in: 0..<4, using: &g))
                let id = ObjectID.int(Int64(k))
                switch kind {
                case .delete: rows.append(.delete(id, from: path, seq: 1))
                case .insert: rows.append(.insert(id, to: path, seq: 1))
                case .move: rows.append(RowChange(kind: .move, id: id, from: other, to: path, seq: 1))
                case .update: rows.append(RowChange(kind: .update, id: id, from: other, to: path, seq: 1))
                }
            }
            let rule = rows.filter { $0.kind == .delete }.sorted { $0.from! > $1.from! }
                + [RowChange.Kind.insert, .move, .update].flatMap { kind in rows.filter { $0.kind == kind }.sorted { $0.to! < $1.to! } }
            #expect(ChangeSet.canonical(rows) == rule, "round \(round)")
            #expect(ChangeSet.isCanonical(rule), "round \(round)")
        }
    }
}
