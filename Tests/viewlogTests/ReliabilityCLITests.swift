import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

#if canImport(Glibc)
import Glibc
#endif

/// Reliability at the level of the `viewlog` binary: several processes writing and reading one store, a full disk,
/// over-long input, damaged and foreign files, file permissions. Each test runs the binary in child processes
/// (see ``CLIProcess``).
@Suite("Reliability (CLI)")
struct ReliabilityCLITests {
    static let schema = """
        {"entities": {"Employee": {"id": "string", "attributes": {
          "name": {"type": "string"}, "height": {"type": "int", "optional": true},
          "sectionName": {"type": "string", "default": ""}}}}}
        """

    /// A scratch directory with `schema.json` and a store `s` made by `viewlog init`.
    static func newStore() throws -> (directory: String, store: String) {
        try #require(CLIProcess.binaryExists, "no viewlog binary at \(CLIProcess.binary): build it with `swift build`")
        let directory = try CLIProcess.scratch()
        try schema.write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let store = directory + "/s"
        let result = try CLIProcess.run(["init", store, "--schema", directory + "/schema.json"], directory: directory)
        try #require(result.status == 0, "\(result)")
        return (directory, store)
    }

    static func appendLines(_ lines: [String], to store: String, in directory: String) throws -> CLIProcess.Result {
        let file = directory + "/input-\(UUID().uuidString).jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return try CLIProcess.run(["append", store, "--file", file], directory: directory)
    }

    static func insertLine(_ id: String, name: String? = nil, height: Int = 170) -> String {
        #"{"insert": "Employee", "id": "\#(id)", "values": {"name": "\#(name ?? id)", "height": \#(height)}}"#
    }

    // MARK: Several processes

    /// 4 processes × 8 appends, each append its own `viewlog` process, while `watch --json` follows the view
    /// and `query --json` runs again and again: head = 32, every id once, each printed seq holds its id,
    /// every query shows whole transactions, and the view the watcher builds from its change sets equals a
    /// fresh query.
    @Test func processesAppendingWhileOthersRead() throws {
        let (directory, store) = try Self.newStore()
        let writers = 4, appendsEach = 8
        let watch = try CLIProcess.start(["watch", store, "--entity", "Employee", "--sort", "height, name", "--json"],
                                         directory: directory)
        defer { if watch.0.isRunning { watch.0.terminate() } }
        var started: [(Process, String, String)] = []
        for w in 0..<writers {
            // One shell per writer, running one `viewlog append` per id; it stops at the first failure.
            let script = "for i in $(seq 0 \(appendsEach - 1)); do \"$0\" append \"$1\" insert Employee w\(w)-$i "
                + "name=w\(w)-$i height=$(( (\(w) * 7 + i * 13) % 40 + 150 )) || exit 1; done"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, CLIProcess.binary, store]
            let out = directory + "/writer-\(w).out", err = directory + "/writer-\(w).err"
            _ = FileManager.default.createFile(atPath: out, contents: nil)
            _ = FileManager.default.createFile(atPath: err, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: out)
            process.standardError = FileHandle(forWritingAtPath: err)
            try process.run()
            started.append((process, out, err))
        }
        // Readers meanwhile: a query at any moment shows a whole number of transactions (one row each).
        var queries = 0
        while started.contains(where: { $0.0.isRunning }) || queries < 3 {
            let q = try CLIProcess.run(["query", store, "--entity", "Employee", "--json"], directory: directory)
            #expect(q.status == 0, "\(q)")
            if let doc = q.lines.first.flatMap(CLIProcess.json), let position = doc["position"] as? Int {
                #expect(CLIProcess.rowIDs(doc).count == position, "query at \(position): \(q.stdout)")
            }
            queries += 1
        }
        var printed: [Int: String] = [:]  // seq → the id its append printed it for
        for (w, (process, out, _)) in started.enumerated() {
            process.waitUntilExit()
            let result = CLIProcess.result(process, out, started[w].2)
            #expect(result.status == 0, "writer \(w): \(result)")
            for (i, line) in result.lines.enumerated() {
                guard let seq = Int(line) else { Issue.record("writer \(w) printed '\(line)'"); continue }
                #expect(printed.updateValue("w\(w)-\(i)", forKey: seq) == nil, "seq \(seq) printed twice")
            }
        }
        let total = writers * appendsEach
        #expect(printed.keys.sorted() == Array(1...total))
        // Every printed seq holds the insert of the id its process appended.
        let log = try CLIProcess.run(["log", store, "--json"], directory: directory)
        #expect(log.status == 0)
        for line in log.lines {
            guard let t = CLIProcess.json(line), let seq = t["seq"] as? Int,
                  let changes = t["changes"] as? [[String: Any]] else { Issue.record("log line \(line)"); continue }
            #expect(changes.count == 1 && changes[0]["id"] as? String == printed[seq], "seq \(seq): \(line)")
        }
        #expect(log.lines.count == total)
        let verify = try CLIProcess.run(["verify", store], directory: directory)
        #expect(verify.stdout == "ok: \(total) transactions, \(total) objects\n", "\(verify)")
        // The watcher's view, rebuilt from its change sets, reaches the fresh query's.
        let fresh = try CLIProcess.run(["query", store, "--entity", "Employee", "--sort", "height, name", "--json"],
                                       directory: directory)
        let expected = CLIProcess.rowIDs(try #require(fresh.lines.first.flatMap(CLIProcess.json)))
        #expect(expected.count == total)
        var rows: [String] = [], consumed = 0, batches = 0
        for _ in 0..<1000 where rows != expected {  // up to ~10 s for the watcher to catch up
            let lines = ((try? String(contentsOfFile: watch.stdout, encoding: .utf8)) ?? "").split(separator: "\n")
            for line in lines.dropFirst(consumed) {
                guard let doc = CLIProcess.json(line) else { break }  // a line still being written
                if consumed == 0 {
                    rows = CLIProcess.rowIDs(doc)
                } else {
                    #expect(CLIProcess.apply(doc, to: &rows), "a change set that does not apply: \(line)")
                    batches += 1
                }
                consumed += 1
            }
            if rows != expected { usleep(10_000) }
        }
        #expect(rows == expected, "the watcher saw \(batches) change sets")
        watch.0.interrupt()  // SIGINT: watch flushes and exits 0
        watch.0.waitUntilExit()
        let watched = CLIProcess.result(watch.0, watch.stdout, watch.stderr)
        #expect(watched.status == 0 && !watched.signaled, "\(watched)")
    }

    // MARK: A full disk

    /// An append that cannot write (here a file size limit: write() fails with EFBIG once SIGXFSZ is ignored)
    /// fails with a clear error and leaves the store as it was; the same append works once there is room.
    @Test(.disabled(if: CLIProcess.isThreadSanitized, "ThreadSanitizer's runtime dies under `ulimit -f` (SIGBUS)"))
    func anAppendThatCannotWriteLeavesTheStoreAsItWas() throws {
        let (directory, store) = try Self.newStore()
        let small = try Self.appendLines((1...5).map { Self.insertLine("e\($0)") }, to: store, in: directory)
        try #require(small.status == 0, "\(small)")
        var st = stat()
        try #require(stat(store + "/data.mdb", &st) == 0)
        let blocks = Int(st.st_size) / 1024  // `ulimit -f` counts 1024-byte blocks: no room to grow the file
        let big = Self.insertLine("big", name: String(repeating: "x", count: 256 * 1024))
        let full = try CLIProcess.run(["append", store, "--file", try write(big, in: directory)],
                                      shell: "trap '' XFSZ; ulimit -f \(blocks)", directory: directory)
        #expect(full.isCleanError, "\(full)")
        #expect(full.stderr.contains("cannot write the store") && full.stderr.contains("nothing appended"), "\(full)")
        let verify = try CLIProcess.run(["verify", store], directory: directory)
        #expect(verify.stdout == "ok: 5 transactions, 5 objects\n", "\(verify)")
        let again = try CLIProcess.run(["append", store, "--file", try write(big, in: directory)], directory: directory)
        #expect(again.stdout == "6\n", "\(again)")
    }

    func write(_ text: String, in directory: String) throws -> String {
        let file = directory + "/input-\(UUID().uuidString).jsonl"
        try (text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    // MARK: Input limits

    @Test func aLineOverTheLimitIsRefused() throws {
        let (directory, store) = try Self.newStore()
        let line = Self.insertLine("e1", name: String(repeating: "x", count: Limits.lineBytesMax))
        let result = try CLIProcess.run(["append", store, "--file", try write(line, in: directory)], directory: directory)
        #expect(!result.signaled && result.status == 1)
        #expect(result.stderr.hasPrefix("error: line 1: line is longer than \(Limits.lineBytesMax) bytes"), "\(result)")
        let verify = try CLIProcess.run(["verify", store], directory: directory)
        #expect(verify.stdout == "ok: 0 transactions, 0 objects\n", "\(verify)")
    }

    // MARK: Damaged and foreign files

    /// A log entry whose bytes no longer match its checksum: found in the file by its magic and seq and
    /// changed on disk, as a bad sector would.
    @Test func aDamagedEntryIsAnErrorForEveryCommandThatReadsIt() throws {
        let (directory, store) = try Self.newStore()
        let lines = (1...4).map { Self.insertLine("e\($0)") } + [#"{"update": "Employee", "id": "e2", "values": {"height": 190}}"#]
        try #require(try Self.appendLines(lines, to: store, in: directory).status == 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        let seq: UInt64 = 4
        // Every copy: LMDB copies pages on write, so free pages may hold older copies of the entry.
        let entries = Self.entryOffsets(in: data, seq: seq)
        try #require(!entries.isEmpty, "entry \(seq) not found in data.mdb")
        for entry in entries { data[entry + 40] ^= 0x20 }  // in the body: author or change
        try data.write(to: URL(fileURLWithPath: store + "/data.mdb"))

        let damaged = "corrupt log entry at seq \(seq): "
        for arguments in [["verify", store], ["log", store], ["log", store, "--from", "3", "--to", "4", "--json"],
                          ["get", store, "Employee", "e2", "--at", "3"], ["query", store, "--entity", "Employee", "--at", "3"],
                          ["diff", store, "--entity", "Employee", "--from", "0", "--to", "5", "--json"],
                          ["export", store], ["replay", store, "--into", directory + "/copy"]] {
            let result = try CLIProcess.run(arguments, directory: directory)
            #expect(result.isCleanError && result.stderr.contains(damaged), "\(arguments[0]): \(result)")
        }
        // Reads that do not need the entry still answer, and rightly. A read at position 2 folds forwards from the
        // empty store (2 entries before it, 3 after): it reads entries 1…2 only (tools/RELIABILITY.md).
        let early = try CLIProcess.run(["get", store, "Employee", "e2", "--at", "2", "--json"], directory: directory)
        #expect(early.status == 0 && early.stdout.contains("\"height\": 170"), "\(early)")
        let head = try CLIProcess.run(["get", store, "Employee", "e2", "--json"], directory: directory)
        #expect(head.stdout.contains("\"height\": 190"), "\(head)")
        let before = try CLIProcess.run(["log", store, "--to", "2"], directory: directory)
        #expect(before.status == 0, "\(before)")
    }

    /// Where copies of the log entry of `seq` start in an LMDB file: magic `VLTX`, then at offset 16 the seq
    /// (little-endian).
    static func entryOffsets(in data: Data, seq: UInt64) -> [Int] {
        let bytes = [UInt8](data)
        var found: [Int] = []
        var i = 0
        while i + 24 <= bytes.count {
            if bytes[i] == 0x56, bytes[i + 1] == 0x4C, bytes[i + 2] == 0x54, bytes[i + 3] == 0x58 {
                let s = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[i + 16 + $1]) << (8 * UInt64($1)) }
                if s == seq { found.append(i) }
            }
            i += 1
        }
        return found
    }

    @Test func filesThatAreNotStoresAreRefused() throws {
        let directory = try CLIProcess.scratch()
        try #require(CLIProcess.binaryExists)
        let junk = directory + "/junk", empty = directory + "/empty", file = directory + "/file"
        for d in [junk, empty] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: false) }
        try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: junk + "/data.mdb"))
        #expect(FileManager.default.createFile(atPath: empty + "/data.mdb", contents: Data()))
        try "not a store".write(toFile: file, atomically: true, encoding: .utf8)
        for (path, reason) in [(junk, "its data.mdb is not an LMDB file of this version"), (empty, "its data.mdb is empty"),
                               (file, "not a directory"), (directory + "/missing", "no such directory")] {
            for command in ["verify", "log", "stats"] {
                let result = try CLIProcess.run([command, path], directory: directory)
                #expect(result.isCleanError && result.stderr == "error: \(path) is not a ViewLog store: \(reason)\n",
                        "\(command) \(path): \(result)")
            }
        }
    }

    @Test func aStoreOfANewerFormatIsRefused() throws {
        let (directory, store) = try Self.newStore()
        do {
            let opened = try LogStore.open(at: store)
            try opened.environment.write { txn in
                try txn.put(opened.metaDB, key: MetaKey.format, value: bigEndianBytes(UInt64(LogStore.formatVersion + 1)))
            }
        }
        for arguments in [["verify", store], ["append", store, "insert", "Employee", "e1", "name=A"], ["log", store]] {
            let result = try CLIProcess.run(arguments, directory: directory)
            #expect(result.isCleanError, "\(result)")
            #expect(result.stderr == "error: \(store) has log format version \(LogStore.formatVersion + 1); this viewlog reads up to version \(LogStore.formatVersion)\n")
        }
    }

    // MARK: Permissions

    @Test func initMakesAPrivateStore() throws {
        let (_, store) = try Self.newStore()
        func mode(_ path: String) -> mode_t {
            var st = stat()
            #expect(stat(path, &st) == 0)
            return st.st_mode & 0o777
        }
        #expect(mode(store) == 0o700)
        #expect(mode(store + "/data.mdb") == 0o600)
        #expect(mode(store + "/lock.mdb") == 0o600)
    }
}
