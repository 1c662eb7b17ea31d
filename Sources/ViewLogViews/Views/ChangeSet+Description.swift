@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
extension ChangeSet: CustomStringConvertible {
    /// A readable summary for logs and test failures, one change per line:
    /// `ChangeSet 3→5: 1 section change, 2 row changes` then e.g. `  + section 0 "A"`, `  > e4 [0,3] → [1,1]
    /// changed: sectionName (seq 5)`.
    public var description: String {
        func plural(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
        func path(_ p: IndexPath?) -> String { p.map { "[\($0.section),\($0.row)]" } ?? "?" }
        var lines = ["ChangeSet \(from)→\(to): \(plural(sectionChanges.count, "section change")), "
                     + plural(rowChanges.count, "row change")]
        for s in sectionChanges {
            lines.append("  \(s.kind == .insert ? "+" : "-") section \(s.index) \(s.value.sectionLabel)")
        }
        for r in rowChanges {
            let changed = r.changed.isEmpty ? "" : " changed: " + r.changed.joined(separator: ", ")
            switch r.kind {
            case .insert: lines.append("  + \(r.id) \(path(r.to)) (seq \(r.seq))")
            case .delete: lines.append("  - \(r.id) \(path(r.from)) (seq \(r.seq))")
            case .move: lines.append("  > \(r.id) \(path(r.from)) → \(path(r.to))\(changed) (seq \(r.seq))")
            case .update: lines.append("  ~ \(r.id) \(path(r.from)) → \(path(r.to))\(changed) (seq \(r.seq))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension ViewEvent: CustomStringConvertible {
    /// `reload: <snapshot>` or the change set's ``ChangeSet/description``.
    public var description: String {
        switch self {
        case .reload(let snapshot): return "reload: \(snapshot)"
        case .changes(let changeSet): return changeSet.description
        }
    }
}
