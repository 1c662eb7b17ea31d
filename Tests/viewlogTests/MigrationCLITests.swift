import Foundation
import Testing
import TestSupport

/// `schema --migrate` killed (SIGKILL) at a random moment of its rewrite: the store verifies, with the migration
/// whole or not at all (one LMDB write: DESIGN §13).
@Suite struct MigrationCLITests {
    @Test func aMigrationKilledDuringItsRewriteLeavesItWholeOrAbsent() throws {
        var g = SeededGenerator(seed: SeededGenerator.seed(default: 41))
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "s", "--schema", "employees.json"]).status == 0)
        let inserts = (0..<30_000).map { #"{"insert": "Employee", "id": "e\#($0)", "values": {"name": "n\#($0)", "height": \#(150 + $0 % 50)}}"# }
        try #require(try box.run(["append", "s"], input: #"{"changes": [\#(inserts.joined(separator: ", "))]}"# + "\n").status == 0)
        try box.write("there.json", #"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}, {"changeType": {"entity": "Employee", "attribute": "heightCm", "to": "double"}}]"#)
        try box.write("back.json", #"[{"changeType": {"entity": "Employee", "attribute": "heightCm", "to": "int"}}, {"renameAttribute": {"entity": "Employee", "from": "heightCm", "to": "height"}}]"#)
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func head() throws -> Int {
            (CLIProcess.json(try box.run(["stats", "s", "--json"]).stdout)?["head"] as? Int) ?? -1
        }
        var migrated = false
        for round in 0..<4 {
            let start = try head()
            let file = migrated ? "back.json" : "there.json"
            let (process, _, _) = try CLIProcess.start(["schema", box.file("s"), "--migrate", box.file(file)], directory: directory)
            usleep(UInt32.random(in: 0...400_000, using: &g))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let verify = try box.run(["verify", "s"])
            #expect(verify.status == 0, "round \(round): \(verify.stdout) \(verify.stderr)")
            let now = try head()
            #expect(now == start || now == start + 1, "round \(round)")
            if now == start + 1 { migrated.toggle() }
            let e1 = try box.run(["get", "s", "Employee", "e1", "--json"]).stdout
            #expect(e1.contains(migrated ? #""heightCm": 151.0"# : #""height": 151"#), "round \(round): \(e1)")
        }
        // Whichever the kills hit, the last state migrates on (the store is not left half-way).
        let last = try box.run(["schema", "s", "--migrate", box.file(migrated ? "back.json" : "there.json")])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try box.run(["verify", "s"]).status == 0)
    }
}
