import ArgumentParser
@_spi(Replication) @_spi(Engine) import ViewLog
import ViewLogDocuments
import ViewLogReplication

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct AppendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Append transactions: JSON lines from a file or stdin, or one change from the arguments.",
        discussion: """
        Each input line is one transaction; the whole input is validated in order and committed in one LMDB \
        write: all lines or none. Prints each new seq. The input is read into the write a batch of lines at a \
        time; the first bad line is named, whether its JSON or its change is wrong.

        On a replica (init --nats), each line is validated against the replica caught up to its stream, \
        published, and committed under the stream's sequence, line by line (as --chunked): on an error, the \
        seqs already committed are printed and the error names the first line not appended.

        Input lines:
          {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}
          {"update": "Employee", "id": "e1", "values": {"height": 182}}
          {"delete": "Employee", "id": "e1"}
          {"update": "Employee", "where": "height > 190", "values": {"x": 1}, "max": 9}
          {"delete": "Employee", "where": "active == NO"}
          {"author": "sync", "changes": [ ...changes as above... ]}

        A change by predicate ("where", optional "max") is resolved inside the write into one logged change per \
        match, in id order; a transaction whose forms all match nothing appends nothing and prints -. \
        --dry-run prints the transactions the input would log ("seq": null) and appends nothing.

        Examples:
          viewlog append shop < changes.jsonl
          viewlog append shop --file changes.jsonl --author sync
          viewlog append shop insert Employee e2 name=Bob height=175
          viewlog append shop update Employee e2 height:=null hired=2026-11-22T10:00:00Z
          viewlog append shop delete Employee e2
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "The author recorded in the log (a line's own \"author\" wins).") var author: String = "cli"
    @Option(help: "Read JSON lines from this file instead of stdin.") var file: String?
    @Flag(help: "Commit a big input in chunks instead of refusing it (on an error, the chunks before it stay committed).")
    var chunked = false
    @Option(help: "With --chunked: changes per write.")
    var chunkSize: Int = Limits.chunkChangesMax
    @Flag(help: "Check and resolve the input as an append would, print the transactions it would log (log documents with \"seq\": null; - for one that would append nothing), and append nothing.")
    var dryRun = false
    @OptionGroup var format: JSONFlag
    @Argument(parsing: .allUnrecognized, help: "insert|update|delete ENTITY ID [KEY=VALUE | KEY:=JSON ...]")
    var change: [String] = []

    func run() throws {
        let store = try storeArgument.open()
        let schema = try store.schema
        var requests: [TransactionRequest] = []
        var lines: [Int] = []
        var bytes = 0
        if change.isEmpty {
            let text = try file.map(readTextFile) ?? readStandardInput()
            bytes = text.utf8.count
            if !dryRun, try store.replicaLink == nil, !chunked, bytes <= Limits.singleWriteInputBytesMax {
                guard chunkSize > 0 else { throw CLIError("--chunk-size must be positive") }
                return try appendInOneWrite(store, text: text)
            }
            let entries: [AppendInput.Entry]
            do { entries = try AppendInput.parse(text, schema: schema) } catch {
                throw CLIError("\(error); nothing appended")
            }
            let author = self.author  // an option's getter, read once and not per line
            for entry in entries {
                requests.append(TransactionRequest(author: entry.author ?? author, changes: entry.requests))
                lines.append(entry.line)
            }
        } else {
            guard file == nil else { throw CLIError("give either --file or a change as arguments, not both") }
            guard change.count >= 3 else {
                throw CLIError("expected insert|update|delete ENTITY ID [KEY=VALUE ...], got '\(change.joined(separator: " "))'")
            }
            let request: ChangeRequest
            do {
                request = try AppendInput.shorthand(op: change[0], entity: change[1], id: change[2],
                                                    assignments: Array(change.dropFirst(3)), schema: schema)
            } catch {
                throw CLIError("\(error); nothing appended")
            }
            requests.append(TransactionRequest(author: author, changes: [request]))
            lines.append(1)
        }
        if dryRun {
            try printDryRun(store, requests: requests, lines: lines, schema: schema)
            return
        }
        if try store.replicaLink != nil {
            try appendThroughStream(store, requests: requests, lines: lines)
            return
        }
        if !change.isEmpty {
            let seq: UInt64
            do { seq = try store.append(requests)[0].seq } catch { throw CLIError("\(Self.withoutPosition(error)); nothing appended") }
            printSeq(seq)
            return
        }
        guard chunkSize > 0 else { throw CLIError("--chunk-size must be positive") }
        var writer = ChunkedWriter(store: store, chunked: chunked, verb: "appended")
        writer.chunkChanges = chunkSize
        try writer.checkSize(changes: requests.reduce(0) { $0 + $1.changes.count }, bytes: bytes)
        let items = zip(lines, requests).map { (line: $0, item: $1, changes: $1.changes.count) }
        try writer.commit(items, write: { (group) throws(StoreError) -> [UInt64] in try store.append(group).map(\.seq) },
                          committed: { seqs in
                              printSeqs(seqs)
                              Output.standard.flush()
                          })
    }

    /// Appends all of `text` in one LMDB write (``AppendInOneWrite``, which the server's append shares): the first
    /// bad line is named, and nothing is appended.
    func appendInOneWrite(_ store: LogStore, text: String) throws {
        let seqs = try AppendInOneWrite.append(store, text: text, author: author)
        printSeqs(seqs)
        Output.standard.flush()
    }

    /// Prints what `requests` would log (``LogStore/dryRun(_:)``): each transaction's log document with `"seq": null`,
    /// or `-` for one that would append nothing. The errors are the append's.
    func printDryRun(_ store: LogStore, requests: [TransactionRequest], lines: [Int], schema: Schema) throws {
        let would: [Transaction]
        do { would = try store.dryRun(requests) } catch {
            let described = change.isEmpty ? AppendInOneWrite.describe(error, lines: lines) : Self.withoutPosition(error)
            throw CLIError("\(described); nothing appended")
        }
        for transaction in would {  // bounded by the input's transactions
            guard transaction.seq != 0 else {
                Output.standard.line("-")
                continue
            }
            guard case .object(let members) = transaction.json(schema: schema) else { continue }
            Output.standard.line(JSONValue.object(members.map { $0.0 == "seq" ? ("seq", .null) : $0 }).text)
        }
    }

    /// Prints a new seq as the output format wants it.
    func printSeq(_ seq: UInt64) { printSeqs(CollectionOfOne(seq)) }

    /// Prints new seqs, one per line, as the output format wants them (the format option read once): `-` (`null`)
    /// for a transaction that appended nothing (its changes by predicate matched nothing).
    func printSeqs(_ seqs: some Sequence<UInt64>) {
        let json = format.json
        for seq in seqs {  // bounded by the seqs appended
            if json {
                Output.standard.line(JSONValue.object([("seq", seq == 0 ? .null : .int(Int64(seq)))]).text)
            } else {
                Output.standard.line(seq == 0 ? "-" : String(seq))
            }
        }
    }

    /// Appends through the replica's stream, transaction by transaction, printing each seq once committed.
    func appendThroughStream(_ store: LogStore, requests: [TransactionRequest], lines: [Int]) throws {
        let replica = try Replica.open(store)
        do {
            try replica.append(requests) { seq in
                printSeq(seq)
                Output.standard.flush()
            }
        } catch {
            let line = lines[error.transaction]
            var reason = error.reason.description
            if case .store(let storeError) = error.reason { reason = Self.withoutPosition(storeError) }
            let what = change.isEmpty ? "line \(line): " : ""
            if let first = error.committed.first, let last = error.committed.last {
                throw CLIError("\(what)\(reason); seqs \(first)…\(last) (the input before line \(line)) were committed, nothing from line \(line) on")
            }
            throw CLIError("\(what)\(reason); nothing appended")
        }
    }

    /// The reason of a refused one-change append, without "transaction 1, change 1" (there is only one).
    static func withoutPosition(_ error: StoreError) -> String {
        if case let .invalidChange(_, _, reason) = error { return reason }
        return error.description
    }
}

/// Reads all of standard input as UTF-8.
func readStandardInput() throws -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = read(0, &chunk, chunk.count)
        if n < 0 {
            if errno == EINTR { continue }
            throw CLIError("cannot read standard input: \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw CLIError("standard input is not UTF-8 text") }
    return text
}
