import Foundation
import Testing

/// Golden tests of the history commands (DESIGN §14) on the company story: changes by predicate (key paths,
/// aggregates, `max`) and `append --dry-run`, with the refusals of bad forms — each an `error:` line that appends
/// nothing.
@Suite struct HistoryCLITests {
    @Test func changesByPredicateAndDryRuns() throws {
        let box = try Sandbox()
        var t = Transcript()
        try CompanyStory.setUp(in: box, transcript: &t)
        func run(_ arguments: [String], input: String? = nil) throws { t.record(try box.run(arguments, input: input)) }
        /// A refusal: exit 1, one `error:` line, nothing appended.
        func refused(_ arguments: [String], input: String, mentions: [String]) throws {
            let head = try box.run(["log", "co", "--json"]).stdout
            let r = try box.run(arguments, input: input)
            t.record(r)
            #expect(r.status == 1 && r.stdout.isEmpty && r.errorLines.count == 1, "\(r.stderr)")
            for m in mentions { #expect(r.stderr.contains(m), "\(r.stderr) does not mention \(m)") }
            #expect(try box.run(["log", "co", "--json"]).stdout == head, "a refusal appended")
        }
        t.note("a dry run prints what the append would log, with \"seq\": null, and appends nothing")
        let raise = #"{"update": "Employee", "where": "department.name == 'Sales' AND height != nil", "values": {"salary": 5000}}"# + "\n"
        try run(["append", "co", "--dry-run"], input: raise)
        try run(["log", "co", "--from", "3"])
        try run(["append", "co"], input: raise)
        try run(["log", "co", "--from", "3", "--json"])
        t.note("a form that matches nothing appends nothing: - (null in --json); the other lines still append")
        try run(["append", "co", "--json"], input: #"{"delete": "Employee", "where": "height > 250"}"# + "\n"
                + #"{"update": "Department", "where": "employees.@count >= 2", "values": {"floor": 9}}"# + "\n")
        t.note("delete rules apply to each delete of a form: Research's projects are cascaded, Di's department nullified")
        try run(["append", "co", "--dry-run"], input: #"{"delete": "Department", "where": "ANY employees.height > 170 AND floor == 3"}"# + "\n")
        t.note("max refuses when more objects match; bad forms are named")
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "name != nil", "max": 2}"# + "\n",
                    mentions: ["line 1", "5 objects match", "max 2", "nothing appended"])
        try refused(["append", "co", "--dry-run"], input: #"{"delete": "Employee", "where": "name != nil", "max": 2}"# + "\n",
                    mentions: ["5 objects match"])
        try refused(["append", "co"], input: #"{"update": "Employee", "where": "id == 'ann'", "values": {"height": 1}}"# + "\n",
                    mentions: ["line 1", "'id'"])
        try refused(["append", "co"], input: #"{"update": "Employee", "id": "ann", "where": "height > 1", "values": {"height": 1}}"# + "\n",
                    mentions: ["either \"id\" or \"where\""])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height >"}"# + "\n", mentions: ["line 1"])
        try refused(["append", "co"], input: #"{"update": "Employee", "where": "height > 1", "values": {"height": "tall"}}"# + "\n",
                    mentions: ["line 1", "height"])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height > $min"}"# + "\n", mentions: ["$min"])
        try refused(["append", "co"], input: #"{"insert": "Employee", "where": "height > 1", "values": {"name": "X"}}"# + "\n",
                    mentions: ["insert"])
        try refused(["append", "co"], input: #"{"delete": "Employee", "where": "height > 1", "max": -1}"# + "\n", mentions: ["max"])
        try run(["verify", "co"])
        Golden.check("company-history.txt", t.text)
    }
}
