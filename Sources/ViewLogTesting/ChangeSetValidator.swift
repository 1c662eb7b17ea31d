import Foundation
import ViewLog

/// Checks change sets the way UITableView's batch updates and AppKit's sequential updates apply them, and
/// the reporting rules of the change-set rules that two snapshots can decide.
///
/// Batch form: start from the snapshot before; delete moved and deleted rows by `from` (descending), delete
/// sections, insert sections, insert inserted and moved rows by `to` (ascending); the result must equal the
/// snapshot after, row for row, and every update's `to` must hold the updated row. Rules: a row at most
/// once; deletes, moves and updates name the row their `from` holds before; inserts, moves and updates the
/// row their `to` holds after; a deleted section's rows are all reported (delete or move), as are an
/// inserted section's (insert or move); a move changes section or its order against another row that stays;
/// a row that stays and is not a move keeps its section and its order against the others.
public enum ChangeSetValidator {
    /// Every problem of `changeSet` as the batch taking `before` to `after`; empty when it is valid.
    public static func validate(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot) -> [ChangeSetProblem] {
        var problems: [ChangeSetProblem] = []
        func fail(_ rule: String, _ message: String) { problems.append(ChangeSetProblem(rule: rule, message: message)) }
        let beforePaths = paths(before), afterPaths = paths(after)

        // Reporting rules on each change.
        var seen = Set<ObjectID>()
        for (n, r) in changeSet.rowChanges.enumerated() {
            let label = "row change #\(n) (\(r))"
            if !seen.insert(r.id).inserted { fail("row at most once", "\(label) reports \(r.id) again") }
            if let from = r.from {
                let actual = before.id(at: from)
                if actual != r.id {
                    fail("from", "\(label): before, \(ChangeSetRenderer.text(from)) holds \(actual.map(\.description) ?? "nothing"), expected \(r.id)")
                }
            }
            if let to = r.to {
                let actual = after.id(at: to)
                if actual != r.id {
                    fail("to", "\(label): after, \(ChangeSetRenderer.text(to)) holds \(actual.map(\.description) ?? "nothing"), expected \(r.id)")
                }
            }
            switch r.kind {
            case .delete where afterPaths[r.id] != nil:
                fail("delete", "\(label): \(r.id) is still in the view after, at \(afterPaths[r.id]!)")
            case .insert where beforePaths[r.id] != nil:
                fail("insert", "\(label): \(r.id) was already in the view before, at \(beforePaths[r.id]!)")
            case .move, .update:
                if r.changed.isEmpty && r.kind == .update { fail("update", "\(label): an update with no changed attribute") }
            default: break
            }
        }
        for id in beforePaths.keys where afterPaths[id] == nil && !seen.contains(id) {
            fail("missing delete", "\(id) at \(beforePaths[id]!) before is not in the view after and is not reported")
        }
        for id in afterPaths.keys where beforePaths[id] == nil && !seen.contains(id) {
            fail("missing insert", "\(id) at \(afterPaths[id]!) after was not in the view before and is not reported")
        }

        // Section rules.
        let reported = Dictionary(changeSet.rowChanges.map { ($0.id, $0.kind) }, uniquingKeysWith: { a, _ in a })
        for (n, s) in changeSet.sectionChanges.enumerated() {
            let label = "section change #\(n) (\(s))"
            switch s.kind {
            case .delete:
                guard before.sections.indices.contains(s.index) else {
                    fail("section delete", "\(label): index out of range before (\(before.sections.count) sections)")
                    continue
                }
                let section = before.sections[s.index]
                if section.value != s.value {
                    fail("section delete", "\(label): before, section \(s.index) is \(section.value.sectionLabel)")
                }
                if after.sections.contains(where: { $0.value == s.value }) {
                    fail("section delete", "\(label): section \(s.value.sectionLabel) still exists after")
                }
                for id in section.rows where reported[id] != .delete && reported[id] != .move {
                    fail("deleted section rows", "\(label): its row \(id) is not reported as a delete or a move")
                }
            case .insert:
                guard after.sections.indices.contains(s.index) else {
                    fail("section insert", "\(label): index out of range after (\(after.sections.count) sections)")
                    continue
                }
                let section = after.sections[s.index]
                if section.value != s.value {
                    fail("section insert", "\(label): after, section \(s.index) is \(section.value.sectionLabel)")
                }
                if before.sections.contains(where: { $0.value == s.value }) {
                    fail("section insert", "\(label): section \(s.value.sectionLabel) already existed before")
                }
                for id in section.rows where reported[id] != .insert && reported[id] != .move {
                    fail("inserted section rows", "\(label): its row \(id) is not reported as an insert or a move")
                }
            }
        }

        // Move rule: stayers are rows in the view before and after.
        problems += moveRuleProblems(changeSet, before: before, after: after, beforePaths: beforePaths,
                                     afterPaths: afterPaths)

        // Apply with UITableView's rules.
        if problems.isEmpty {
            switch apply(changeSet, to: before) {
            case .failure(let p): problems.append(p)
            case .success(let result): problems += compare(result, after)
            }
        }
        return problems
    }

    #if !canImport(Testing)
    /// Throws every problem of `changeSet` as one error; returns when it is valid.
    public static func check(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot) throws(ChangeSetValidationError) {
        let problems = validate(changeSet, from: before, to: after) + validateSequential(changeSet, from: before, to: after)
        if !problems.isEmpty { throw ChangeSetValidationError(problems: problems) }
    }
    #endif

    /// Every problem of `ChangeSet/sequentialSteps` performed one at a time on `before`; empty when they
    /// lead to `after`.
    public static func validateSequential(_ changeSet: ChangeSet, from before: ViewSnapshot, to after: ViewSnapshot) -> [ChangeSetProblem] {
        var sections = before.sections
        for (n, step) in changeSet.sequentialSteps.enumerated() {
            let label = "step #\(n) (\(step))"
            func fail(_ m: String) -> [ChangeSetProblem] { [ChangeSetProblem(rule: "sequential", message: "\(label): \(m)")] }
            switch step {
            case let .deleteRow(id, p, _):
                guard sections.indices.contains(p.section), sections[p.section].rows.indices.contains(p.row) else {
                    return fail("no row at \(ChangeSetRenderer.text(p))")
                }
                guard sections[p.section].rows[p.row] == id else { return fail("\(ChangeSetRenderer.text(p)) holds \(sections[p.section].rows[p.row])") }
                sections[p.section].rows.remove(at: p.row)
            case let .deleteSection(i, v):
                guard sections.indices.contains(i) else { return fail("no section \(i)") }
                guard sections[i].value == v else { return fail("section \(i) is \(sections[i].value.sectionLabel)") }
                guard sections[i].rows.isEmpty else { return fail("section \(i) still has rows \(sections[i].rows)") }
                sections.remove(at: i)
            case let .insertSection(i, v):
                guard i >= 0 && i <= sections.count else { return fail("index out of range (\(sections.count) sections)") }
                sections.insert(ViewSnapshot.Section(value: v, rows: []), at: i)
            case let .insertRow(id, p, _):
                guard sections.indices.contains(p.section), p.row >= 0, p.row <= sections[p.section].rows.count else {
                    return fail("cannot insert at \(ChangeSetRenderer.text(p))")
                }
                sections[p.section].rows.insert(id, at: p.row)
            case let .updateRow(id, p, _):
                let s = ViewSnapshot(sections: sections)
                guard s.id(at: p) == id else { return fail("\(ChangeSetRenderer.text(p)) holds \(s.id(at: p).map(\.description) ?? "nothing")") }
            }
        }
        return compare(ViewSnapshot(sections: sections), after).map {
            ChangeSetProblem(rule: "sequential result", message: $0.message)
        }
    }

    /// The snapshot that UITableView's rules make of `before` with `changeSet`, or the first problem.
    public static func apply(_ changeSet: ChangeSet, to before: ViewSnapshot) -> Result<ViewSnapshot, ChangeSetProblem> {
        var sections = before.sections
        func fail(_ m: String) -> Result<ViewSnapshot, ChangeSetProblem> { .failure(ChangeSetProblem(rule: "apply", message: m)) }
        let removals = changeSet.rowChanges.filter { $0.kind == .delete || $0.kind == .move }.sorted { $0.from! > $1.from! }
        for r in removals {
            let p = r.from!
            guard sections.indices.contains(p.section), sections[p.section].rows.indices.contains(p.row) else {
                return fail("removing \(r): no row at \(ChangeSetRenderer.text(p))")
            }
            guard sections[p.section].rows[p.row] == r.id else {
                return fail("removing \(r): \(ChangeSetRenderer.text(p)) holds \(sections[p.section].rows[p.row])")
            }
            sections[p.section].rows.remove(at: p.row)
        }
        for s in changeSet.sectionChanges.filter({ $0.kind == .delete }).sorted(by: { $0.index > $1.index }) {
            guard sections.indices.contains(s.index) else { return fail("\(s): no section \(s.index)") }
            guard sections[s.index].rows.isEmpty else {
                return fail("\(s): rows \(sections[s.index].rows) remain after removals")
            }
            sections.remove(at: s.index)
        }
        for s in changeSet.sectionChanges.filter({ $0.kind == .insert }).sorted(by: { $0.index < $1.index }) {
            guard s.index >= 0 && s.index <= sections.count else { return fail("\(s): index out of range") }
            sections.insert(ViewSnapshot.Section(value: s.value, rows: []), at: s.index)
        }
        let insertions = changeSet.rowChanges.filter { $0.kind == .insert || $0.kind == .move }.sorted { $0.to! < $1.to! }
        for r in insertions {
            let p = r.to!
            guard sections.indices.contains(p.section), p.row >= 0, p.row <= sections[p.section].rows.count else {
                return fail("inserting \(r): cannot insert at \(ChangeSetRenderer.text(p))")
            }
            sections[p.section].rows.insert(r.id, at: p.row)
        }
        let result = ViewSnapshot(sections: sections)
        for r in changeSet.rowChanges where r.kind == .update && result.id(at: r.to!) != r.id {
            return fail("\(r): \(ChangeSetRenderer.text(r.to!)) holds \(result.id(at: r.to!).map(\.description) ?? "nothing") after the batch")
        }
        return .success(result)
    }

    // MARK: - Helpers

    static func paths(_ s: ViewSnapshot) -> [ObjectID: IndexPath] {
        var result: [ObjectID: IndexPath] = [:]
        for (i, section) in s.sections.enumerated() {
            for (j, id) in section.rows.enumerated() { result[id] = IndexPath(row: j, section: i) }
        }
        return result
    }

    static func compare(_ actual: ViewSnapshot, _ expected: ViewSnapshot) -> [ChangeSetProblem] {
        guard actual != expected else { return [] }
        if actual.sections.count != expected.sections.count {
            return [ChangeSetProblem(rule: "result", message: "\(actual.sections.count) sections, expected \(expected.sections.count): got \(actual), expected \(expected)")]
        }
        for (i, (a, e)) in zip(actual.sections, expected.sections).enumerated() {
            if a.value != e.value {
                return [ChangeSetProblem(rule: "result", message: "section \(i) is \(a.value.sectionLabel), expected \(e.value.sectionLabel)")]
            }
            for j in 0..<max(a.rows.count, e.rows.count) where a.rows[safe: j] != e.rows[safe: j] {
                return [ChangeSetProblem(rule: "result", message: "[\(i),\(j)] holds \(a.rows[safe: j].map(\.description) ?? "nothing"), expected \(e.rows[safe: j].map(\.description) ?? "nothing")")]
            }
        }
        return []
    }

    /// Moves must change section or order against another stayer; unreported stayers and updates must not.
    static func moveRuleProblems(_ changeSet: ChangeSet, before: ViewSnapshot, after: ViewSnapshot,
                                 beforePaths: [ObjectID: IndexPath], afterPaths: [ObjectID: IndexPath]) -> [ChangeSetProblem] {
        var problems: [ChangeSetProblem] = []
        let stayers = before.rowIDs.filter { afterPaths[$0] != nil }
        var beforeRank: [ObjectID: Int] = [:], afterRank: [ObjectID: Int] = [:]
        for (i, id) in before.rowIDs.enumerated() { beforeRank[id] = i }
        for (i, id) in after.rowIDs.enumerated() { afterRank[id] = i }
        let moves = Set(changeSet.rowChanges.filter { $0.kind == .move }.map(\.id))
        // Rows that are not moves keep their order among themselves and their section.
        let fixedBefore = stayers.filter { !moves.contains($0) }
        let fixedAfter = after.rowIDs.filter { beforePaths[$0] != nil && !moves.contains($0) }
        if fixedBefore != fixedAfter {
            let k = (0..<min(fixedBefore.count, fixedAfter.count)).first { fixedBefore[$0] != fixedAfter[$0] } ?? 0
            problems.append(ChangeSetProblem(rule: "move rule", message: "rows not reported as moves change order: at stayer position \(k), before \(fixedBefore[safe: k].map(\.description) ?? "-"), after \(fixedAfter[safe: k].map(\.description) ?? "-")"))
        }
        for id in fixedBefore {
            let b = before.sections[beforePaths[id]!.section].value, a = after.sections[afterPaths[id]!.section].value
            if b != a {
                problems.append(ChangeSetProblem(rule: "move rule", message: "\(id) changed section \"\(b)\" → \"\(a)\" but is not reported as a move"))
            }
        }
        // A reported move must change section or order against some other stayer.
        for id in moves {
            guard let bp = beforePaths[id], let ap = afterPaths[id] else { continue }
            if before.sections[bp.section].value != after.sections[ap.section].value { continue }
            let (rb, ra) = (beforeRank[id]!, afterRank[id]!)
            let flips = stayers.contains { s in s != id && (beforeRank[s]! < rb) != (afterRank[s]! < ra) }
            if !flips {
                problems.append(ChangeSetProblem(rule: "move rule", message: "\(id) is reported as a move \(bp) → \(ap) but kept its section and its order against every row that stays"))
            }
        }
        return problems
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
