import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print transactions A+1…B (default: all).",
        discussion: """
        Examples:
          viewlog log shop
          viewlog log shop --from 2 --to 5 --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "Start after this position (default: the horizon, 0 unless compacted).") var from: UInt64?
    @Option(help: "End at this position (default: the head).") var to: UInt64?
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let end = try store.checkedPosition(to)
        let from = try store.checkedPosition(self.from ?? store.horizon)
        guard from <= end else { throw CLIError("--from \(from) is after --to \(end)") }
        if format.json {
            try Documents.log(store, from: from, to: end) { Output.standard.line($0.text) }
            return
        }
        var schema = try store.schema(at: from)
        try store.forEachTransaction(after: from, through: end) { t in
            for s in t.changes.compactMap(\.newSchema) { schema = s }
            for line in TransactionText.lines(t, schema: schema) { Output.standard.line(line) }
        }
    }
}

/// Human text of a transaction for `log`.
enum TransactionText {
    static func lines(_ t: Transaction, schema: Schema) -> [String] {
        var out = ["seq \(t.seq)  \(t.time.iso8601)  \(t.author)" + (t.reverts.isEmpty ? "" : "  reverts \(t.reverts.map(String.init).joined(separator: ", "))")]
        for change in t.changes {
            switch change {
            case let .insert(key, values):
                out.append("  + \(key.entity) \(key.id.displayText)  " + assignments(values, key.entity, schema))
            case let .update(key, values, previous):
                // A set's pair is the members added and removed: `tags: +[4] -[1]` (a side with none left out).
                let parts = sortedKeys(values, key.entity, schema).map { name in
                    let new = values[name]!, old = previous[name] ?? .null
                    guard case .set = new else { return "\(name): \(old.inlineText) → \(new.inlineText)" }
                    let sides = [(new, "+"), (old, "-")].filter { !$0.0.memberIDs.isEmpty }.map { $0.1 + $0.0.inlineText }
                    return "\(name): " + (sides.isEmpty ? "+[]" : sides.joined(separator: " "))
                }
                out.append("  ~ \(key.entity) \(key.id.displayText)  " + (parts.isEmpty ? "(no values)" : parts.joined(separator: ", ")))
            case let .delete(key, _):
                out.append("  - \(key.entity) \(key.id.displayText)")
            case let .schema(new, previous):
                out.append("  schema updated: " + schemaChanges(from: previous, to: new).joined(separator: ", "))
            case let .migration(migration, _, _):
                out.append("  migrated: " + migration.steps.map(\.description).joined(separator: ", "))
            }
        }
        return out
    }

    /// What an (additive) schema update added: `+ Employee.nick string optional`, `+ Employee.department relationship
    /// to Department optional onDelete nullify`, `+ Department.employees inverse of Employee.department`,
    /// `+ Department.headcount derived employees.@count`, `+ view seniors`, …
    static func schemaChanges(from old: Schema, to new: Schema) -> [String] {
        var out: [String] = []
        for name in new.entities.keys.sorted() {
            let entity = new.entities[name]!
            // A new entity's attributes are its own; its relationships, which tie it to others, are named.
            let before = old.entities[name]
            if before == nil { out.append("+ entity \(name)") }
            for a in entity.attributes where before?.attribute(named: a.name) == nil && (before != nil || a.relationship != nil) {
                var text = "+ \(name).\(a.name) "
                if let r = a.relationship {
                    text += "relationship to \(r.target)"
                    if a.isOptional { text += " optional" }
                    text += " onDelete \(r.deleteRule.rawValue)"
                } else {
                    text += a.type.rawValue
                    if a.isOptional { text += " optional" }
                    if let d = a.defaultValue { text += " default \(d.inlineText)" }
                }
                out.append(text)
            }
            for d in entity.derivedNames where before?.derived[d] == nil {
                out.append("+ \(name).\(d) derived \(entity.derived[d]!)")
            }
        }
        // Inverses, new with their relationship or added to an existing one, under the entity they belong to.
        for name in new.entities.keys.sorted() {
            for r in new.entities[name]!.relationships {
                guard let inverse = r.relationship?.inverse, let target = r.relationship?.target,
                      old.entities[name]?.attribute(named: r.name)?.relationship?.inverse != inverse else { continue }
                out.append("+ \(target).\(inverse) inverse of \(name).\(r.name)")
            }
        }
        for name in new.views.keys.sorted() where old.views[name] != new.views[name] {
            out.append((old.views[name] == nil ? "+ view " : "~ view ") + name)
        }
        for name in old.views.keys.sorted() where new.views[name] == nil { out.append("- view \(name)") }
        return out.isEmpty ? ["no visible change"] : out
    }

    static func sortedKeys(_ values: ObjectValues, _ entity: String, _ schema: Schema) -> [String] {
        guard let e = schema.entities[entity] else { return values.keys.sorted() }
        return e.attributes.map(\.name).filter { values[$0] != nil } + values.keys.filter { e.attribute(named: $0) == nil }.sorted()
    }

    static func assignments(_ values: ObjectValues, _ entity: String, _ schema: Schema) -> String {
        sortedKeys(values, entity, schema).map { "\($0)=\(values[$0]!.inlineText)" }.joined(separator: " ")
    }
}
