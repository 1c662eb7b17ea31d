import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// `POST /v1/append`: only with `--allow-append` and the bearer token; all lines in one write or none; errors as
/// the CLI's `append` says them.
@Suite struct AppendTests {
    static let token = "t0ken-\(UInt64.random(in: 0...UInt64.max))"
    static let auth: HTTPFields = [.authorization: "Bearer \(token)"]

    func appending(_ f: Fixture) -> ViewLogServer {
        f.server { $0.allowAppend = true; $0.token = Self.token }
    }

    @Test func appendsAllLinesAndAnswersTheirSeqs() async throws {
        let f = try Fixture()
        let input = """
        {"insert": "Employee", "id": "e4", "values": {"name": "Dee", "height": 175}}
        {"author": "sync", "changes": [{"update": "Employee", "id": "e4", "values": {"height": 176}}]}

        """
        try await Fixture.app(appending(f)).test(.router) { client in
            let r = try await client.execute(uri: "/v1/append", method: .post, headers: Self.auth, body: ByteBuffer(string: input))
            #expect(r.status == .ok)
            #expect(r.text == "{\"seqs\": [5, 6]}\n")
            let named = try await client.execute(uri: "/v1/append?author=robot", method: .post, headers: Self.auth,
                                                 body: ByteBuffer(string: #"{"delete": "Employee", "id": "e4"}"#))
            #expect(named.text == "{\"seqs\": [7]}\n")
        }
        let authors = try f.store.transactions(after: 4).map(\.author)
        #expect(authors == ["serve", "sync", "robot"])
    }

    @Test func withoutTheTokenIs401AndAWrongOneIs403() async throws {
        let f = try Fixture()
        let body = ByteBuffer(string: #"{"delete": "Employee", "id": "e1"}"#)
        try await Fixture.app(appending(f)).test(.router) { client in
            let none = try await client.execute(uri: "/v1/append", method: .post, body: body)
            #expect(none.status == .unauthorized)
            #expect(none.error?.code == "serve.unauthorized")
            let wrong = try await client.execute(uri: "/v1/append", method: .post, headers: [.authorization: "Bearer \(Self.token)x"], body: body)
            #expect(wrong.status == .forbidden)
            #expect(wrong.error?.code == "serve.forbidden")
            // Reads of a loopback server need no token.
            let read = try await client.execute(uri: "/v1/stats", method: .get)
            #expect(read.status == .ok)
        }
        #expect(try f.store.head == 4)
    }

    /// Bad input: a 400 whose message is the CLI's for the same input, and nothing appended.
    @Test(arguments: [
        "{\"insert\": \"Employee\", \"id\": \"e5\", \"values\": {\"name\": \"Eve\"}}\n{\"insert\": \"Employee\", \"id\": \"e5\", \"values\": {\"name\": \"Eve\"}}\n",
        "{\"insert\": \"Employee\", \"id\": \"e5\", \"values\": {\"name\": \"Eve\"}}\n{\"insert\": \"Nope\", \"id\": \"x\"}\n",
        "{\"insert\": \"Employee\", \"id\": \"e5\", \"values\": {\"name\": \"Eve\"}}\nnot json\n",
        "{\"update\": \"Employee\", \"id\": \"e9\", \"values\": {\"height\": 1}}\n",
        "{\"insert\": \"Employee\", \"id\": 5, \"values\": {\"name\": \"Eve\"}}\n",
        "{\"insert\": \"Employee\", \"id\": \"e5\", \"values\": {\"name\": \"Eve\", \"height\": 1.5}}\n",
        "{\"author\": \"x\", \"changes\": []}\n",
        "",
    ])
    func badInputAppendsNothing(input: String) async throws {
        let f = try Fixture()
        let cli = try CLI.run(["append", f.path], input: input)
        #expect(cli.status == 1)
        let message = String(cli.stderr.dropFirst("error: ".count).dropLast())
        try await Fixture.app(appending(f)).test(.router) { client in
            let r = try await client.execute(uri: "/v1/append", method: .post, headers: Self.auth, body: ByteBuffer(string: input))
            #expect(r.status == .badRequest)
            #expect(r.error?.message == message)
            #expect(r.error?.message.hasSuffix("; nothing appended") == true)
        }
        #expect(try f.store.head == 4)
    }

    @Test func aBodyNotUTF8Is400() async throws {
        let f = try Fixture()
        try await Fixture.app(appending(f)).test(.router) { client in
            let r = try await client.execute(uri: "/v1/append", method: .post, headers: Self.auth, body: ByteBuffer(bytes: [0xFF, 0xFE, 0x0A]))
            #expect(r.status == .badRequest)
            #expect(r.error?.code == "input.malformed-json")
        }
        #expect(try f.store.head == 4)
    }

    @Test func aBodyOverItsBoundIs413() async throws {
        let f = try Fixture()
        let line = #"{"insert": "Employee", "id": "big", "values": {"name": ""# + String(repeating: "x", count: ServerLimits.requestBodyBytesMax) + "\"}}\n"
        try await Fixture.app(appending(f)).test(.router) { client in
            let r = try await client.execute(uri: "/v1/append", method: .post, headers: Self.auth, body: ByteBuffer(string: line))
            #expect(r.status == .contentTooLarge)
            #expect(r.error?.code == "serve.too-large")
        }
        #expect(try f.store.head == 4)
    }

    @Test func unknownParametersAppendNothing() async throws {
        let f = try Fixture()
        try await Fixture.app(appending(f)).test(.router) { client in
            let r = try await client.execute(uri: "/v1/append?chunked=true", method: .post, headers: Self.auth,
                                             body: ByteBuffer(string: #"{"delete": "Employee", "id": "e1"}"#))
            #expect(r.status == .badRequest)
            #expect(r.error?.code == "request.invalid-parameter")
        }
        #expect(try f.store.head == 4)
    }
}
