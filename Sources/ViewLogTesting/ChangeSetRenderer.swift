import Foundation
import ViewLog

/// Stable text for change sets and snapshots, for golden files: one line per change, in the change set's
/// canonical order.
///
/// ```
/// section - 2 "C"
/// section + 0 "A"
/// row - e7 [0,2]
/// row + e9 [1,0]
/// row > e4 [0,3] -> [1,1] changed: sectionName
/// row ~ e3 [0,1] -> [0,1] changed: height
/// ```
public enum ChangeSetRenderer {
    /// The change set as lines (no trailing newline); with `seq`, each row line ends with ` seq N`.
    public static func render(_ changeSet: ChangeSet, seq: Bool = false) -> String {
        var lines: [String] = []
        for s in changeSet.sectionChanges {
            lines.append("section \(s.kind == .delete ? "-" : "+") \(s.index) \"\(s.name)\"")
        }
        for r in changeSet.rowChanges {
            var line: String
            switch r.kind {
            case .delete: line = "row - \(r.id) \(text(r.from!))"
            case .insert: line = "row + \(r.id) \(text(r.to!))"
            case .move: line = "row > \(r.id) \(text(r.from!)) -> \(text(r.to!)) changed: \(r.changed.joined(separator: ", "))"
            case .update: line = "row ~ \(r.id) \(text(r.from!)) -> \(text(r.to!)) changed: \(r.changed.joined(separator: ", "))"
            }
            if seq { line += " seq \(r.seq)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The snapshot as one line per section: `"name": id id id`.
    public static func render(_ snapshot: ViewSnapshot) -> String {
        snapshot.sections.map { "\"\($0.name)\": " + $0.rows.map(\.description).joined(separator: " ") }
            .joined(separator: "\n")
    }
}

extension ChangeSetRenderer {
    /// `[section,row]`: the golden files' compact form, whatever `IndexPath.description` prints.
    static func text(_ path: IndexPath) -> String { "[\(path.section),\(path.row)]" }
}
