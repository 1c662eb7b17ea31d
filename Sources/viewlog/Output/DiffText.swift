#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) import ViewLog

/// Human text of a change set: `+` insert, `-` delete, `>` move, `~` update, with index paths and
/// old → new values of changed attributes.
enum DiffText {
    static func lines(_ changes: ChangeSet, before: [ObjectID: ObjectValues], after: [ObjectID: ObjectValues],
                      entity: EntityDescription) -> [String] {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        var summary = "diff \(changes.from) → \(changes.to): "
        if changes.isEmpty {
            summary += "no changes"
        } else {
            summary += count(changes.rowChanges.count, "row change")
            if !changes.sectionChanges.isEmpty { summary += ", " + count(changes.sectionChanges.count, "section change") }
        }
        var out = [summary]
        let colour = Output.usesColour
        func paint(_ s: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        for s in changes.sectionChanges {
            let marker = s.kind == .insert ? paint("+", "32") : paint("-", "31")
            out.append("\(marker) section \(s.index) \(s.name.map { JSONValue.string($0).text } ?? "(null)")")
        }
        func path(_ p: IndexPath?) -> String { p.map { "[\($0.section), \($0.row)]" } ?? "" }
        for r in changes.rowChanges {
            let changed = r.changed.map { name in
                "\(name): \(before[r.id]?[name]?.inlineText ?? "null") → \(after[r.id]?[name]?.inlineText ?? "null")"
            }.joined(separator: ", ")
            switch r.kind {
            case .insert: out.append("\(paint("+", "32")) \(r.id.displayText)  \(path(r.to))  (seq \(r.seq))")
            case .delete: out.append("\(paint("-", "31")) \(r.id.displayText)  \(path(r.from))  (seq \(r.seq))")
            case .move: out.append("\(paint(">", "33")) \(r.id.displayText)  \(path(r.from)) → \(path(r.to))  \(changed)  (seq \(r.seq))")
            case .update: out.append("\(paint("~", "36")) \(r.id.displayText)  \(path(r.from)) → \(path(r.to))  \(changed)  (seq \(r.seq))")
            }
        }
        return out
    }
}
