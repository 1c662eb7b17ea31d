import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema, update it additively, or migrate it.",
        discussion: """
        An update may add entities, optional or defaulted attributes, and views; anything else is refused. \
        The update is a transaction of the log, so every position keeps its own schema.

        Examples:
          viewlog schema shop
          viewlog schema shop --at 3
          viewlog schema shop > employees-v2.json   (edit it, then:)
          viewlog schema shop --update employees-v2.json
          viewlog schema shop --migrate rename-height.json

        A migration (--migrate) is a JSON array of steps (renameAttribute, renameEntity, removeAttribute, \
        changeType, makeRequired, setView, removeView), applied as one transaction with the rewrite of the \
        objects it changes; positions before it keep their own schema. Anything refused appends nothing.
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "A schema file to change to (additive changes only).") var update: String?
    @Option(help: "A migration file: a JSON array of steps (DESIGN §13).") var migrate: String?
    @Option(help: "The position (default: the head).") var at: UInt64?
    @Option(help: "The author recorded in the log.") var author: String = "cli"

    func run() throws {
        let store = try storeArgument.open(readOnly: update == nil && migrate == nil)
        if let migrate {
            guard at == nil, update == nil else { throw CLIError("--migrate changes the schema at the head; --at and --update cannot be given") }
            let migration: Migration
            do { migration = try Migration(jsonText: try readTextFile(migrate)) } catch let error as SchemaError {
                throw CLIError("\(migrate): \(error)")
            }
            let appended = try Self.changingSchema(from: migrate) { progress in
                try store.migrate(migration, author: author, progress: progress)
            }
            Output.standard.line(String(appended.seq))
            return
        }
        if let update {
            guard at == nil else { throw CLIError("--update changes the schema at the head; --at cannot be given") }
            let text = try readTextFile(update)
            let schema: Schema
            do { schema = try Schema(jsonText: text) } catch { throw CLIError("\(update): \(error)") }
            let appended = try Self.changingSchema(from: update) { progress in
                try store.updateSchema(schema, author: author, progress: progress)
            }
            if let t = appended {
                Output.standard.line(String(t.seq))
            } else {
                Output.standard.line("the schema is unchanged; nothing appended")
            }
            return
        }
        let position = try store.checkedPosition(at)
        Output.standard.line(try store.schema(at: position).json.text)
    }
}

extension SchemaCommand {
    /// Runs a schema change read from `file`: a named view it adds or changes is built in its write, with progress on
    /// a terminal; an error names the file and says that nothing was appended.
    static func changingSchema<T>(from file: String, _ change: (@escaping (String, Int, Int) -> Void) throws -> T) throws -> T {
        defer { Output.progressDone() }
        do {
            return try change { view, read, total in Output.progress("building stored view '\(view)': \(read)/\(total) objects") }
        } catch {
            throw CLIError("\(file): \(error); nothing appended")
        }
    }
}

struct ViewsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "views",
        abstract: "List the named views of the schema.",
        discussion: """
        The named views are stored: each has its rows at the head in the store, updated by every write \
        (DESIGN §11), views over key paths and aggregates too. --storage adds each view's stored rows and \
        bytes; a view with $variables is not stored (it builds in memory when read).

        Examples:
          viewlog views shop
          viewlog views shop --json
          viewlog views shop --storage
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Flag(help: "Show each view's stored rows and bytes.") var storage = false
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let schema = try store.schema
        let names = schema.views.keys.sorted()
        var stored: [String: StoredViewStatistics] = [:]
        if storage { for s in try store.storedViewStatistics() { stored[s.name] = s } }
        if format.json {
            for document in Documents.views(schema, stored: stored) { Output.standard.line(document.text) }
        } else {
            let rows = names.map { name -> [String] in
                let v = schema.views[name]!
                var window = ""
                if let l = v.limit { window += "limit \(l)" }
                if let o = v.offset, o > 0 { window += (window.isEmpty ? "" : " ") + "offset \(o)" }
                let row = [name, v.entity, v.predicate ?? "TRUEPREDICATE", v.sort ?? "id", v.sectionKey ?? "-", window]
                guard let s = stored[name] else { return row }
                return row + (s.isStored ? [String(s.rows), String(s.bytes)] : ["-", "in memory"])
            }
            let header = ["view", "entity", "where", "sort", "section", "window"] + (storage ? ["rows", "bytes"] : [])
            if rows.isEmpty { Output.standard.line("(no views)") }
            else { for l in TextTable(header: header, rows: rows).lines { Output.standard.line(l) } }
        }
    }
}
