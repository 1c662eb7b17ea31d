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

/// Storage faults seen through the `viewlog` binary and the store. Each test injects one fault
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

    /// A `data.mdb` cut short is refused on open by every command, with one `error:` line — no SIGBUS
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

    /// A process whose `lock.mdb` was deleted under it refuses to commit (another process could now
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

    /// An import whose first seq no longer follows the head (another append won the race) fails
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

    /// `init` under a file size limit fails cleanly and leaves nothing at the path (it is built in a
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

    /// `init` on a 64 KiB tmpfs (root only: it mounts one) fails cleanly and leaves nothing behind.
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

    /// `init` on a tmpfs that appends filled to the last block. LMDB sizes `lock.mdb` with `ftruncate` and writes
    /// it through a shared map, a write that raises SIGBUS (rc -7) inside `mdb_env_open` when no block is left: one
    /// `error:` line, exit 1, nothing left behind (root only: it mounts a 2 MB tmpfs).
    @Test func initOnAFullTmpfsEndsWithOneError() throws {
        guard getuid() == 0 else {
            print("skipped initOnAFullTmpfsEndsWithOneError: mounting a tmpfs needs root (CI runs it)")
            return
        }
        let directory = try CLIProcess.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReliabilityCLITests.schema.write(toFile: directory + "/schema.json", atomically: true, encoding: .utf8)
        let mountPoint = directory + "/full"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=2m") == 0 else {
            print("skipped initOnAFullTmpfsEndsWithOneError: mount failed (\(String(cString: strerror(errno))))")
            return
        }
        defer { umount(mountPoint) }
        // Fill it: write until the file system refuses a byte.
        let fd = open(mountPoint + "/fill", O_WRONLY | O_CREAT, 0o600)
        try #require(fd >= 0)
        let block = [UInt8](repeating: 0, count: 4_096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        let one: [UInt8] = [0]
        while one.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) > 0 {}
        close(fd)
        let r = try CLIProcess.run(["init", mountPoint + "/s", "--schema", directory + "/schema.json"], directory: directory)
        #expect(r.isCleanError, "\(r)")
        #expect(r.stderr.contains("No space left on device"), "\(r)")
        let left = try FileManager.default.contentsOfDirectory(atPath: mountPoint).filter { $0 != "fill" }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// A `watch` whose address space cannot hold the map another process grew (its RLIMIT_AS set, with prlimit,
    /// to 32 MiB above its size once it runs) neither dies of SIGSEGV inside liblmdb (after the failed remap, LMDB's
    /// meta pointers point into the unmapped map) nor watches in silence: one `error:` line naming the address
    /// space, exit 1.
    @Test(.disabled(if: CLIProcess.isThreadSanitized, "ThreadSanitizer's runtime reserves address space"))
    func aWatcherThatCannotMapTheGrownFileEndsWithOneError() throws {
        try Self.withStore { directory, store in
            let (watch, out, err) = try CLIProcess.start(["watch", store, "--entity", "Employee", "--json"], directory: directory)
            defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }
            for _ in 0..<2_000 where ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").isEmpty && watch.isRunning {
                usleep(5_000)  // until the watcher printed its view (a bounded wait, not a timing assertion)
            }
            let status = try String(contentsOfFile: "/proc/\(watch.processIdentifier)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmSize:") })
            let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
            var limit = rlimit(rlim_cur: rlim_t((kilobytes + 32 * 1_024) * 1_024), rlim_max: rlim_t((kilobytes + 32 * 1_024) * 1_024))
            // glibc's prlimit(2) wrapper (Swift's Glibc module does not import it).
            typealias Prlimit = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
            let prlimit = unsafeBitCast(try #require(dlsym(nil, "prlimit")), to: Prlimit.self)
            try #require(prlimit(watch.processIdentifier, Int32(RLIMIT_AS.rawValue), &limit, nil) == 0)
            // Grow the store past 128 MiB from this process (the watcher maps 64 MiB).
            let name = String(repeating: "x", count: 100_000)
            do {
                let grower = try LogStore.open(at: store)
                for t in 0..<14 {
                    try grower.append([TransactionRequest(author: "grow", changes: (0..<100).map { i in
                        .insert(entity: "Employee", id: .string("g\(t)-\(i)"), values: ["name": .string(name)])
                    })])
                }
            }
            for _ in 0..<6_000 where watch.isRunning { usleep(10_000) }  // bounded: the watcher must end by itself
            #expect(!watch.isRunning, "the watcher went on")
            if watch.isRunning { return }
            let r = CLIProcess.result(watch, out, err)
            #expect(r.isCleanError, "\(r)")
            #expect(r.stderr.contains("address space"), "\(r)")
        }
    }

    /// One schema size limit for `init` and `schema --update`, checked at the input with an `error:`.
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

    /// Reading commands take no writer lock: a query finishes while another process holds it, and a
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
