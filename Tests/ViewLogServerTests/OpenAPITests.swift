import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// `GET /openapi.json`: the committed document, served as it is, naming every path of the server (schemathesis
/// checks the answers against it in CI: tools/serve-api-test).
@Suite struct OpenAPITests {
    /// The committed file, read from the source tree.
    static func committedDocument() throws -> [UInt8] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ViewLogServer/openapi.json").path
        return try #require(FileManager.default.contents(atPath: path).map(Array.init), "no \(path)")
    }

    @Test func theDocumentIsServedAndNamesEveryPath() async throws {
        let f = try Fixture()
        let committed = try Self.committedDocument()
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/openapi.json", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json")
            // Byte for byte the file (embedded when built), which ends with a newline as every answer does.
            #expect(Array(r.body.readableBytesView) == committed)
            #expect(OpenAPIDocument.bytes == committed)
            #expect(committed.last == UInt8(ascii: "\n"))
            guard case .object(let members) = try JSONValue.parse(r.text),
                  case .object(let paths)? = members.first(where: { $0.0 == "paths" })?.1 else {
                Issue.record("no paths in the OpenAPI document")
                return
            }
            for (path, item) in paths {
                let concrete = path.replacingOccurrences(of: "{entity}", with: "E").replacingOccurrences(of: "{id}", with: "1")
                let methods = ViewLogServer.methods(ofPath: concrete)
                #expect(!methods.isEmpty, "\(path) is not a path of the server")
                guard case .object(let operations) = item else { continue }
                #expect(operations.map(\.0) == methods.map { $0.rawValue.lowercased() }, "\(path)")
            }
            let documented = Set(paths.map(\.0))
            for path in ["/openapi.json", "/v1/views", "/v1/query", "/v1/diff", "/v1/log", "/v1/objects/{entity}/{id}",
                         "/v1/stats", "/v1/verify", "/v1/watch", "/v1/append"] {
                #expect(documented.contains(path), "\(path) is not documented")
            }
        }
    }

    @Test func aMethodThePathDoesNotTakeIs405WithAllow() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/stats", method: .options)
            #expect(r.status == .methodNotAllowed)
            #expect(r.headers[.allow] == "GET")
        }
    }
}

/// `GET /`: the inspector page, one document with its script and style inline, under a content security policy that
/// lets it talk only to this server (tools/serve-browser-test drives it in Chromium).
@Suite struct InspectorPageTests {
    @Test func thePageIsServedWhole() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "text/html; charset=utf-8")
            #expect(r.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(r.text.hasPrefix("<!doctype html>"))
            #expect(r.text.contains("<title>ViewLog inspector</title>"))
            // Nothing from elsewhere: no external script, style or font.
            #expect(!r.text.contains("src=\"http"))
            #expect(!r.text.contains("href=\"http"))
        }
    }

    /// The page draws a relationship's id as a link to the object it names: it carries each entity's relationships
    /// and their targets, as an attribute's text.
    @Test func thePageCarriesTheSchemasRelationships() async throws {
        let f = try Fixture(schema: "company.json", input: "")
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/", method: .get)
            let expected = #"{"Employee": {"department": "Department", "manager": "Employee"}, "#
                + #""Project": {"owner": "Department", "reviewer": "Employee"}}"#
            let escaped = expected.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "&quot;")
            #expect(r.text.contains("<meta name=\"relationships\" content=\"\(escaped)\">"))
        }
        let plain = try Fixture()
        try await Fixture.app(plain.server()).test(.router) { client in
            let r = try await client.execute(uri: "/", method: .get)
            #expect(r.text.contains(#"<meta name="relationships" content="{}">"#))
        }
    }
}
