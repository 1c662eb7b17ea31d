import Foundation
import Testing

/// What the CLI's start-up leaves out (bench/RESULTS-notes.md, its start-up section): the binary does not need the
/// NATS client or OpenSSL (ViewLogReplication loads them on its first connection, Sources/CNATS), and `get`, `query`
/// and `diff` in their plain spellings, which skip ArgumentParser, print what ArgumentParser's parse of the same
/// arguments prints.
@Suite("Start-up")
struct StartupTests {
    /// The shared libraries the binary names (`DT_NEEDED`), as `readelf -d` shows them.
    static func neededLibraries(of path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["readelf", "-d", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "readelf -d \(path) failed")
        return output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test func theBinaryDoesNotNeedTheNATSClientOrOpenSSL() throws {
        let needed = try Self.neededLibraries(of: try CLI.binaryPath())
        #expect(needed.contains { $0.hasPrefix("liblmdb") }, "\(needed)")
        for library in needed {
            #expect(!["libnats", "libssl", "libcrypto", "libprotobuf-c"].contains { library.hasPrefix($0) }, "\(library)")
        }
    }

    /// `--at=N`, `--limit=N` and `--from=N` are not plain spellings: ArgumentParser parses them, to the same values.
    @Test func plainSpellingsPrintWhatArgumentParserPrints() throws {
        let box = try Sandbox()
        try box.exampleSchema("employees.json")
        try #require(try box.run(["init", "s", "--schema", "employees.json"]).status == 0)
        try #require(try box.run(["append", "s", "insert", "Employee", "e1", "name=Ann", "height=180", "sectionName=A"]).status == 0)
        try #require(try box.run(["append", "s", "insert", "Employee", "e2", "name=Bob", "height=190", "sectionName=B"]).status == 0)
        let pairs: [([String], [String])] = [
            (["get", "s", "Employee", "e1", "--at", "1", "--json"], ["get", "s", "Employee", "e1", "--at=1", "--json"]),
            (["get", "s", "Employee", "e2", "--at", "1"], ["get", "s", "Employee", "e2", "--at=1"]),
            (["get", "--json", "s", "--at", "2", "Employee", "e2"], ["get", "s", "Employee", "e2", "--json", "--at=2"]),
            (["query", "s", "tall", "--limit", "1", "--json"], ["query", "s", "tall", "--limit=1", "--json"]),
            (["query", "s", "tall", "--offset", "1", "--at", "2"], ["query", "s", "tall", "--offset=1", "--at=2"]),
            (["query", "s", "nosuch", "--json"], ["query", "s", "nosuch", "--json", "--limit=5"]),
            (["diff", "s", "tall", "--from", "0", "--to", "2", "--json", "--seq"], ["diff", "s", "tall", "--from=0", "--to=2", "--json", "--seq"]),
            (["diff", "--seq", "s", "--to", "1", "tall", "--from", "2", "--limit", "1"], ["diff", "s", "tall", "--from=2", "--to=1", "--limit=1", "--seq"]),
            (["diff", "s", "tall", "--from", "2", "--to", "0", "--offset", "1"], ["diff", "s", "tall", "--from=2", "--to=0", "--offset=1"]),
            (["diff", "s", "tall", "--from", "9", "--to", "1"], ["diff", "s", "tall", "--from=9", "--to=1"]),
        ]
        for (plain, parsed) in pairs {
            let a = try box.run(plain), b = try box.run(parsed)
            #expect(a.stdout == b.stdout && a.stderr == b.stderr && a.status == b.status, "\(plain) against \(parsed)")
        }
    }
}
