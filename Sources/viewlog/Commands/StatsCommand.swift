import ArgumentParser
@_spi(Engine) import ViewLog

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts and sizes of a store.",
        discussion: """
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
        if format.json {
            let entities = s.objectsByEntity.keys.sorted().map { ($0, JSONValue.int(Int64(s.objectsByEntity[$0]!))) }
            Output.standard.line(JSONValue.object([
                ("head", .int(Int64(s.head))), ("objects", .int(Int64(s.objects))), ("entities", .object(entities)),
                ("logBytes", .int(Int64(s.logBytes))), ("objectBytes", .int(Int64(s.objectBytes))),
                ("usedBytes", .int(Int64(s.usedBytes))), ("mapSizeBytes", .int(Int64(s.mapSizeBytes))),
            ]).text)
        } else {
            var rows = [["head", String(s.head)], ["objects", String(s.objects)]]
            for name in s.objectsByEntity.keys.sorted() { rows.append(["  \(name)", String(s.objectsByEntity[name]!)]) }
            rows += [["log bytes", String(s.logBytes)], ["object bytes", String(s.objectBytes)],
                     ["used bytes", String(s.usedBytes)], ["map size", String(s.mapSizeBytes)]]
            for line in TextTable(rows: rows).lines { Output.standard.line(line) }
        }
    }
}
