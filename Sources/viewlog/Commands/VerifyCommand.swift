import ArgumentParser
@_spi(Engine) import ViewLog
import ViewLogDocuments

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
            Output.standard.line(Documents.verify(report).text)
        } else if report.isOK {
            Output.standard.line("ok: \(report.transactions) transactions, \(report.objects) objects")
        }
        guard report.isOK else {
            if !format.json { for p in report.problems { Output.standard.line(p) } }
            throw CLIError("\(store.path) failed verification: \(report.problems.count) problem(s), first: \(report.problems[0])")
        }
    }
}
