import ArgumentParser
@_spi(Replication) @_spi(Engine) import ViewLog
import ViewLogReplication

/// `revert`, `undo` and `redo` (DESIGN §14): each appends one transaction that reverts others, and prints its seq
/// (`--json`: its log document).
struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Append one transaction that undoes the given transactions.",
        discussion: """
        The inverse of each of their logged changes, newest transaction first and within it the last change \\
        first; delete rules' consequences logged in them are undone with them. Refused (revert.conflict, naming \\
        the object, the attribute and the later seq) when a later transaction not listed changed what it would \\
        set back; a schema change cannot be reverted. Its log document lists "reverts". Reverting a revert redoes.

        Examples:
          viewlog revert shop 12
          viewlog revert shop 12 10 --author admin --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Argument(help: "The seqs of the transactions to revert.") var seqs: [UInt64] = []
    @Option(help: "The author recorded in the log.") var author: String = "cli"
    @OptionGroup var format: JSONFlag

    func validate() throws {
        if seqs.isEmpty { throw ValidationError("Missing expected argument '<seqs> ...'") }
    }

    func run() throws {
        let store = try storeArgument.open()
        try HistoryOutput.append(store, json: format.json) { () throws(StoreError) in
            try store.revertRequest(seqs, author: author)
        } local: { () throws(StoreError) in
            try store.revert(seqs, author: author)
        }
    }
}

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Revert the author's newest transaction that is not an undo and that nothing reverts yet.",
        discussion: """
        The history is read from the log (authors and "reverts"), so it survives restarts and works across \\
        processes and replicas. Fails with nothing to undo, or when that transaction is a schema change.

        Examples:
          viewlog undo shop --author ann
          viewlog redo shop --author ann
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "Whose history: the author of the transactions to undo, and of the undo.") var author: String
    @OptionGroup var format: JSONFlag

    func run() throws {
        try HistoryOutput.step(storeArgument, author: author, json: format.json, redo: false)
    }
}

struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Revert the author's newest undo that nothing reverts yet.",
        discussion: """
        Examples:
          viewlog undo shop --author ann
          viewlog redo shop --author ann
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "Whose history: the author of the undo to revert, and of the redo.") var author: String
    @OptionGroup var format: JSONFlag

    func run() throws {
        try HistoryOutput.step(storeArgument, author: author, json: format.json, redo: true)
    }
}

/// What the history commands share: appending (locally, or through a replica's stream) and printing.
enum HistoryOutput {
    static func step(_ storeArgument: StoreArgument, author: String, json: Bool, redo: Bool) throws {
        let store = try storeArgument.open()
        try append(store, json: json) { () throws(StoreError) in
            try store.revertRequest([try store.stepTarget(author: author, redo: redo)], author: author)
        } local: { () throws(StoreError) in
            redo ? try store.redo(author: author) : try store.undo(author: author)
        }
    }

    /// Appends a revert — through the stream on a replica (`request`), else in one local write (`local`) — and
    /// prints its seq or its log document.
    static func append(_ store: LogStore, json: Bool, request: () throws(StoreError) -> TransactionRequest,
                       local: () throws(StoreError) -> Transaction) throws {
        let schema = try store.schema
        let transaction: Transaction
        if try store.replicaLink != nil {
            let r = try request()
            let replica = try Replica.open(store)
            let seq: UInt64
            do { seq = try replica.append([r])[0] } catch { throw CLIError("\(error.reason)") }
            transaction = try store.transactions(after: seq - 1, through: seq)[0]
        } else {
            transaction = try local()
        }
        Output.standard.line(json ? transaction.json(schema: schema).text : String(transaction.seq))
    }
}
