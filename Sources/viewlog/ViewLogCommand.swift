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

        Errors are one line on standard error starting 'error: ', with a non-zero exit status; a refused \
        append appends nothing.

        Examples:
          viewlog init shop --schema schema/employees.json
          viewlog append shop < changes.jsonl
          viewlog append shop insert Employee e1 name=Ann height=180 sectionName=A
          viewlog append shop update Employee e1 height=182 hired:=null
          viewlog log shop --from 1 --json
          viewlog get shop Employee e1 --at 1
          viewlog query shop tall
          viewlog query shop --entity Employee --where 'height > $min' --var min=170
          viewlog diff shop tall --from 1 --to 2 --json
          viewlog watch shop tall --count 1
          viewlog export shop > shop.jsonl
          viewlog backup shop shop-backup
          viewlog compact shop --keep-last 100000
          viewlog init shop2 --nats nats://127.0.0.1:4222 --stream shop
          viewlog sync shop2 --follow
          viewlog serve shop --listen 127.0.0.1:8080
        """,
        subcommands: [
            InitCommand.self, AppendCommand.self, LogCommand.self, GetCommand.self, QueryCommand.self,
            DiffCommand.self, WatchCommand.self, VerifyCommand.self, StatsCommand.self, ExportCommand.self,
            ImportCommand.self, ReplayCommand.self, BackupCommand.self, CompactCommand.self, SchemaCommand.self, ViewsCommand.self, UpgradeCommand.self,
            CheckpointsCommand.self,
            RevertCommand.self, UndoCommand.self, RedoCommand.self,
            SyncCommand.self, ServeCommand.self,
        ]
    )
}

@main
enum Main {
    static func main() async {
        // Parsing and running are kept apart: an error from parsing is a usage error (ArgumentParser's text,
        // exit 64), an error from running is a runtime error whose description already names the input at
        // fault (exit 1). Both are printed as one `error: …` line.
        if let plain = PlainInvocation(CommandLine.arguments.dropFirst()) {
            do {
                try plain.run()
                Output.standard.flush()
            } catch {
                Output.standard.flush()
                fail(error)
            }
            return
        }
        var command: ParsableCommand
        if let direct = parseSubcommandDirectly() {
            command = direct
        } else {
            do { command = try ViewLogCommand.parseAsRoot() } catch { failUsage(error) }
        }
        do {
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

    /// `viewlog SUBCOMMAND ARGUMENTS…` parsed by the subcommand itself, when that parse succeeds: the same command
    /// as the root's parse gives, without the root's start-up cost — the root's parse first builds the arguments of
    /// every subcommand to look for `--generate-completion-script`, each by reflection (about a millisecond, a sixth of
    /// a small command; bench/RESULTS-notes.md, its start-up section). `nil` for anything else — no subcommand by its name
    /// first, a completion or help request, any error — which the root's parse then handles, so that usage, help
    /// and error texts, all of which name `viewlog`, are the root's.
    static func parseSubcommandDirectly() -> sending ParsableCommand? {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, !name.hasPrefix("-"),
              let subcommand = ViewLogCommand.configuration.subcommands.first(where: { $0._commandName == name }),
              subcommand.configuration.subcommands.isEmpty, subcommand.configuration.defaultSubcommand == nil,
              !arguments.contains(where: { $0.hasPrefix("--generate-completion-script") || $0.hasPrefix("---") }),
              let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
              ObjectIdentifier(type(of: command)) == ObjectIdentifier(subcommand)  // not a help request
        else { return nil }
        return command
    }

    /// A runtime error: one `error: …` line with the error's description, exit 1 (or the error's own code).
    static func fail(_ error: Error) -> Never {
        if let e = error as? CLIError {
            Output.error(e.description)
            exitProcess(e.exitCode)
        }
        // `help` and `--help` parse as ArgumentParser's help command, whose run() throws to print the help; a
        // command's own ValidationError or ExitCode is ArgumentParser's to report too.
        if String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            failUsage(error)
        }
        Output.error(String(describing: error))
        exitProcess(1)
    }

    /// A usage error of ArgumentParser: its message's first line as one `error: …` line, exit 64; or the help
    /// or version a user asked for, exit 0.
    static func failUsage(_ error: Error) -> Never {
        let code = ViewLogCommand.exitCode(for: error)
        if code == .success {
            ViewLogCommand.exit(withError: error)  // --help, --version: print them and exit 0
        }
        let message = ViewLogCommand.message(for: error)
        let first = message.split(separator: "\n").first.map(String.init) ?? "invalid usage"
        let trimmed = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
        Output.error(trimmed + " (see 'viewlog help')")
        exitProcess(code.rawValue == 0 ? 64 : code.rawValue)
    }
}
