import ArgumentParser
import ViewLog

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
        write: all lines or none. Prints each new seq.

        Input lines:
          {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}
          {"update": "Employee", "id": "e1", "values": {"height": 182}}
          {"delete": "Employee", "id": "e1"}
          {"author": "sync", "changes": [ ...changes as above... ]}

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
    @OptionGroup var format: JSONFlag
    @Argument(parsing: .allUnrecognized, help: "insert|update|delete ENTITY ID [KEY=VALUE | KEY:=JSON ...]")
    var change: [String] = []

    func run() throws {
        let store = try storeArgument.open()
        let schema = try store.schema
        var requests: [TransactionRequest] = []
        var lines: [Int] = []
        if change.isEmpty {
            let text = try file.map(readTextFile) ?? readStandardInput()
            let entries: [AppendInput.Entry]
            do { entries = try AppendInput.parse(text, schema: schema) } catch {
                throw CLIError("\(error); nothing appended")
            }
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
        let appended: [Transaction]
        do { appended = try store.append(requests) } catch {
            throw CLIError(Self.describe(error, lines: lines, fromArguments: !change.isEmpty))
        }
        for t in appended {
            Output.standard.line(format.json ? JSONValue.object([("seq", .int(Int64(t.seq)))]).text : String(t.seq))
        }
    }

    /// A store error with the input line of the refused transaction (nothing was appended).
    static func describe(_ error: StoreError, lines: [Int], fromArguments: Bool) -> String {
        switch error {
        case let .invalidChange(t, c, reason) where t < lines.count:
            if fromArguments { return "\(reason); nothing appended" }
            return "line \(lines[t]): \(c > 0 ? "change \(c + 1): " : "")\(reason); nothing appended"
        case let .emptyTransaction(t) where t < lines.count:
            return "line \(lines[t]): a transaction with no changes; nothing appended"
        default:
            return "\(error.description); nothing appended"
        }
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
