import ArgumentParser
import Dispatch
import ViewLog

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
        Follows the head, including transactions appended by other processes (noticed within 10 ms); on a \
        replica, also follows its stream (appends of every machine). \
        Stops after --count change sets, or on Ctrl-C. With --json: the query document first, then one diff \
        document per batch, each starting at the position the one before it ended.

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
        let store = try storeArgument.open()
        let follower = try ReplicaFollower.startIfReplica(store)
        defer { follower?.cancel() }
        let start = try store.head
        var materialized = try MaterializedView(store: store, options: view, at: start)
        if format.json {
            Output.standard.line(materialized.json.text)
        } else {
            for line in materialized.textLines { Output.standard.line(line) }
        }
        Output.standard.flush()
        if count == 0 { return }
        let interrupt = WatchCommand.exitOnInterrupt()
        defer { for source in interrupt { source.cancel() } }
        var printed = 0
        // Each change set printed starts where the document before it ended, so the documents chain: batches
        // that did not change the view are folded into the next one that does (their change set is empty, so
        // the composition is exact), and the output does not depend on how appends fall into polls.
        var lastPrinted = start
        for await head in store.headUpdates() {
            let position = materialized.controller.position
            guard head > position else { continue }
            let delta = try store.delta(from: position, to: head, entities: [materialized.entity.name])
            let before = materialized.values
            for d in delta.objects { materialized.values[d.key.id] = d.after }
            var changes = materialized.controller.apply(delta)
            guard !changes.isEmpty else { continue }
            changes.from = lastPrinted
            lastPrinted = changes.to
            if format.json {
                Output.standard.line(changes.json(includeSeq: seq).text)
            } else {
                for line in DiffText.lines(changes, before: before, after: materialized.values, entity: materialized.entity) {
                    Output.standard.line(line)
                }
            }
            Output.standard.flush()
            printed += 1
            if let count, printed >= count { return }
        }
    }

    /// Ctrl-C (SIGINT) or SIGTERM: flush what was printed and exit 0.
    static func exitOnInterrupt() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Output.standard.flush()
                exitProcess(0)
            }
            source.resume()
            return source
        }
    }
}
