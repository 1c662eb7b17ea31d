import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every transaction as JSON lines (the 'log --json' documents).",
        discussion: """
        A compacted store's export starts with one line {"snapshot": H, "schema": {…}, "changes": [inserts of \
        every object at H]}: its schema and objects at its horizon H, then the transactions after it.

        Example:
          viewlog export shop > shop.jsonl
        """
    )

    @OptionGroup var storeArgument: StoreArgument

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let snapshot = try store.snapshot()
        var schema = try snapshot?.schema ?? store.schema(at: 0)
        let head = try store.head
        if let snapshot { Output.standard.line(snapshot.json.text) }
        try store.forEachTransaction(after: snapshot?.position ?? 0) { t in
            for s in t.changes.compactMap(\.newSchema) { schema = s }
            Output.standard.line(t.json(schema: schema).text)
            if t.seq % 10_000 == 0 { Output.progress("export: \(t.seq)/\(head) transactions") }
        }
        Output.progressDone()
    }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Append exported transactions (JSON lines of 'export' or 'log --json').",
        discussion: """
        Validated like 'append': every change must apply to the store's state exactly as exported, and the \
        whole file is committed in one write (all or nothing). Imported into a new store, the log is the same: \
        seqs, times, authors and changes. A file that starts with a snapshot line (the export of a compacted \
        store) goes only into an empty store: its schema and objects become the snapshot's, and the store has \
        the snapshot's horizon and the same seqs after it.

        Example:
          viewlog export shop > shop.jsonl
          viewlog init copy --schema schema/employees.json
          viewlog import copy shop.jsonl
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Argument(help: "The JSON lines file.") var file: String
    @Flag(help: "Commit a big file in chunks instead of refusing it (on an error, the chunks before it stay committed).")
    var chunked = false
    @Option(help: "With --chunked: changes per write.")
    var chunkSize: Int = Limits.chunkChangesMax

    func run() throws {
        let store = try storeArgument.open()
        let text = try readTextFile(file)
        var schema = try store.schema
        var snapshot: Snapshot?
        var transactions: [Transaction] = []
        var lines: [Int] = []
        var input = InputLines(text)  // the line handling of `append`
        while true {
            let next: (line: Int, json: JSONValue)?
            do { next = try input.next() } catch { throw CLIError("\(error); nothing imported") }
            guard let (lineNumber, json) = next else { break }
            if Snapshot.isSnapshot(json) {
                guard transactions.isEmpty, snapshot == nil else {
                    throw CLIError("line \(lineNumber): a snapshot can only be the first line; nothing imported")
                }
                do { snapshot = try Snapshot(json: json, line: lineNumber) } catch { throw CLIError("\(error); nothing imported") }
                schema = snapshot!.schema
                continue
            }
            let t: Transaction
            do { t = try Transaction(json: json, schema: schema, line: lineNumber) } catch {
                throw CLIError("\(error); nothing imported")
            }
            for s in t.changes.compactMap(\.newSchema) { schema = s }
            transactions.append(t)
            lines.append(lineNumber)
            if lineNumber % 10_000 == 0 { Output.progress("import: read \(lineNumber) lines") }
        }
        if let snapshot, !chunked {
            try store.start(from: snapshot, then: transactions)
            Output.progressDone()
            Output.standard.line("imported the snapshot at \(snapshot.position) (\(snapshot.objects.count) objects) and \(transactions.count) transactions")
            return
        }
        if let snapshot { try store.start(from: snapshot) }
        guard !transactions.isEmpty else { throw CLIError("\(file) has no transactions; nothing imported") }
        let head = try store.head
        for (i, t) in transactions.enumerated() where t.seq != head + UInt64(i) + 1 {
            throw CLIError("line \(lines[i]): seq \(t.seq) does not follow the store's head (\(head + UInt64(i))); nothing imported")
        }
        guard chunkSize > 0 else { throw CLIError("--chunk-size must be positive") }
        var writer = ChunkedWriter(store: store, chunked: chunked, verb: "imported")
        writer.chunkChanges = chunkSize
        try writer.checkSize(changes: transactions.reduce(0) { $0 + $1.changes.count }, bytes: text.utf8.count)
        let items = zip(lines, transactions).map { (line: $0, item: $1, changes: $1.changes.count) }
        try writer.commit(items, write: { (group) throws(StoreError) -> [UInt64] in
            try store.appendVerbatim(group)
            return group.map(\.seq)
        })
        Output.progressDone()
        Output.standard.line("imported \(transactions.count) transactions (seqs \(head + 1)…\(head + UInt64(transactions.count)))")
    }
}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild a store from a log, up to a position, into a new store.",
        discussion: """
        The new store is verified before the command succeeds.

        Examples:
          viewlog replay shop --into shop-copy
          viewlog replay shop --into shop-at-3 --to 3
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "The new store's directory; it must not exist.") var into: String
    @Option(help: "Replay up to this position (default: the head).") var to: UInt64?

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let end = try store.checkedPosition(to)
        let target = try store.replay(into: into, through: end) { done, total in
            Output.progress("replay: \(done)/\(total) transactions")
        }
        Output.progressDone()
        let report = try target.verify()
        guard report.isOK else { throw CLIError("the replayed store failed verification: \(report.problems[0])") }
        let horizon = try target.horizon
        if horizon > 0 {
            Output.standard.line("replayed \(end - horizon) transactions after the horizon (\(horizon)) into \(target.path)")
        } else {
            Output.standard.line("replayed \(end) transactions into \(target.path)")
        }
    }
}
