import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `viewlog` binary in child processes, for tests that need several processes or a process
/// with its own resource limits.
///
/// The binary is `$VIEWLOG_BIN` when set, else `viewlog` beside this test executable (SwiftPM puts every
/// product of a build in one directory, e.g. `.build/debug/`, `.build-asan/debug/`), so the tests use the
/// binary of the same build — sanitizers included. `swift test` builds it with the tests.
enum CLIProcess {
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["VIEWLOG_BIN"], !path.isEmpty { return path }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("viewlog").path
    }()

    /// Whether this build runs under ThreadSanitizer (its runtime is linked in: `__tsan_init` resolves). Its
    /// runtime cannot even start under a small file size limit (`ulimit -f`): it dies with SIGBUS.
    static let isThreadSanitized: Bool = dlsym(nil, "__tsan_init") != nil

    /// Whether the binary exists (a test `#require`s it, naming the path).
    static var binaryExists: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    struct Result: CustomStringConvertible {
        var status: Int32
        /// Killed by a signal (a crash) rather than exiting.
        var signaled: Bool
        var stdout: String
        var stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var description: String { "status \(status)\(signaled ? " (signal)" : ""), stdout: \(stdout.prefix(500)), stderr: \(stderr.prefix(500))" }
        /// Exited 1 with exactly one `error: …` line on stderr (DESIGN §7), not a crash.
        var isCleanError: Bool {
            !signaled && status == 1 && stderr.hasPrefix("error: ") && stderr.split(separator: "\n").count == 1
        }
    }

    /// A scratch directory for one test.
    static func scratch() throws -> String {
        try TestScratch.newDirectory("cli")
    }

    /// Starts `viewlog arguments…` with stdin from `stdinFile` (or nothing) and output to files in `directory`.
    /// `shell` (e.g. `ulimit -f 64`) runs first in a `/bin/sh` that then execs viewlog.
    static func start(_ arguments: [String], stdinFile: String? = nil, shell: String? = nil,
                      directory: String) throws -> (Process, stdout: String, stderr: String) {
        let process = Process()
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell + "; exec \"$0\" \"$@\"", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        let tag = UUID().uuidString
        let out = directory + "/out-\(tag)", err = directory + "/err-\(tag)"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        process.standardInput = stdinFile.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs `viewlog arguments…` to the end.
    static func run(_ arguments: [String], stdinFile: String? = nil, shell: String? = nil,
                    directory: String) throws -> Result {
        let (process, out, err) = try start(arguments, stdinFile: stdinFile, shell: shell, directory: directory)
        process.waitUntilExit()
        return result(process, out, err)
    }

    static func result(_ process: Process, _ out: String, _ err: String) -> Result {
        let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: err)
        return Result(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                      stdout: stdout, stderr: stderr)
    }

    /// The JSON document of one output line.
    static func json(_ line: some StringProtocol) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// The row ids of a one-section `query --json` document.
    static func rowIDs(_ document: [String: Any]) -> [String] {
        let sections = document["sections"] as? [[String: Any]] ?? []
        return sections.flatMap { ($0["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
    }

    /// Applies a one-section `diff --json` document to `rows` (ids in view order), as UITableView would:
    /// deletes and moves' sources by `from` (before), then inserts and moves' targets by `to` (after).
    static func apply(_ diff: [String: Any], to rows: inout [String]) -> Bool {
        let changes = diff["rows"] as? [[String: Any]] ?? []
        var removals: [Int] = [], insertions: [(Int, String)] = []
        for c in changes {
            guard let type = c["type"] as? String, let id = c["id"] as? String else { return false }
            let from = (c["from"] as? [Int])?.last, to = (c["to"] as? [Int])?.last
            switch type {
            case "delete": if let from { removals.append(from) } else { return false }
            case "insert": if let to { insertions.append((to, id)) } else { return false }
            case "move":
                guard let from, let to else { return false }
                removals.append(from)
                insertions.append((to, id))
            default: break  // updates do not change the ids
            }
        }
        for i in removals.sorted(by: >) {
            guard i < rows.count else { return false }
            rows.remove(at: i)
        }
        for (i, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
            guard i <= rows.count else { return false }
            rows.insert(id, at: i)
        }
        return true
    }
}
