import Foundation
import Testing
import TestSupport
@testable import ViewLogServer

/// `viewlog serve` as a process: its first line, its refusals, a token from a file.
@Suite struct ServeCommandTests {
    /// The port of a `listening on http://127.0.0.1:PORT` line.
    static func port(_ line: String) throws -> Int {
        let prefix = "listening on http://127.0.0.1:"
        try #require(line.hasPrefix(prefix), "first line: \(line)")
        return try #require(Int(line.dropFirst(prefix.count)))
    }

    @Test func printsWhereItListensFirstAndServesTheCLIsDocuments() async throws {
        let f = try Fixture()
        let serve = try BackgroundCLI(["serve", f.path])
        let port = try Self.port(try await offPool { try serve.lines(1) }[0])
        let expected = try CLI.json(["query", f.path, "tall"])
        let http = try await offPool { try RawHTTP(port: port) }
        try await offPool { try http.send("GET", "/v1/query?view=tall") }
        let (status, _) = try await offPool { try http.readHead() }
        #expect(status == 200)
        #expect(try await offPool { try http.readBody() } == expected)
        // SIGTERM: a graceful stop, exit 0.
        serve.process.terminate()
        #expect(try await offPool { serve.wait() } == 0)
    }

    @Test func appendsWithTheTokenOfItsFile() async throws {
        let f = try Fixture()
        let tokenFile = TestScratch.newPath("token")
        try "  s3cret  \n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let serve = try BackgroundCLI(["serve", f.path, "--listen", "127.0.0.1:0", "--allow-append", "--token-file", tokenFile])
        let port = try Self.port(try await offPool { try serve.lines(1) }[0])
        let http = try await offPool { try RawHTTP(port: port) }
        try await offPool {
            try http.send("POST", "/v1/append", headers: ["Authorization": "Bearer s3cret"],
                          body: #"{"delete": "Employee", "id": "e1"}"# + "\n")
        }
        let (status, _) = try await offPool { try http.readHead() }
        #expect(status == 200)
        #expect(try await offPool { try http.readBody() } == "{\"seqs\": [5]}\n")
        serve.process.terminate()
        _ = try await offPool { serve.wait() }
        #expect(try f.store.head == 5)
    }

    @Test(arguments: [
        (["--listen", "0.0.0.0:0"], "is not a loopback address"),
        // A name that starts like a loopback address is a name: it may resolve anywhere.
        (["--listen", "127.evil.example:0"], "--listen 127.evil.example:0 is not a loopback address"),
        (["--listen", "localhost.evil.example:0"], "is not a loopback address"),
        (["--allow-host", "http://shop.example"], "--allow-host http://shop.example: expected a host name"),
        (["--allow-origin", "shop.example"], "--allow-origin shop.example: expected SCHEME://HOST[:PORT]"),
        (["--allow-append"], "--allow-append needs --token-file"),
        (["--listen", "nowhere"], "--listen expects HOST:PORT"),
        (["--watch-buffer", "0"], "--watch-buffer must be"),
    ])
    func refusesToStart(arguments: [String], message: String) throws {
        let f = try Fixture()
        let r = try CLI.run(["serve", f.path] + arguments)
        #expect(r.status != 0)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("error: "))
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }
}
