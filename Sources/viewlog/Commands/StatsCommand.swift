import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts and sizes of a store.",
        discussion: """
        A store with checkpoints (the object rows at a few seqs, which time travel starts from: appends build \
        one each time the log grows by twice the store's rows, at least 65,536 entries) also shows them.

        Examples:
          viewlog stats shop
          viewlog stats shop --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let s = try store.statistics()
        // Shown only when the store has some, so a small store's output is as it always was.
        let hasCheckpoints = !s.checkpoints.isEmpty || s.checkpointBuilding != nil
        if format.json {
            Output.standard.line(Documents.stats(s).text)
        } else {
            var rows = [["head", String(s.head)], ["horizon", String(s.horizon)], ["objects", String(s.objects)]]
            for name in s.objectsByEntity.keys.sorted() { rows.append(["  \(name)", String(s.objectsByEntity[name]!)]) }
            rows += [["log bytes", String(s.logBytes)], ["object bytes", String(s.objectBytes)],
                     ["used bytes", String(s.usedBytes)], ["map size", String(s.mapSizeBytes)]]
            if hasCheckpoints {
                let complete = s.checkpoints.last.map { "\(s.checkpoints.count), the newest at seq \($0)" } ?? "none complete"
                rows += [["checkpoints", complete + (s.checkpointBuilding.map { "; building \($0)" } ?? "")],
                         ["checkpoint bytes", String(s.checkpointBytes)]]
            }
            for line in TextTable(rows: rows).lines { Output.standard.line(line) }
        }
    }
}
