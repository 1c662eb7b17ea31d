import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog

/// `viewlog compact` with other processes (DESIGN §13, "Horizon and compaction"): a `watch` running across a
/// compaction goes on, and a compaction killed (SIGKILL) at any moment leaves a store that verifies, with the old
/// horizon or the new one, answering at and above it as before; the next `compact` finishes it (that it does so
/// whatever it is asked, after a stop after any of the compaction's writes, `CompactionTests` shows).
@Suite struct CompactCLITests {
    @Test func aWatchRunningAcrossACompactionGoesOn() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        let watch = try box.start(["watch", "shop", "--entity", "Employee", "--sort", "name", "--json"])
        defer { watch.process.terminate() }
        try watch.waitForLines(1)
        try #require(try box.run(["append", "shop", "insert", "Employee", "w1", "name=Wes"]).status == 0)
        try watch.waitForLines(2)
        let compacted = try box.run(["compact", "shop", "--keep-last", "0", "--json"])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        #expect(compacted.stdout.hasPrefix(#"{"horizon": 11, "previousHorizon": 0"#), "\(compacted.stdout)")
        try #require(try box.run(["append", "shop", "update", "Employee", "w1", "name=Abe"]).status == 0)
        try watch.waitForLines(3)
        let last = try #require(watch.stdoutSoFar.split(separator: "\n").last.map(String.init))
        #expect(last.hasPrefix(#"{"from": 11, "to": 12, "#) && last.contains(#""id": "w1""#), "\(last)")
        #expect(try box.run(["verify", "shop"]).status == 0)
    }

    /// A watcher whose position a compaction passed while it was stopped prints `{"reload": true}` and the query
    /// document at the head (as the server sends them, DESIGN §5/§13), then goes on from there.
    @Test func aWatchWhosePositionACompactionPassedReloadsAtTheHead() throws {
        let box = try Sandbox()
        try Stories.employees(in: box)
        let view = ["--entity", "Employee", "--sort", "name", "--json"]
        let watch = try box.start(["watch", "shop"] + view)
        defer {
            kill(watch.process.processIdentifier, SIGCONT)
            watch.process.terminate()
        }
        try watch.waitForLines(1)
        kill(watch.process.processIdentifier, SIGSTOP)
        try #require(try box.run(["append", "shop", "insert", "Employee", "w1", "name=Wes"]).status == 0)
        let compacted = try box.run(["compact", "shop", "--keep-last", "0", "--json"])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        kill(watch.process.processIdentifier, SIGCONT)
        try watch.waitForLines(3)
        let lines = watch.stdoutSoFar.split(separator: "\n").map(String.init)
        #expect(lines[1] == #"{"reload": true}"#, "\(lines)")
        let query = try box.run(["query", "shop"] + view)
        #expect(lines[2] + "\n" == query.stdout, "\(lines)")
        try #require(try box.run(["append", "shop", "update", "Employee", "w1", "name=Abe"]).status == 0)
        try watch.waitForLines(4)
        let last = try #require(watch.stdoutSoFar.split(separator: "\n").last.map(String.init))
        let diff = try box.run(["diff", "shop"] + view + ["--from", "11", "--to", "12"])
        #expect(last + "\n" == diff.stdout, "\(last)")
    }

    @Test func aCompactionKilledAtAnyMomentLeavesAStoreThatVerifiesAndTheNextFinishesIt() throws {
        var g = SeededGenerator(seed: SeededGenerator.seed(default: 4141))
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "shop", "--schema", "employees.json"]).status == 0)
        // 1,500 employees, then 4,500 updates: 6,000 transactions in one write.
        var lines = (0..<1_500).map { #"{"insert": "Employee", "id": "e\#($0)", "values": {"name": "n\#($0)", "height": \#(150 + $0 % 50)}}"# }
        for _ in 0..<4_500 {
            lines.append(#"{"update": "Employee", "id": "e\#(Int.random(in: 0..<1_500, using: &g))", "values": {"height": \#(Int.random(in: 150...200, using: &g))}}"#)
        }
        let input = try box.write("load.jsonl", lines.joined(separator: "\n") + "\n")
        try #require(try box.run(["append", "shop", "--file", input]).status == 0)
        let query = ["query", "shop", "--entity", "Employee", "--where", "height > 190", "--sort", "height, name", "--json"]
        func stats() throws -> [String: Any] { try #require(CLIProcess.json(try box.run(["stats", "shop", "--json"]).stdout)) }
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var horizon = 0
        for target in [1_800, 3_600, 5_400] {
            let expected = try box.run(query + ["--at", String(target)]).stdout
            let (process, _, _) = try CLIProcess.start(["compact", box.file("shop"), "--before", String(target)], directory: directory)
            usleep(UInt32.random(in: 0...100_000, using: &g))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let verify = try box.run(["verify", "shop"])
            #expect(verify.status == 0, "killed compacting to \(target): \(verify.stdout) \(verify.stderr)")
            let now = try stats()["horizon"] as? Int
            #expect(now == horizon || now == target, "killed compacting to \(target): horizon \(now ?? -1)")
            #expect(try box.run(query + ["--at", String(target)]).stdout == expected, "killed compacting to \(target)")
            // Killed before its first write, the compaction left nothing to finish: the same command again does it all.
            let finished = try box.run(["compact", "shop", "--before", String(target), "--json"])
            #expect(finished.status == 0, "\(finished.stderr)")
            #expect(try stats()["horizon"] as? Int == target)
            #expect(try box.run(["verify", "shop"]).status == 0, "finished compacting to \(target)")
            #expect(try box.run(query + ["--at", String(target)]).stdout == expected, "finished compacting to \(target)")
            horizon = target
        }
    }
}
