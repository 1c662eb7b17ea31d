import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@_spi(Engine) import ViewLog
import ViewLogDocuments
@testable import ViewLogServer

/// DESIGN §12, "Under load and attack": every bound answers, with the JSON error and no internal type name — 413 for
/// a body (chunked too), 431 for headers, 414 for a URL, 503 with `Retry-After` past the expensive reads — a request
/// that does not arrive is closed, and SIGTERM ends the server whatever its clients do.
@Suite struct LimitTests {
    /// The status, headers and body of the answer to what `send` sends on a new connection to `port`.
    static func exchange(_ port: Int, _ send: @escaping @Sendable (RawHTTP) throws -> Void) async throws
        -> (status: Int, headers: [String: String], body: String) {
        try await offPool {
            let http = try RawHTTP(port: port)
            // The request is sent on a thread of its own: the server may answer (and close) before it has all of it.
            let sender = Thread { try? send(http) }
            sender.start()
            let (status, headers) = try http.readHead()
            return (status, headers, try http.readBody())
        }
    }

    static func error(_ body: String) -> (code: String, message: String)? {
        guard case .object(let members)? = try? JSONValue.parse(body), members.count == 1, case .object(let fields) = members[0].1,
              case .string(let code)? = fields.first(where: { $0.0 == "code" })?.1,
              case .string(let message)? = fields.first(where: { $0.0 == "message" })?.1 else { return nil }
        return (code, message)
    }

    /// No type of SwiftNIO, Hummingbird or Swift in what a client is told.
    static func namesNoInternalType(_ text: String) -> Bool {
        !["NIO", "Error(", "Hummingbird", "HTTPParser", "Swift."].contains { text.contains($0) }
    }

    @Test func aChunkedBodyOverTheBoundIs413AndNothingIsAppended() async throws {
        let f = try Fixture()
        let head = try f.store.head
        try await Fixture.app(f.server { $0.allowAppend = true; $0.token = "t" }).test(.live) { client in
            let port = try #require(client.port)
            let r = try await Self.exchange(port) { http in
                try http.sendRaw(Array("POST /v1/append HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
                // 17 chunks of 1 MiB: one line of input, longer than any the store takes.
                let chunk = Array("100000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20) + Array("\r\n".utf8)
                for _ in 0..<17 { try http.sendRaw(chunk) }
                try http.sendRaw(Array("0\r\n\r\n".utf8))
            }
            #expect(r.status == 413)
            #expect(r.headers["content-type"] == "application/json")
            let e = try #require(Self.error(r.body), "\(r.body)")
            #expect(e.code == "serve.too-large")
            #expect(e.message.contains("\(ServerLimits.requestBodyBytesMax)"))
            #expect(Self.namesNoInternalType(r.body), "\(r.body)")
        }
        #expect(try f.store.head == head)
    }

    @Test func headerFieldsOverTheBoundAre431() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            // Over the header bound; and over the whole head's bound, which the parser refuses.
            for size in [ServerLimits.headerBytesMax + 1, ServerLimits.headBytesMax + 1] {
                let r = try await Self.exchange(port) { http in
                    try http.send("GET", "/v1/stats", headers: ["X-Big": String(repeating: "b", count: size)])
                }
                #expect(r.status == 431, "\(size)")
                #expect(Self.error(r.body)?.code == "serve.headers-too-large", "\(r.body)")
                #expect(Self.namesNoInternalType(r.body), "\(r.body)")
            }
            let many = try await Self.exchange(port) { http in
                try http.send("GET", "/v1/stats", headers: Dictionary(uniqueKeysWithValues: (0...ServerLimits.headerFieldsMax).map { ("X-\($0)", "v") }))
            }
            #expect(many.status == 431)
            // The server still answers.
            #expect(try await Self.exchange(port) { try $0.send("GET", "/v1/stats") }.status == 200)
        }
    }

    @Test func aURLOverTheBoundIs414() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            let long = String(repeating: "a", count: ServerLimits.urlBytesMax)
            let r = try await Self.exchange(port) { try $0.send("GET", "/v1/query?view=\(long)") }
            #expect(r.status == 414)
            let e = try #require(Self.error(r.body), "\(r.body)")
            #expect(e.code == "serve.uri-too-long")
            #expect(e.message.contains("\(ServerLimits.urlBytesMax)"))
        }
    }

    /// A head sent in part, a body that stops, a connection that sends nothing: each is closed after the request
    /// timeout (a tenth of a second here), not held open.
    @Test func aRequestThatDoesNotArriveIsClosed() async throws {
        let f = try Fixture()
        let server = f.server { $0.requestTimeout = .milliseconds(100); $0.allowAppend = true; $0.token = "t" }
        try await Fixture.app(server).test(.live) { client in
            let port = try #require(client.port)
            let halves: [String] = [
                "",
                "GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                "POST /v1/append HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Length: 10\r\n\r\nabc",
            ]
            for half in halves {
                let closed = try await offPool {
                    let http = try RawHTTP(port: port)
                    try http.sendRaw(Array(half.utf8))
                    return try http.closedByServer()
                }
                #expect(closed, "\(half.debugDescription)")
            }
            // A whole request is answered, and the connection, idle after it, closed.
            let kept = try await offPool {
                let http = try RawHTTP(port: port)
                try http.send("GET", "/v1/stats", headers: ["Connection": "keep-alive"])
                let (status, headers) = try http.readHead()
                let length = try #require(Int(headers["content-length"] ?? ""))
                for _ in 0..<length { _ = try http.nextByte() }
                return (status, try http.closedByServer())
            }
            #expect(kept.0 == 200 && kept.1)
        }
    }

    @Test func expensiveReadsPastTheBoundAre503WithRetryAfter() async throws {
        let f = try Fixture()
        let server = f.server { $0.expensiveReadsMax = 1 }
        try await Fixture.app(server).test(.router) { client in
            let held = try server.expensiveReads.admit("the test's")
            for uri in ["/v1/diff?view=tall&from=1&to=3", "/v1/query?view=tall&at=1", "/v1/verify"] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .serviceUnavailable, "\(uri)")
                #expect(r.headers[.retryAfter] == String(ServerLimits.retryAfterSeconds))
                #expect(r.error?.code == "serve.busy", "\(r.text)")
            }
            // Reads at the head are not expensive.
            #expect(try await client.execute(uri: "/v1/query?view=tall", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/query?view=tall&at=4", method: .get).status == .ok)
            held.end()
            #expect(try await client.execute(uri: "/v1/diff?view=tall&from=1&to=3", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/query?view=tall&at=1", method: .get).status == .ok)
            #expect(server.expensiveReads.underWay == 0, "each read gave its place back")
        }
    }

    /// A client that holds a query document of several megabytes unread (the server's writes wait for room), one
    /// that holds a watch stream unread, and a WebSocket that never answers: SIGTERM still ends `viewlog serve`, with
    /// status 0.
    @Test func sigtermEndsTheServerWhateverItsClientsDo() async throws {
        let f = try Fixture(input: "")
        let name = String(repeating: "n", count: 300)
        let lines = (0..<20_000).map { #"{"insert": "Employee", "id": "e\#($0)", "values": {"name": "\#(name)\#($0)", "height": 180}}"# }
        _ = try AppendInOneWrite.append(f.store, text: lines.joined(separator: "\n"), author: "t")
        let serve = try BackgroundCLI(["serve", f.path])
        let port = try ServeCommandTests.port(try await offPool { try serve.lines(1) }[0])
        let held = try await offPool {
            let query = try RawHTTP(port: port, receiveBufferBytes: 4096)
            try query.send("GET", "/v1/query?entity=Employee&sort=name")
            _ = try query.readHead()
            let watch = try RawHTTP(port: port, receiveBufferBytes: 4096)
            try watch.send("GET", "/v1/watch?view=tall", headers: ["Accept": "text/event-stream"])
            _ = try watch.readHead()
            let socket = try RawHTTP(port: port)
            try socket.send("GET", "/v1/watch?view=tall", headers: HostOriginTests.upgrade)
            _ = try socket.readHead()
            return [query, watch, socket]
        }
        serve.process.terminate()
        let status = try await offPool { serve.waitExit(seconds: 60) }
        #expect(status == 0, "viewlog serve did not stop on SIGTERM: \(serve.stderr)")
        withExtendedLifetime(held) {}
    }
}
