import ArgumentParser
@_spi(Engine) import ViewLog

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
            let entities = s.objectsByEntity.keys.sorted().map { ($0, JSONValue.int(Int64(s.objectsByEntity[$0]!))) }
            var fields: [(String, JSONValue)] = [
                ("head", .int(Int64(s.head))), ("objects", .int(Int64(s.objects))), ("entities", .object(entities)),
                ("logBytes", .int(Int64(s.logBytes))), ("objectBytes", .int(Int64(s.objectBytes))),
                ("usedBytes", .int(Int64(s.usedBytes))), ("mapSizeBytes", .int(Int64(s.mapSizeBytes))),
            ]
            if hasCheckpoints {
                fields.append(("checkpoints", s.checkpointsJSON))
            }
            Output.standard.line(JSONValue.object(fields).text)
        } else {
            var rows = [["head", String(s.head)], ["objects", String(s.objects)]]
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
