import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// `POST /v1/query` and `POST /v1/diff` (DESIGN §14, what-if): the body is append input applied in thought only; each
/// answer is the document `query --with FILE` / `diff --with FILE` prints, byte for byte; nothing is appended, no token
/// is needed on a read-only server, and a bad body is the JSON error naming its line.
@Suite struct WhatIfEndpointTests {
    static let plan = """
        {"update": "Employee", "where": "height > 170", "values": {"height": 150}}
        {"insert": "Employee", "id": "e9", "values": {"name": "Zed", "height": 199, "sectionName": "Z"}}

        """

    @Test(arguments: [
        ("/v1/query?view=tall", ["query", "tall"]),
        ("/v1/query?entity=Employee&sort=height&at=2", ["query", "--entity", "Employee", "--sort", "height", "--at", "2"]),
        ("/v1/diff?view=tall&from=1", ["diff", "tall", "--from", "1"]),
        ("/v1/diff?view=tall&from=4&at=3&seq=true", ["diff", "tall", "--from", "4", "--at", "3", "--seq"]),
    ])
    func aPostIsTheWhatIfDocumentOfTheCLI(uri: String, cli: [String]) async throws {
        let f = try Fixture()
        let file = f.path + "-plan.jsonl"
        try Self.plan.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let expected = try CLI.json([cli[0], f.path] + Array(cli.dropFirst()) + ["--with", file])
        let log = try CLI.json(["log", f.path])
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: uri, method: .post, body: ByteBuffer(string: Self.plan))
            #expect(r.status == .ok)
            #expect(r.text == expected)
        }
        #expect(try CLI.json(["log", f.path]) == log, "a what-if appended")
    }

    @Test func aBadBodyIsTheJSONErrorNamingItsLine() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/query?view=tall", method: .post,
                                             body: ByteBuffer(string: #"{"update": "Employee", "id": "nobody", "values": {"height": 1}}"# + "\n"))
            #expect(r.status == .badRequest)
            #expect(r.text.contains("\"code\": \"store.invalid-staged-change\"") && r.text.contains("line 1"), "\(r.text)")
            let method = try await client.execute(uri: "/v1/views", method: .post, body: ByteBuffer(string: "{}"))
            #expect(method.status == .methodNotAllowed)
            let both = try await client.execute(uri: "/v1/query", method: .delete)
            #expect(both.status == .methodNotAllowed && both.headers[.allow] == "GET, POST")
        }
    }
}
