import ArgumentParser
@_spi(Engine) import ViewLog

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Move the store's horizon up: keep the objects there, remove the log before it; print the new horizon.",
        discussion: """
        The horizon is the lowest position the store still answers for (0 until compacted). --before SEQ puts it \
        at SEQ, --keep-last N at the head minus N, --keep-for DURATION (30d, 12h, 15m, 90s, 2w) at the last \
        transaction older than DURATION. The objects at the horizon are kept as a checkpoint; log entries up to it \
        and checkpoints below it are removed. Every answer at a position at or above the horizon stays what it was; \
        a position below it is refused (log.compacted). The work is done in bounded writes while other processes \
        append, and a compaction stopped at any moment leaves a store that verifies (the next one finishes it). \
        Freed pages are reused by later appends; 'backup --compact' writes a copy without them. A target at or \
        below the horizon, or a DURATION with nothing older, changes nothing and says so.

        Examples:
          viewlog compact shop --keep-last 100000
          viewlog compact shop --keep-for 30d --json
          viewlog compact shop --before 40
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Option(help: "Put the horizon at this seq.") var before: UInt64?
    @Option(name: .customLong("keep-last"), help: "Keep the last N transactions.") var keepLast: UInt64?
    @Option(name: .customLong("keep-for"), help: "Keep the transactions of the last DURATION (30d, 12h, 15m, 90s, 2w).")
    var keepFor: String?
    @OptionGroup var format: JSONFlag

    func validate() throws {
        let given = [before.map { _ in "--before" }, keepLast.map { _ in "--keep-last" }, keepFor.map { _ in "--keep-for" }]
            .compactMap { $0 }
        if given.isEmpty { throw ValidationError("compact needs one of --before SEQ, --keep-last N, --keep-for DURATION") }
        if given.count > 1 { throw ValidationError("\(given.joined(separator: " and ")) go separately: give one") }
        if let keepFor, RetentionPeriod(keepFor) == nil {
            throw ValidationError("--keep-for '\(keepFor)' is not a duration: \(RetentionPeriod.syntax)")
        }
    }

    func run() throws {
        let target: CompactionTarget
        if let before { target = .before(before) } else if let keepLast { target = .keepLast(keepLast) } else {
            guard let keepFor, let period = RetentionPeriod(keepFor) else { preconditionFailure("validate() lets no other through") }
            target = .keepFor(period)
        }
        let store = try storeArgument.open()
        let result = try store.compact(target)
        if format.json {
            Output.standard.line(JSONValue.object([
                ("horizon", .int(Int64(result.horizon))), ("previousHorizon", .int(Int64(result.previousHorizon))),
                ("bytesFreed", .int(Int64(result.bytesFreed))),
            ]).text)
        } else if result.moved {
            Output.standard.line("compacted \(store.path): horizon \(result.horizon) (was \(result.previousHorizon)), \(result.bytesFreed) bytes freed")
        } else if case .keepFor(let period) = target {
            Output.standard.line("nothing to compact: no transaction after the horizon (\(result.horizon)) is older than \(period)")
        } else {
            Output.standard.line("nothing to compact: the horizon is \(result.horizon) already")
        }
    }
}
