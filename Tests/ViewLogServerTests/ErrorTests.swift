import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// Every error status of DESIGN §12, each as `{"error": {"code", "message"}}` whose message is the CLI's error
/// line without `error: ` where the CLI has the same error.
@Suite struct ErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var uri: String
        var method: HTTPRequest.Method = .get
        var status: HTTPResponse.Status
        var code: String
        /// The CLI command with the same error (its `error:` line is the message), if it has one.
        var cli: [String]? = nil
        var testDescription: String { "\(method.rawValue) \(uri) → \(status.code) \(code)" }
    }

    static let cases: [Case] = [
        // 400: bad input.
        Case(uri: "/v1/query?entity=Employee&where=height+%3E", status: .badRequest, code: "query.syntax",
             cli: ["query", "--entity", "Employee", "--where", "height >"]),
        Case(uri: "/v1/query?entity=Employee&where=nope+%3D%3D+1", status: .badRequest, code: "query.unknown-key",
             cli: ["query", "--entity", "Employee", "--where", "nope == 1"]),
        Case(uri: "/v1/query?entity=Employee&where=height+%3E+%24x", status: .badRequest, code: "query.missing-variable",
             cli: ["query", "--entity", "Employee", "--where", "height > $x"]),
        Case(uri: "/v1/query?view=tall&at=99", status: .badRequest, code: "store.position-past-head",
             cli: ["query", "tall", "--at", "99"]),
        Case(uri: "/v1/diff?view=tall&from=0&to=99", status: .badRequest, code: "store.position-past-head",
             cli: ["diff", "tall", "--from", "0", "--to", "99"]),
        Case(uri: "/v1/objects/Employee/e1?at=99", status: .badRequest, code: "store.position-past-head",
             cli: ["get", "Employee", "e1", "--at", "99"]),
        Case(uri: "/v1/log?from=99", status: .badRequest, code: "store.position-past-head"),
        Case(uri: "/v1/query?entity=Employee&var=novalue", status: .badRequest, code: "request.invalid-parameter",
             cli: ["query", "--entity", "Employee", "--var", "novalue"]),
        Case(uri: "/v1/query?view=tall&entity=Employee", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query?view=tall&limit=-1", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query?view=tall&at=x", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query?view=tall&nope=1", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query?view=tall&view=all", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/query?view=%ZZ", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/diff?view=tall&from=1", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/diff?view=tall&from=1&to=2&seq=yes", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/log?limit=0", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/log?limit=10001", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/log?from=3&to=1", status: .badRequest, code: "request.invalid-parameter"),
        Case(uri: "/v1/watch?view=tall", status: .badRequest, code: "serve.not-a-stream"),
        // 404: unknown view, entity, object, path.
        Case(uri: "/v1/query?view=nope", status: .notFound, code: "request.unknown-view", cli: ["query", "nope"]),
        Case(uri: "/v1/query?entity=Nope", status: .notFound, code: "schema.unknown-entity", cli: ["query", "--entity", "Nope"]),
        Case(uri: "/v1/watch?view=nope", status: .notFound, code: "request.unknown-view"),
        Case(uri: "/v1/objects/Nope/e1", status: .notFound, code: "schema.unknown-entity", cli: ["get", "Nope", "e1"]),
        Case(uri: "/v1/objects/Employee/e9", status: .notFound, code: "store.object-not-found", cli: ["get", "Employee", "e9"]),
        Case(uri: "/v1/objects/Employee/e2?at=1", status: .notFound, code: "store.object-not-found",
             cli: ["get", "Employee", "e2", "--at", "1"]),
        Case(uri: "/v1/nope", status: .notFound, code: "serve.not-found"),
        Case(uri: "/v1/objects/Employee", status: .notFound, code: "serve.not-found"),
        // 405: a method the path does not take; append on a read-only server.
        Case(uri: "/v1/views", method: .post, status: .methodNotAllowed, code: "serve.method-not-allowed"),
        Case(uri: "/v1/query?view=tall", method: .delete, status: .methodNotAllowed, code: "serve.method-not-allowed"),
        Case(uri: "/v1/append", method: .get, status: .methodNotAllowed, code: "serve.method-not-allowed"),
        Case(uri: "/v1/append", method: .post, status: .methodNotAllowed, code: "serve.method-not-allowed"),
    ]

    @Test(arguments: cases)
    func refused(_ c: Case) async throws {
        let f = try Fixture()
        let expectedMessage = try c.cli.map { arguments -> String in
            let r = try CLI.run([arguments[0], f.path] + arguments.dropFirst() + ["--json"])
            #expect(r.status != 0)
            #expect(r.stderr.hasPrefix("error: "))
            return String(String(r.stderr.dropFirst("error: ".count)).trimmingSuffix("\n"))
        }
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: c.uri, method: c.method)
            #expect(r.status == c.status)
            #expect(r.headers[.contentType] == "application/json")
            #expect(r.error?.code == c.code, "\(r.text)")
            if let expectedMessage { #expect(r.error?.message == expectedMessage) }
        }
    }

    /// Below the horizon of a compacted store every position is 400 `log.compacted`, with the CLI's message;
    /// `log` without `from` starts after the horizon.
    @Test func positionsBelowTheHorizonAre400() async throws {
        let f = try Fixture()
        try f.store.compact(.before(2))
        let cases: [(uri: String, cli: [String])] = [
            ("/v1/query?view=tall&at=1", ["query", "tall", "--at", "1"]),
            ("/v1/diff?view=tall&from=1&to=4", ["diff", "tall", "--from", "1", "--to", "4"]),
            ("/v1/diff?view=tall&from=4&to=0", ["diff", "tall", "--from", "4", "--to", "0"]),
            ("/v1/objects/Employee/e1?at=1", ["get", "Employee", "e1", "--at", "1"]),
            ("/v1/log?from=1", ["log", "--from", "1"]),
        ]
        try await Fixture.app(f.server()).test(.router) { client in
            for c in cases {
                let cli = try CLI.run([c.cli[0], f.path] + c.cli.dropFirst() + ["--json"])
                let message = String(String(cli.stderr.dropFirst("error: ".count)).trimmingSuffix("\n"))
                let r = try await client.execute(uri: c.uri, method: .get)
                #expect(r.status == .badRequest, "\(c.uri)")
                #expect(r.error?.code == "log.compacted", "\(c.uri): \(r.text)")
                #expect(r.error?.message == message && message.contains("horizon (2)"), "\(c.uri): \(r.text)")
            }
            let log = try await client.execute(uri: "/v1/log", method: .get)
            #expect(log.status == .ok)
            #expect(log.text.hasPrefix(#"{"transactions": [{"seq": 3,"#), "\(log.text)")
            let at = try await client.execute(uri: "/v1/query?view=tall&at=2", method: .get)
            #expect(at.status == .ok)
        }
    }

    @Test func aQueryStringOverItsBoundIs414() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.router) { client in
            let long = String(repeating: "a", count: ServerLimits.queryBytesMax)
            let r = try await client.execute(uri: "/v1/query?view=\(long)", method: .get)
            #expect(r.status == .uriTooLong)
            #expect(r.error?.code == "serve.uri-too-long")
        }
    }

    @Test func aNonLoopbackServerNeedsTheTokenOnEveryRequest() async throws {
        let f = try Fixture()
        let server = f.server { $0.token = "s3cret"; $0.tokenForEveryRequest = true }
        try await Fixture.app(server).test(.router) { client in
            let none = try await client.execute(uri: "/v1/stats", method: .get)
            #expect(none.status == .unauthorized)
            #expect(none.error?.code == "serve.unauthorized")
            let wrong = try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .forbidden)
            #expect(wrong.error?.code == "serve.forbidden")
            let basic = try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Basic czNjcmV0"])
            #expect(basic.status == .unauthorized)
            let right = try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer s3cret"])
            #expect(right.status == .ok)
        }
    }

    @Test func aLoopbackServerReadsWithoutAToken() async throws {
        let f = try Fixture()
        let server = f.server { $0.token = "s3cret" }
        try await Fixture.app(server).test(.router) { client in
            let r = try await client.execute(uri: "/v1/stats", method: .get)
            #expect(r.status == .ok)
        }
    }

    @Test func statusesOfLibraryCodes() {
        #expect(ServerError.status(for: .conflict, action: .read) == .conflict)
        #expect(ServerError.status(for: .storage, action: .read) == .internalServerError)
        #expect(ServerError.status(for: .corrupt, action: .read) == .internalServerError)
        #expect(ServerError.status(for: .checksumMismatch, action: .read) == .internalServerError)
        #expect(ServerError.status(for: .unknownEntity, action: .append) == .badRequest)
        #expect(ServerError.status(for: .lineTooLong, action: .append) == .contentTooLarge)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
