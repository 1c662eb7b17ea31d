import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog

/// `viewlog backup` while another process appends (DESIGN §13, "Backup"): each copy holds exactly the log up to
/// the position it prints, verifies, and answers as the store did at that position.
@Suite struct BackupCLITests {
    @Test func backupsTakenWhileAnotherProcessAppendsAreConsistentAndVerify() throws {
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "shop", "--schema", "employees.json"]).status == 0)
        // The appender: one `viewlog append` after another until the test makes the file `stop` (however the test
        // ends), so it is appending before, during and after every backup below.
        let script = #"""
            i=0
            while [ ! -e stop ] && [ $i -lt 100000 ]; do
              i=$((i + 1))
              "$0" append shop insert Employee "e$i" "name=N$i" "height=$((150 + i % 50))" >/dev/null || exit 1
              if [ $((i % 7)) -eq 0 ]; then
                "$0" append shop update Employee "e$((i - 3))" "height=199" >/dev/null || exit 1
              fi
            done
            exit 0
            """#
        let appender = Process()
        appender.executableURL = URL(fileURLWithPath: "/bin/sh")
        appender.arguments = ["-c", script, try CLI.binaryPath()]
        appender.currentDirectoryURL = box.url
        try appender.run()
        defer {
            _ = FileManager.default.createFile(atPath: box.file("stop"), contents: nil)
            appender.waitUntilExit()
        }
        func head(_ store: String) throws -> Int {
            let stats = try box.run(["stats", store, "--json"])
            return try #require(CLIProcess.json(stats.stdout)?["head"] as? Int, "\(stats.stderr)")
        }
        func waitForHead(above position: Int) throws {
            let deadline = Date().addingTimeInterval(60)
            while try head("shop") <= position {
                try #require(appender.isRunning, "the appender stopped")
                try #require(Date() < deadline, "no append for 60 s")
                usleep(10_000)
            }
        }

        var positions: [(copy: String, position: Int)] = []
        for (i, compact) in [false, true, false].enumerated() {
            try waitForHead(above: positions.last?.position ?? 2)
            let copy = "copy\(i)"
            let backed = try box.run(["backup", "shop", copy, "--json"] + (compact ? ["--compact"] : []))
            try #require(backed.status == 0, "\(backed.stderr)")
            let document = try #require(CLIProcess.json(backed.stdout))
            #expect(document.keys.sorted() == ["backup", "bytes", "position"])
            #expect(document["backup"] as? String == copy)
            let position = try #require(document["position"] as? Int)
            #expect((document["bytes"] as? Int ?? 0) > 0)
            positions.append((copy, position))
        }
        // The appender went on after the last copy: no copy can hold what came after it.
        try waitForHead(above: positions.last!.position)
        _ = FileManager.default.createFile(atPath: box.file("stop"), contents: nil)
        appender.waitUntilExit()
        #expect(appender.terminationStatus == 0)

        let log = try box.run(["log", "shop", "--json"]).stdout.split(separator: "\n")
        for (copy, position) in positions {
            #expect(try head(copy) == position)
            let verified = try box.run(["verify", copy])
            #expect(verified.status == 0, "\(copy): \(verified.stdout)\(verified.stderr)")
            let copied = try box.run(["log", copy, "--json"]).stdout.split(separator: "\n")
            #expect(copied == Array(log.prefix(position)), "\(copy) at \(position)")
            let query = ["query", "--entity", "Employee", "--where", "height > 190", "--sort", "name", "--json"]
            let atPosition = try box.run([query[0], "shop"] + query.dropFirst() + ["--at", String(position)]).stdout
            #expect(try box.run([query[0], copy] + query.dropFirst()).stdout == atPosition)
        }
        #expect(positions.map(\.position) == positions.map(\.position).sorted())
        #expect(try head("shop") > positions.last!.position)
    }
}
