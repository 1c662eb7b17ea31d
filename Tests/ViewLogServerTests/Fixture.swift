import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@_spi(Engine) import ViewLog
import ViewLogDocuments
@testable import ViewLogServer

/// A store of `schema/employees.json` under the test process's scratch directory, and a server of it.
struct Fixture {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Four transactions that make, move, update and remove rows of the `tall` view.
    static let employees = """
    {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180, "sectionName": "A"}}
    {"insert": "Employee", "id": "e2", "values": {"name": "Bob", "height": 190, "sectionName": "B", "salary": 10.5}}
    {"author": "hr", "changes": [{"update": "Employee", "id": "e1", "values": {"sectionName": "B"}}, {"insert": "Employee", "id": "e3", "values": {"name": "Cy", "height": 150}}]}
    {"update": "Employee", "id": "e2", "values": {"height": 160}}
    """

    let path: String
    let store: LogStore

    init(schema: String = "employees.json", input: String = Fixture.employees) throws {
        path = TestScratch.newPath("serve")
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent("schema/\(schema)"), encoding: .utf8)
        store = try LogStore.create(at: path, schema: try Schema(jsonText: text))
        if !input.isEmpty { _ = try AppendInOneWrite.append(store, text: input, author: "cli") }
    }

    func server(_ configure: (inout ViewLogServer.Options) -> Void = { _ in }) -> ViewLogServer {
        var options = ViewLogServer.Options()
        configure(&options)
        return ViewLogServer(store: store, options: options)
    }

    /// The application of `server` for HummingbirdTesting (a free port when live).
    static func app(_ server: ViewLogServer) -> some ApplicationProtocol {
        server.application(host: "127.0.0.1", port: 0)
    }
}

/// The built `viewlog` binary, run as another process (the server's documents are compared with its `--json`
/// output; its appends are another process's).
enum CLI {
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["VIEWLOG_BIN"], !path.isEmpty { return path }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("viewlog").path
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `viewlog arguments…` to its end.
    static func run(_ arguments: [String], input: String? = nil) throws -> Result {
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no viewlog binary at \(binary): swift build first, or set VIEWLOG_BIN")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        // Output to files: a pipe that fills up would stop the child.
        let base = TestScratch.newPath("cli")
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let stdin = Pipe()
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }

    /// The `--json` output of `viewlog arguments…`, which must succeed.
    static func json(_ arguments: [String]) throws -> String {
        let r = try run(arguments + ["--json"])
        try #require(r.status == 0, "viewlog \(arguments.joined(separator: " ")) failed: \(r.stderr)")
        return r.stdout
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The `{"error": {"code", "message"}}` body's code and message.
    var error: (code: String, message: String)? {
        guard case .object(let members)? = try? JSONValue.parse(text), members.count == 1, members[0].0 == "error",
              case .object(let fields) = members[0].1,
              case .string(let code)? = fields.first(where: { $0.0 == "code" })?.1,
              case .string(let message)? = fields.first(where: { $0.0 == "message" })?.1 else { return nil }
        return (code, message)
    }
}

/// A `viewlog` process that runs while a test talks to it (`watch`, `serve`), its output in files; killed and
/// its files removed when the test is done with it, however the test ends.
final class BackgroundCLI: @unchecked Sendable {  // one test uses it at a time; Process is thread-safe
    let process = Process()
    private let base = TestScratch.newPath("bg")

    init(_ arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "no viewlog binary at \(CLI.binary)")
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: base + ".out")
        try? FileManager.default.removeItem(atPath: base + ".err")
    }

    var stdout: String { (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "" }

    /// The first `n` whole lines of standard output, once there are that many; fails when the process ends first
    /// or after a generous timeout (a test never waits forever).
    func lines(_ n: Int) throws -> [String] {
        for _ in 0..<6000 {  // at most about 60 s
            let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if lines.count >= n { return Array(lines.prefix(n)) }
            if !process.isRunning {
                let again = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
                if again.count >= n { return Array(again.prefix(n)) }
                throw RawHTTP.Failure(description: "viewlog exited (\(process.terminationStatus)) after \(again.count) of \(n) lines: \(stderr)")
            }
            usleep(10_000)
        }
        throw RawHTTP.Failure(description: "no \(n) lines from viewlog: \(stdout) \(stderr)")
    }

    /// Waits at most about `seconds` for the process to end: its status, or nil when it is still running.
    func waitExit(seconds: Int) -> Int32? {
        for _ in 0..<(seconds * 100) where process.isRunning { usleep(10_000) }  // bounded by `seconds`
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Waits for the process to end: its status.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Runs blocking work (a socket read, a child process, a poll) on a thread of its own, not on the cooperative
/// pool: the server under test runs its handlers on that pool, and a test blocking it could starve them.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
