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
        let start = try store.head
        let materialized = try MaterializedView(store: store, selection: view.selection, at: start)
        if format.json {
            try materialized.printJSON()
        } else {
            for line in try materialized.textLines() { Output.standard.line(line) }
        }
        Output.standard.flush()
        if count == 0 { return }
        // The loop runs as a task of its own that Ctrl-C cancels: it ends after the change set it is printing,
        // so the output is whole documents, and `Main` flushes it. Nothing else writes while it runs.
        let loop = Task { [self] in try await follow(store, materialized, from: start) }
        let interrupt = WatchCommand.cancelOnInterrupt(loop)
        defer { for source in interrupt { source.cancel() } }
        try await loop.value
    }

    /// Prints one change set per batch of new transactions that changes the view, until `--count` change sets,
    /// cancellation, or an error (the store removed: ``StoreError/notAStore(path:reason:)``).
    private func follow(_ store: LogStore, _ materialized: MaterializedView, from start: UInt64) async throws {
        var printed = 0
        // Each change set printed starts where the document before it ended, so the documents chain: batches
        // that did not change the view are folded into the next one that does, and the output does not depend
        // on how appends fall into notifications: each document is the one `diff --from --to` prints.
        var lastPrinted = start
        for try await head in store.headUpdates() {
            if Task.isCancelled { return }
            let position = materialized.controller.position
            guard head > position else { continue }
            var (changes, before) = try materialized.move(to: head)
            guard !changes.isEmpty else { continue }
            if lastPrinted < position {
                // Batches were folded since the last document: this one is computed again over the whole span
                // (lastPrinted, head], back to where the last document ended (the view there is the view at
                // `position`) and forward, so it is the document `diff --from lastPrinted --to head` prints. A
                // row's `seq` is the last transaction of the span that touched it (DESIGN §5): a row inserted
                // outside a window by a folded batch and entering it now was touched by that batch, not this one.
                _ = try materialized.move(to: lastPrinted)
                (changes, before) = try materialized.move(to: head)
            }
            changes.from = lastPrinted
            lastPrinted = changes.to
            if format.json {
                Output.standard.line(changes.json(includeSeq: seq).text)
            } else {
                for line in DiffText.lines(changes, before: before, after: materialized.valuesWithPaths, entity: materialized.entity) {
                    Output.standard.line(line)
                }
            }
            Output.standard.flush()
            printed += 1
            if let count, printed >= count { return }
        }
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
