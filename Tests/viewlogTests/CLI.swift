import Foundation
import Testing
import TestSupport

/// Runs the built `viewlog` executable as a subprocess, in a fresh temporary directory per test.
///
/// Which binary: `VIEWLOG_BIN` when set; else `viewlog` beside the running test bundle (the products directory
/// of the configuration `swift test` built, e.g. `.build/x86_64-unknown-linux-gnu/debug/`); else
/// `<package>/.build/debug/viewlog`. A test target cannot depend on an executable target in SwiftPM on Linux, so
/// `swift test` is not guaranteed to build it: when it is missing, the harness runs
/// `swift build --product viewlog` once (in the same configuration) before the first test uses it.
enum CLI {
    /// The package root: three levels above this file (`Tests/viewlogTests/CLI.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary, found or built once per test process (a `static let` is initialised exactly once, also when
    /// tests run in parallel).
    static let binary: Result<String, CLIHarnessError> = locateOrBuild()

    /// The path of the binary, or a thrown error that says how to get one.
    static func binaryPath() throws -> String { try binary.get() }

    private static func locateOrBuild() -> Result<String, CLIHarnessError> {
        let fm = FileManager.default
        if let path = ProcessInfo.processInfo.environment["VIEWLOG_BIN"], !path.isEmpty {
            return fm.isExecutableFile(atPath: path) ? .success(path) : .failure(CLIHarnessError("VIEWLOG_BIN=\(path) is not an executable"))
        }
        // The products directory of the running tests: on Linux the test executable is
        // `<products>/ViewLogPackageTests.xctest`.
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var dir = exe.deletingLastPathComponent()
            // On Darwin the executable is `<products>/X.xctest/Contents/MacOS/X`.
            while dir.path != "/", dir.pathComponents.contains(where: { $0.hasSuffix(".xctest") }) {
                dir = dir.deletingLastPathComponent()
            }
            candidates.append(dir.appendingPathComponent("viewlog"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/viewlog"))
        if let found = candidates.first(where: { fm.isExecutableFile(atPath: $0.path) }) { return .success(found.path) }

        // Not built: build it once, in the configuration of the running tests.
        let configuration = candidates.first.map { $0.deletingLastPathComponent().lastPathComponent == "release" ? "release" : "debug" } ?? "debug"
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_FOR_TESTS"] ?? "/usr/bin/env"
        let arguments = (swift == "/usr/bin/env" ? ["swift"] : []) + ["build", "--product", "viewlog", "-c", configuration]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swift)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(CLIHarnessError("cannot run swift build: \(error)")) }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(CLIHarnessError("`swift build --product viewlog -c \(configuration)` failed (\(process.terminationStatus)); build it, or set VIEWLOG_BIN"))
        }
        if let found = candidates.first(where: { fm.isExecutableFile(atPath: $0.path) }) { return .success(found.path) }
        return .failure(CLIHarnessError("built viewlog, but found it at none of \(candidates.map(\.path))"))
    }
}

/// A failure of the harness itself (no binary, a process that does not stop).
struct CLIHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What one run printed and how it ended.
struct RunResult {
    var arguments: [String]
    var input: String?
    var stdout: String
    var stderr: String
    var status: Int32

    /// Standard output with commit times replaced by `<time>` (see ``Normalise``).
    var out: String { Normalise.times(stdout) }
    /// The lines of standard error.
    var errorLines: [Substring] {
        guard !stderr.isEmpty else { return [] }
        return Array(stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stderr.hasSuffix("\n") ? 1 : 0))
    }
}

/// Transaction times are the only thing in the output that differs between runs; the CLI has no test hooks,
/// so the harness replaces them: `"time": "2026-…Z"` in JSON and the time of `seq N  <time>  author` lines of
/// `log`. Dates that are attribute values stay as they are.
enum Normalise {
    nonisolated(unsafe) static let jsonTime = try! Regex(#""time": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z""#)
    nonisolated(unsafe) static let logLine = try! Regex(#"(?m)^seq (\d+)  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  "#)

    static func times(_ text: String) -> String {
        text.replacing(jsonTime, with: #""time": "<time>""#)
            .replacing(logLine) { m in "seq \(m.output[1].substring ?? "?")  <time>  " }
    }
}

/// A fresh temporary directory, the working directory of every run of a test, so store paths in the output are
/// the short relative names the test gives. Removed when the test ends.
final class Sandbox: Sendable {
    let url: URL
    var path: String { url.path }

    /// A new sandbox; one made as a `template` (kept for the whole test run in a `static let`) is removed when
    /// the test process exits.
    init(template: Bool = false) throws {
        var base = URL(fileURLWithPath: TestScratch.root, isDirectory: true)
        if template {
            _ = Sandbox.removeTemplatesAtExit
            base = URL(fileURLWithPath: Sandbox.templatesPath(), isDirectory: true)
        }
        url = base.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    static func templatesPath() -> String {
        TestScratch.root + "/templates"
    }

    private static let removeTemplatesAtExit: Void = {
        atexit { try? FileManager.default.removeItem(atPath: Sandbox.templatesPath()) }
    }()

    /// A path inside the sandbox.
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` inside the sandbox and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Copies every file and directory of `other` into this sandbox (e.g. a store built once as a template).
    func copyContents(of other: Sandbox) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: other.path) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: other.file(name), toPath: file(name))
        }
    }

    /// Copies an example schema (`schema/NAME`) into the sandbox under the same name.
    func exampleSchema(_ name: String) throws {
        let source = CLI.packageRoot.appendingPathComponent("schema").appendingPathComponent(name)
        try FileManager.default.copyItem(at: source, to: url.appendingPathComponent(name))
    }

    /// Runs `viewlog ARGUMENTS` in the sandbox with `input` on standard input (empty when nil) and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil) throws -> RunResult {
        let process = try start(arguments, input: input)
        return try process.wait()
    }

    /// `run` with the arguments split on spaces (no quoting: use ``run(_:input:)`` for arguments with spaces).
    @discardableResult
    func run(_ commandLine: String, input: String? = nil) throws -> RunResult {
        try run(commandLine.split(separator: " ").map(String.init), input: input)
    }

    /// Starts `viewlog ARGUMENTS` without waiting; standard output and error go to files that can be read while
    /// it runs (for `watch`). `environment` adds variables to the child's environment.
    func start(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> RunningCLI {
        let id = UUID().uuidString
        let inPath = file(".in-\(id)"), outPath = file(".out-\(id)"), errPath = file(".err-\(id)")
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inPath))
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.binaryPath())
        process.arguments = arguments
        process.currentDirectoryURL = url
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "80"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        return RunningCLI(process: process, arguments: arguments, input: input, outPath: outPath, errPath: errPath)
    }
}

/// A `viewlog` process that was started and may still run.
struct RunningCLI {
    let process: Process
    let arguments: [String]
    let input: String?
    let outPath: String
    let errPath: String

    /// What it printed on standard output so far.
    var stdoutSoFar: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }

    /// Waits until standard output has at least `count` complete lines; throws after `timeout` seconds or when
    /// the process ends first.
    func waitForLines(_ count: Int, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = stdoutSoFar
            if text.reduce(0, { $0 + ($1 == "\n" ? 1 : 0) }) >= count { return }
            if !process.isRunning {
                throw CLIHarnessError("viewlog \(arguments.joined(separator: " ")) ended before printing \(count) lines: \(text)")
            }
            if Date() > deadline {
                process.terminate()
                throw CLIHarnessError("viewlog \(arguments.joined(separator: " ")) printed no \(count) lines in \(timeout) s: \(text)")
            }
            usleep(5_000)
        }
    }

    /// Waits for the process to end (terminating it after `timeout` seconds) and returns what it printed.
    func wait(timeout: Double = 60) throws -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                throw CLIHarnessError("viewlog \(arguments.joined(separator: " ")) did not end within \(timeout) s")
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let out = try String(contentsOfFile: outPath, encoding: .utf8)
        let err = try String(contentsOfFile: errPath, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
        return RunResult(arguments: arguments, input: input, stdout: out, stderr: err, status: process.terminationStatus)
    }
}
