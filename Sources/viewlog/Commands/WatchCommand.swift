import ArgumentParser
import Dispatch
@_spi(Engine) import ViewLog
import ViewLogDocuments

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a view, then one change set per batch of new transactions that changes it.",
        discussion: """
        Follows the head, including transactions appended by other processes (the kernel tells it of their \
        writes; an idle watcher sleeps); on a replica, also follows its stream (appends of every machine). \
        Stops after --count change sets, on Ctrl-C, or with an error when the store is removed. With --json: \
        the query document first, then one diff document per batch, each starting at the position the one \
        before it ended.

        Examples:
          viewlog watch shop tall --json
          viewlog watch shop --entity Employee --sort name --count 1
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var view: ViewOptions
    @Option(parsing: .unconditional, help: "Exit after this many change sets.") var count: Int?
    @Flag(help: "Add each row change's seq to the JSON.") var seq = false
    @OptionGroup var format: JSONFlag

    func validate() throws {
        if let count, count < 0 { throw ValidationError("--count must not be negative") }
    }

    func run() async throws {
        // Read-write: on a replica, watch also applies what the replication stream brings.
        let store = try storeArgument.open()
        let follower = try ReplicaFollower.startIfReplica(store)
        defer { follower?.cancel() }
        let views = try ViewFollower(store: store, selection: view.selection, at: try store.head)
        let format = self.format
        // The view as a query document; after a compaction past the view (DESIGN §13), `{"reload": true}` first.
        func printView(_ materialized: MaterializedView, reload: Bool) throws {
            if format.json {
                if reload { Output.standard.line(ViewFollower.reloadDocument) }
                try materialized.printJSON()
            } else {
                if reload { Output.standard.line("reload: the store was compacted past this view; the view at \(materialized.controller.position):") }
                for line in try materialized.textLines() { Output.standard.line(line) }
            }
            Output.standard.flush()
        }
        try printView(views.view, reload: false)
        if count == 0 { return }
        // The loop runs as a task of its own that Ctrl-C cancels: it ends after the change set it is printing,
        // so the output is whole documents, and `Main` flushes it. Nothing else writes while it runs.
        let loop = Task { [self] in
            try await views.follow(store, count: count, reloaded: { try printView($0, reload: true) }) { step in
                if format.json {
                    Output.standard.line(step.changes.json(includeSeq: seq).text)
                } else {
                    let materialized = views.view
                    for line in DiffText.lines(step.changes, before: step.before, after: materialized.valuesWithPaths,
                                               entity: materialized.entity) {
                        Output.standard.line(line)
                    }
                }
                Output.standard.flush()
            }
        }
        let interrupt = WatchCommand.cancelOnInterrupt(loop)
        defer { for source in interrupt { source.cancel() } }
        try await loop.value
    }

    /// Ctrl-C (SIGINT) or SIGTERM cancels `task` (which then ends what it is doing and returns; the command
    /// exits 0). The handler only cancels: it never touches the output the task writes. A second one, while
    /// the task is still finishing (a long catch-up), exits at once with status 130 after the whole lines
    /// printed so far.
    static func cancelOnInterrupt<Success, Failure>(_ task: Task<Success, Failure>) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if task.isCancelled { exitProcess(130) }
                task.cancel()
            }
            source.resume()
            return source
        }
    }
}
