import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

struct CheckpointsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoints",
        abstract: "List a store's checkpoints, or drop them.",
        discussion: """
        A checkpoint is a copy of the object rows at a seq; time travel (query --at, diff, get --at) starts from \
        the nearest one instead of the empty store or the head. Appends build them as they go, a few rows per \
        change: one each time the log grows by twice the store's rows (at least 65,536 entries). They hold \
        nothing the log does not, so --drop loses nothing: it repairs a store whose checkpoints verify reports \
        damaged, and the next appends build new ones.

        Examples:
          viewlog checkpoints shop
          viewlog checkpoints shop --json
          viewlog checkpoints shop --drop
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Flag(name: .long, help: "Remove every checkpoint (complete or being built), in one write.")
    var drop = false
    @OptionGroup var format: JSONFlag

    func run() throws {
        if drop {
            let rows = try storeArgument.open().dropCheckpoints()
            if format.json {
                Output.standard.line(JSONValue.object([("droppedRows", .int(Int64(rows)))]).text)
            } else {
                Output.standard.line("dropped the checkpoints of \(storeArgument.store) (\(rows) rows)")
            }
            return
        }
        let s = try storeArgument.open(readOnly: true).statistics()
        if format.json {
            Output.standard.line(Documents.checkpoints(s).text)
        } else {
            let rows = [["complete", s.checkpoints.isEmpty ? "none" : s.checkpoints.map(String.init).joined(separator: ", ")],
                        ["building", s.checkpointBuilding.map(String.init) ?? "none"],
                        ["bytes", String(s.checkpointBytes)]]
            for line in TextTable(rows: rows).lines { Output.standard.line(line) }
        }
    }
}
