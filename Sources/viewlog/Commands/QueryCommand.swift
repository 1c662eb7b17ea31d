import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print a view at the head or at a position.",
        discussion: """
        Examples:
          viewlog query shop tall
          viewlog query shop tall --json
          viewlog query shop tall --at 3 --limit 10 --offset 20
          viewlog query shop --entity Employee --where 'height > $min' --var min=170
          viewlog query shop --entity Employee --sort 'salary desc, name' --section active
          viewlog query shop tall --with raise.jsonl      # the view as it would be after appending raise.jsonl
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var view: ViewOptions
    @Option(help: "The position (default: the head).") var at: UInt64?
    @Option(help: "What-if: show the view as it would be after appending this file (append input) at the position; nothing is appended.")
    var with: String?
    @OptionGroup var format: JSONFlag

    func run() throws {
        if let with {
            let store = try StoreArgument.open(storeArgument.store, readOnly: true)
            let position = try store.checkedPosition(at)
            let (materialized, _, _) = try WhatIf.view(store, selection: view.selection, at: position,
                                                       text: try readTextFile(with), named: "--with \(with)")
            try Self.print(materialized, json: format.json)
            return
        }
        try Self.run(store: storeArgument.store, selection: view.selection, at: at, json: format.json)
    }

    static func print(_ materialized: MaterializedView, json: Bool) throws {
        if json {
            try materialized.printJSON()
        } else {
            for line in try materialized.textLines() { Output.standard.line(line) }
        }
    }

    /// The command on plain values: `run()`, and `viewlog query` parsed by ``PlainInvocation``.
    static func run(store path: String, selection: ViewSelection, at: UInt64?, json: Bool) throws {
        let store = try StoreArgument.open(path, readOnly: true)
        let position = try store.checkedPosition(at)
        let materialized = try MaterializedView(store: store, selection: selection, at: position, for: .print)
        try print(materialized, json: json)
    }
}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "The change set that takes a view at A to the view at B (A > B allowed).",
        discussion: """
        Row changes follow NSFetchedResultsController / UITableView batch rules: delete `from` is before the \
        batch, insert `to` after; moves carry both and the changed attributes.

        Examples:
          viewlog diff shop tall --from 2 --to 5
          viewlog diff shop tall --from 5 --to 2 --json --seq
          viewlog diff shop --entity Employee --sort name --from 5 --to 0 --json
          viewlog diff shop tall --from 5 --with raise.jsonl    # what appending raise.jsonl at the head would change
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var view: ViewOptions
    @Option(help: "The position of the view before.") var from: UInt64
    @Option(help: "The position of the view after (not with --with).") var to: UInt64?
    @Option(help: "What-if: the view after is the view at --at (default: the head) with this file (append input) appended; nothing is appended.")
    var with: String?
    @Option(help: "With --with: the position the file is applied at (default: the head).") var at: UInt64?
    @Flag(help: "Add each row change's seq (the transaction that last touched the row) to the JSON.") var seq = false
    @OptionGroup var format: JSONFlag

    func validate() throws {
        if with == nil, to == nil { throw ValidationError("Missing expected argument '--to <to>'") }
        if with != nil, to != nil { throw ValidationError("--with takes the position with --at, not --to") }
        if with == nil, at != nil { throw ValidationError("--at goes with --with (without it, give --to)") }
    }

    func run() throws {
        if let with {
            let store = try StoreArgument.open(storeArgument.store, readOnly: true)
            let position = try store.checkedPosition(at)
            let (materialized, changes, before) = try WhatIf.view(store, selection: view.selection, at: position,
                                                                  text: try readTextFile(with), named: "--with \(with)", from: from)
            Self.print(changes, before: before, view: materialized, seq: seq, json: format.json)
            return
        }
        try Self.run(store: storeArgument.store, selection: view.selection, from: from, to: to!, seq: seq, json: format.json)
    }

    static func print(_ changes: ChangeSet, before: [ObjectID: ObjectValues], view materialized: MaterializedView, seq: Bool,
                      json: Bool) {
        if json {
            Output.standard.line(changes.json(includeSeq: seq).text)
        } else {
            for line in DiffText.lines(changes, before: before, after: materialized.valuesWithPaths, entity: materialized.entity) {
                Output.standard.line(line)
            }
        }
    }

    /// The command on plain values: `run()`, and `viewlog diff` parsed by ``PlainInvocation``.
    static func run(store path: String, selection: ViewSelection, from: UInt64, to: UInt64, seq: Bool, json: Bool) throws {
        let store = try StoreArgument.open(path, readOnly: true)
        let (materialized, changes, before) = try MaterializedView.diff(store: store, selection: selection, from: from, to: to)
        print(changes, before: before, view: materialized, seq: seq, json: json)
    }
}
