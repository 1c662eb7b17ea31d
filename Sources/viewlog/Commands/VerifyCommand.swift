import ArgumentParser
@_spi(Engine) import ViewLog

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check checksums, contiguous seqs, decodable entries and objects == replay(log).",
        discussion: """
        Exits 1 and lists the problems when the store is damaged.

        Examples:
          viewlog verify shop
          viewlog verify shop --json
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @OptionGroup var format: JSONFlag

    func run() throws {
        let store = try storeArgument.open(readOnly: true)
        let report = try store.verify { done, head in Output.progress("verify: \(done)/\(head) transactions") }
        Output.progressDone()
        if format.json {
            Output.standard.line(JSONValue.object([
                ("ok", .bool(report.isOK)), ("transactions", .int(Int64(report.transactions))),
                ("objects", .int(Int64(report.objects))), ("problems", .array(report.problems.map { .string($0) })),
            ]).text)
        } else if report.isOK {
            Output.standard.line("ok: \(report.transactions) transactions, \(report.objects) objects")
        }
        guard report.isOK else {
            if !format.json { for p in report.problems { Output.standard.line(p) } }
            throw CLIError("\(store.path) failed verification: \(report.problems.count) problem(s), first: \(report.problems[0])")
        }
    }
}
