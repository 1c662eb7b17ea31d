import ArgumentParser
import ViewLog

/// `viewlog`: the command-line tool. Thin by design: parse, call the library, print.
struct ViewLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewlog",
        abstract: "An embedded write-ahead event log on LMDB with live materialized views.",
        discussion: """
        Every change is a transaction appended to the log of a store (a directory). Views (entity, predicate, \
        sort, sections) can be queried at any position and diffed between positions.

        Examples:
          viewlog init shop --schema schema/employees.json
          echo '{"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}' | viewlog append shop
          viewlog append shop update Employee e1 height=182
          viewlog query shop tall
          viewlog diff shop tall --from 1 --to 2 --json
        """,
        subcommands: [
            InitCommand.self, AppendCommand.self, LogCommand.self, GetCommand.self, QueryCommand.self,
            DiffCommand.self, WatchCommand.self, VerifyCommand.self, StatsCommand.self, ExportCommand.self,
            ImportCommand.self, ReplayCommand.self, SchemaCommand.self, ViewsCommand.self,
        ]
    )
}

@main
enum Main {
    static func main() async {
        do {
            var command = try ViewLogCommand.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Output.standard.flush()
        } catch {
            Output.standard.flush()
            fail(error)
        }
    }

    /// Prints one `error: …` line (or the help a user asked for) and exits non-zero (DESIGN §7).
    static func fail(_ error: Error) -> Never {
        if let e = error as? CLIError {
            Output.error(e.description)
            exitProcess(e.exitCode)
        }
        if isLibraryError(error) {
            Output.error(String(describing: error))
            exitProcess(1)
        }
        let code = ViewLogCommand.exitCode(for: error)
        if code == .success {
            ViewLogCommand.exit(withError: error)  // --help, --version: print them and exit 0
        }
        let message = ViewLogCommand.message(for: error)
        let first = message.split(separator: "\n").first.map(String.init) ?? "invalid usage"
        let trimmed = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
        Output.error(trimmed + " (see 'viewlog help')")
        exitProcess(code.rawValue == 0 ? 2 : code.rawValue)
    }

    /// Errors of the ViewLog library: their descriptions already name the input at fault.
    static func isLibraryError(_ error: Error) -> Bool {
        error is StoreError || error is SchemaError || error is QueryError || error is JSONError
            || error is ValueError
    }
}
