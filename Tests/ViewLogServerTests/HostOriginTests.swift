import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// DESIGN §12, "Under load and attack": a page of another site reads nothing — neither through a name of its own that
/// resolves to the server (`Host`) nor through a WebSocket (`Origin`) — and no page frames the inspector.
@Suite struct HostOriginTests {
    /// The status and the JSON error (if any) of `GET target` with `Host: host` (nil: none) on a real socket.
    static func get(_ port: Int, _ target: String = "/v1/stats", host: String?, headers: [String: String] = [:]) async throws
        -> (status: Int, headers: [String: String], body: String) {
        try await offPool {
            let http = try RawHTTP(port: port)
            try http.send("GET", target, host: host, headers: headers)
            let (status, headers) = try http.readHead()
            return (status, headers, status == 101 ? "" : try http.readBody())
        }
    }

    static func errorCode(_ body: String) -> String? {
        guard case .object(let members)? = try? JSONValue.parse(body), case .object(let fields)? = members.first?.1,
              case .string(let code)? = fields.first(where: { $0.0 == "code" })?.1 else { return nil }
        return code
    }

    @Test func aLoopbackServerAnswersItsAddressLocalhostAndTheLoopbackLiteralsOnly() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            for host in ["127.0.0.1:\(port)", "127.0.0.1", "localhost:\(port)", "LOCALHOST", "127.0.0.2:\(port)", "[::1]:\(port)"] {
                #expect(try await Self.get(port, host: host).status == 200, "Host: \(host)")
            }
            for host in ["evil.example:\(port)", "127.evil.example", "localhost.evil.example", "10.0.0.1", "[::2]:\(port)"] {
                let r = try await Self.get(port, host: host)
                #expect(r.status == 403, "Host: \(host)")
                #expect(r.headers["content-type"] == "application/json")
                #expect(Self.errorCode(r.body) == "serve.forbidden-host", "\(r.body)")
                #expect(r.body.contains(host), "the message names the Host: \(r.body)")
            }
            let none = try await Self.get(port, host: nil)
            #expect(none.status == 400)
            #expect(Self.errorCode(none.body) == "serve.missing-host")
            // The inspector page and the OpenAPI document too: every request.
            #expect(try await Self.get(port, "/", host: "evil.example").status == 403)
            #expect(try await Self.get(port, "/openapi.json", host: "evil.example").status == 403)
        }
    }

    @Test func allowHostAddsNames() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server { $0.allowedHosts = ["Shop.Example"] }).test(.live) { client in
            let port = try #require(client.port)
            #expect(try await Self.get(port, host: "shop.example:8080").status == 200)
            #expect(try await Self.get(port, host: "shop.example.").status == 200)
            #expect(try await Self.get(port, host: "other.example").status == 403)
        }
    }

    static let upgrade = [
        "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    ]

    @Test func aWebSocketFromAnotherSitesPageIsRefused() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server { $0.allowedOrigins = ["https://dash.example"] }).test(.live) { client in
            let port = try #require(client.port)
            let host = "127.0.0.1:\(port)"
            func status(origin: String?, host: String = host) async throws -> (Int, String) {
                var headers = Self.upgrade
                headers["Origin"] = origin
                let r = try await Self.get(port, "/v1/watch?view=tall", host: host, headers: headers)
                return (r.status, r.body)
            }
            // The server's own page, an allowed origin, a client that is not a browser (no Origin).
            #expect(try await status(origin: "http://\(host)").0 == 101)
            #expect(try await status(origin: "http://LOCALHOST:\(port)", host: "localhost:\(port)").0 == 101)
            #expect(try await status(origin: "https://dash.example").0 == 101)
            #expect(try await status(origin: nil).0 == 101)
            #expect(try await status(origin: "ws://127.0.0.1").0 == 101)
            for origin in ["http://evil.example", "http://127.0.0.1:1", "null", "https://dash.example.evil", "ws://evil.example"] {
                let (code, body) = try await status(origin: origin)
                #expect(code == 403, "Origin: \(origin)")
                #expect(Self.errorCode(body) == "serve.forbidden-origin", "\(body)")
                #expect(body.contains(origin))
            }
            // Host first: an upgrade through another name is refused whatever its Origin.
            let (code, body) = try await status(origin: "http://evil.example", host: "evil.example")
            #expect(code == 403)
            #expect(Self.errorCode(body) == "serve.forbidden-host")
        }
    }

    @Test func theInspectorPageHasAStrictPolicyAndCannotBeFramed() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/", method: .get)
            #expect(r.status == .ok)
            let policy = try #require(r.headers[.contentSecurityPolicy])
            let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map { d -> (String, String) in
                let parts = d.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            })
            #expect(directives["frame-ancestors"] == "'none'")
            #expect(directives["default-src"] == "'none'")
            #expect(directives["connect-src"] == "'self'")
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("*"))
            // The page's one script and one style carry the policy's nonce, fresh for each answer.
            let nonce = try #require(directives["script-src"]?.dropFirst("'nonce-".count).dropLast())
            #expect(directives["style-src"] == "'nonce-\(nonce)'")
            #expect(r.text.components(separatedBy: "<script nonce=\"\(nonce)\">").count == 2)
            #expect(r.text.components(separatedBy: "<style nonce=\"\(nonce)\">").count == 2)
            #expect(r.text.components(separatedBy: "<script").count == 2 && !r.text.contains(" style=\""))
            #expect(r.headers.first { $0.name.rawName == "X-Frame-Options" }?.value == "DENY")
            let again = try await client.execute(uri: "/", method: .get)
            #expect(again.headers[.contentSecurityPolicy] != policy)
        }
    }

    @Test(arguments: [
        ("localhost", true), ("LocalHost", true), ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true),
        ("[::1]", true), ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true),
        ("127.evil.example", false), ("127.0.0.1.evil.example", false), ("localhost.evil.example", false),
        ("127.1", false), ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("example.com", false), ("", false),
    ])
    func loopbackIsAnAddressNotAPrefix(host: String, loopback: Bool) {
        #expect(ViewLogServer.isLoopback(host) == loopback)
    }

    @Test func allowHostAndAllowOriginNameTheirForms() {
        for ok in ["shop.example.com", "10.0.0.7", "[::1]", "::1", "my_host"] {
            #expect(ViewLogServer.problem(allowedHost: ok) == nil, "\(ok)")
        }
        for bad in ["", "http://shop.example", "shop.example:8080", "shop.example/x", "a b", ".."] {
            #expect(ViewLogServer.problem(allowedHost: bad) != nil, "\(bad)")
        }
        for ok in ["https://dash.example", "http://127.0.0.1:8080", "http://[::1]:8080", "https://dash.example/"] {
            #expect(ViewLogServer.problem(allowedOrigin: ok) == nil, "\(ok)")
        }
        for bad in ["dash.example", "ftp://dash.example", "https://dash.example/page", "https://", "null", "http://h:99999"] {
            #expect(ViewLogServer.problem(allowedOrigin: bad) != nil, "\(bad)")
        }
    }
}
