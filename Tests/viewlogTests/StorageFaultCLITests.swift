import Foundation
import Testing
@_spi(Engine) @testable import ViewLog

#if canImport(Glibc)
import Glibc
#endif

/// Issue #13: storage faults seen through the `viewlog` binary and the store. Each test injects one fault
/// (a truncated file, a deleted lock file, a file size limit, a held writer lock, an over-long schema) and
/// checks that nothing acknowledged is lost, nothing wrong is served, and nothing crashes.
@Suite("Storage faults")
struct StorageFaultCLITests {
    /// A scratch directory with a store `s`, removed by `body`'s end, also when it fails.
    static func withStore(_ body: (_ directory: String, _ store: String) throws -> Void) throws {
        let (directory, store) = try ReliabilityCLITests.newStore()
        defer {
            chmod(store, 0o700)
            try? FileManager.default.removeItem(atPath: directory)
        }
        try body(directory, store)
    }

    static func append(_ count: Int, to store: String, in directory: String, from first: Int = 0) throws {
        let lines = (first..<(first + count)).map { ReliabilityCLITests.insertLine("e\($0)", name: String(repeating: "n\($0)-", count: 40)) }
        let result = try ReliabilityCLITests.appendLines(lines, to: store, in: directory)
        try #require(result.status == 0, "\(result)")
    }

    /// #13.3: a `data.mdb` cut short is refused on open by every command, with one `error:` line — no SIGBUS
    /// on reading, no append that succeeds onto the hole.
    @Test func truncatedDataFileIsRefused() throws {
        try Self.withStore { directory, store in
            try Self.append(300, to: store, in: directory)
            var st = stat()
            try #require(stat(store + "/data.mdb", &st) == 0)
            try #require(truncate(store + "/data.mdb", st.st_size / 2) == 0)
            for arguments in [["query", store, "--entity", "Employee"], ["verify", store], ["log", store],
                              ["append", store, "insert", "Employee", "late", "name=x"]] {
                let r = try CLIProcess.run(arguments, directory: directory)
                #expect(r.isCleanError, "\(arguments[0]): \(r)")
                #expect(r.stderr.contains("truncated"), "\(arguments[0]): \(r)")
            }
        }
    }

    /// #13.2: a process whose `lock.mdb` was deleted under it refuses to commit (another process could now
    /// hold the writer lock beside it and commit the same seqs); a process started afterwards works.
    @Test func deletedLockFileRefusesWrites() throws {
        try Self.withStore { directory, store in
            let open = try LogStore.open(at: store)
            try open.append([.insert(entity: "Employee", id: .string("a"), values: ["name": .string("a")])], author: "t")
            try #require(unlink(store + "/lock.mdb") == 0)
            #expect {
                try open.append([.insert(entity: "Employee", id: .string("b"), values: ["name": .string("b")])], author: "t")
            } throws: { error in
                "\(error)".contains("lock.mdb") && "\(error)".contains("refusing to write")
            }
            #expect(try open.head == 1)
            // A new process makes a new lock file and continues from the committed head.
            let r = try CLIProcess.run(["append", store, "insert", "Employee", "c", "name=c"], directory: directory)
            #expect(r.status == 0 && r.stdout == "2\n", "\(r)")
        }
    }

    /// #13.1: an import whose first seq no longer follows the head (another append won the race) fails
    /// with nothing committed — checked inside the write, not before it or after committing.
    @Test func importAfterARacingAppendCommitsNothing() throws {
        try Self.withStore { directory, store in
            let source = directory + "/src"
            let r0 = try CLIProcess.run(["init", source, "--schema", directory + "/schema.json"], directory: directory)
            try #require(r0.status == 0, "\(r0)")
            try Self.append(3, to: source, in: directory)
            let exported = try LogStore.open(at: source, options: StoreOptions(readOnly: true))
            var transactions: [Transaction] = []
            try exported.forEachTransaction { transactions.append($0) }
            let target = try LogStore.open(at: store)
            // The racing append lands between the import's look at the head and its write.
            try target.append([.insert(entity: "Employee", id: .string("racer"), values: ["name": .string("r")])], author: "t")
            #expect {
                try target.appendVerbatim(transactions)
            } throws: { error in
                "\(error)".contains("does not follow the store's head")
            }
            #expect(try target.head == 1)
            #expect(try target.verify().isOK)
        }
    }

    /// #13.5: `init` under a file size limit fails cleanly and leaves nothing at the path (it is built in a
    /// temporary sibling and renamed into place), so it can be run again.
    @Test(.disabled(if: CLIProcess.isThreadSanitized, "ThreadSanitizer's runtime dies under `ulimit -f` (SIGBUS)"))
    func initOnAFullDiskLeavesNothing() throws {
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReliabilityCLITests.schema.write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let store = directory + "/s"
        let r = try CLIProcess.run(["init", store, "--schema", directory + "/schema.json"],
                                   shell: "trap '' XFSZ; ulimit -f 4", directory: directory)
        #expect(r.isCleanError, "\(r)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "schema.json" }
        #expect(left.isEmpty, "left behind: \(left)")
        let again = try CLIProcess.run(["init", store, "--schema", directory + "/schema.json"], directory: directory)
        #expect(again.status == 0, "\(again)")
    }

    /// #13.5: init on a 64 KiB tmpfs (root only: it mounts one) fails cleanly and leaves nothing behind.
    @Test func initOnASmallTmpfsLeavesNothing() throws {
        guard getuid() == 0 else {
            print("skipped initOnASmallTmpfsLeavesNothing: mounting a tmpfs needs root (CI runs it)")
            return
        }
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReliabilityCLITests.schema.write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let mountPoint = directory + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = mount("tmpfs", mountPoint, "tmpfs", 0, "size=12k") == 0
        guard mounted else {
            print("skipped initOnASmallTmpfsLeavesNothing: mount failed (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount(mountPoint) }
        let r = try CLIProcess.run(["init", mountPoint + "/s", "--schema", directory + "/schema.json"], directory: directory)
        #expect(!r.signaled && r.status != 0, "\(r)")
        #expect(r.stderr.hasPrefix("error: "), "\(r)")
        let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// #13.5: one schema size limit for `init` and `schema --update`, checked at the input with an `error:`.
    @Test func overlongSchemaIsRefusedByInitAndUpdate() throws {
        try Self.withStore { directory, store in
            let big = String(repeating: "x", count: Limits.schemaBytesMax)
            let schema = ReliabilityCLITests.schema.replacingOccurrences(
                of: #""sectionName": {"type": "string", "default": ""}"#,
                with: #""sectionName": {"type": "string", "default": ""}, "note": {"type": "string", "default": "\#(big)"}"#)
            try schema.write(toFile: directory + "/big.json", atomically: true, encoding: .utf8)
            let initResult = try CLIProcess.run(["init", directory + "/big", "--schema", directory + "/big.json"], directory: directory)
            #expect(initResult.isCleanError, "\(initResult)")
            #expect(initResult.stderr.contains("more than the limit of \(Limits.schemaBytesMax)"), "\(initResult)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/big"))
            let update = try CLIProcess.run(["schema", store, "--update", directory + "/big.json"], directory: directory)
            #expect(update.isCleanError, "\(update)")
            #expect(update.stderr.contains("more than the limit of \(Limits.schemaBytesMax)"), "\(update)")
            #expect(try LogStore.open(at: store).head == 0)
        }
    }

    /// #13.6: reading commands take no writer lock: a query finishes while another process holds it, and a
    /// store whose files and directory are read-only can be queried.
    @Test func readsNeedNoWriteAccess() throws {
        try Self.withStore { directory, store in
            try Self.append(5, to: store, in: directory)
            let holder = try LogStore.open(at: store)
            let query: CLIProcess.Result = try holder.perform { _ in
                // This process holds the writer lock for the whole query.
                let (process, out, err) = try CLIProcess.start(["query", store, "--entity", "Employee", "--json"], directory: directory)
                var waited = 0
                while process.isRunning && waited < 600 {  // a bound, not a timing assertion: 60 s
                    usleep(100_000)
                    waited += 1
                }
                if process.isRunning { process.terminate(); process.waitUntilExit() }
                return CLIProcess.result(process, out, err)
            }
            #expect(query.status == 0, "a query waited for the writer lock: \(query)")
            #expect(query.stdout.contains("\"e4\""), "\(query)")

            try #require(chmod(store + "/data.mdb", 0o444) == 0 && chmod(store, 0o555) == 0)
            for arguments in [["query", store, "--entity", "Employee"], ["verify", store], ["log", store], ["stats", store]] {
                let r = try CLIProcess.run(arguments, directory: directory)
                #expect(r.status == 0, "\(arguments[0]) of a read-only store: \(r)")
            }
        }
    }
}
