import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@_spi(Engine) import ViewLog
@testable import ViewLogServer

/// Every GET endpoint in process (HummingbirdTesting's router client): each answer is the document the CLI prints
/// with `--json` for the same request, byte for byte (DESIGN §12).
@Suite struct ReadEndpointTests {
    @Test func viewsIsTheViewsDocumentsInOneArray() async throws {
        let f = try Fixture()
        let lines = try CLI.json(["views", f.path]).split(separator: "\n")
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/views", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json")
            #expect(r.text == "{\"views\": [" + lines.joined(separator: ", ") + "]}\n")
        }
    }

    @Test(arguments: [
        ("view=tall", ["tall"]),
        ("view=tall&at=2", ["tall", "--at", "2"]),
        ("view=tall&at=0", ["tall", "--at", "0"]),
        ("view=topEarners&limit=1&offset=1", ["topEarners", "--limit", "1", "--offset", "1"]),
        ("entity=Employee&where=height+%3E+%24min&var=min%3D155&sort=name+desc&section=active",
         ["--entity", "Employee", "--where", "height > $min", "--var", "min=155", "--sort", "name desc", "--section", "active"]),
        ("entity=Employee&where=name+BEGINSWITH+%24p+OR+name+%3D%3D+%24q&var=p%3DA&var=q%3D%22Cy%22",
         ["--entity", "Employee", "--where", "name BEGINSWITH $p OR name == $q", "--var", "p=A", "--var", "q=\"Cy\""]),
    ])
    func queryIsTheQueryDocument(query: String, cli: [String]) async throws {
        let f = try Fixture()
        let expected = try CLI.json(["query", f.path] + cli)
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/query?" + query, method: .get)
            #expect(r.status == .ok)
            #expect(r.text == expected)
        }
    }

    @Test(arguments: [
        ("view=tall&from=0&to=4", ["tall", "--from", "0", "--to", "4"]),
        ("view=tall&from=4&to=1&seq=true", ["tall", "--from", "4", "--to", "1", "--seq"]),
        ("view=tall&from=2&to=3&seq=false", ["tall", "--from", "2", "--to", "3"]),
        ("entity=Employee&sort=height&from=1&to=4", ["--entity", "Employee", "--sort", "height", "--from", "1", "--to", "4"]),
    ])
    func diffIsTheDiffDocument(query: String, cli: [String]) async throws {
        let f = try Fixture()
        let expected = try CLI.json(["diff", f.path] + cli)
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/diff?" + query, method: .get)
            #expect(r.status == .ok)
            #expect(r.text == expected)
        }
    }

    @Test func logPagesChainToTheWholeLog() async throws {
        let f = try Fixture()
        let all = try CLI.json(["log", f.path]).split(separator: "\n").map(String.init)
        let middle = try CLI.json(["log", f.path, "--from", "1", "--to", "3"]).split(separator: "\n").map(String.init)
        try await Fixture.app(f.server()).test(.router) { client in
            // Pages of 1 from 0: next is the following page's from, null at the head.
            var pages: [String] = []
            var from: Int64? = 0
            while let start = from {  // bounded: four transactions
                let r = try await client.execute(uri: "/v1/log?from=\(start)&limit=3", method: .get)
                #expect(r.status == .ok)
                let (transactions, next) = try Self.page(r.text)
                pages += transactions
                from = next
                try #require(pages.count <= all.count)
            }
            #expect(pages == all)
            // A range, in one page.
            let r = try await client.execute(uri: "/v1/log?from=1&to=3", method: .get)
            let (transactions, next) = try Self.page(r.text)
            #expect(transactions == middle)
            #expect(next == nil)
            // The whole text of a page: the log documents, then next.
            let first = try await client.execute(uri: "/v1/log?limit=1", method: .get)
            #expect(first.text == "{\"transactions\": [\(all[0])], \"next\": 1}\n")
        }
    }

    /// A log page's transactions (each as its JSON text) and next.
    static func page(_ text: String) throws -> ([String], Int64?) {
        guard case .object(let members) = try JSONValue.parse(text), members.map(\.0) == ["transactions", "next"],
              case .array(let transactions) = members[0].1 else {
            Issue.record("not a log page: \(text)")
            return ([], nil)
        }
        switch members[1].1 {
        case .int(let n): return (transactions.map(\.text), n)
        case .null: return (transactions.map(\.text), nil)
        default:
            Issue.record("next is neither a position nor null: \(text)")
            return ([], nil)
        }
    }

    @Test func objectIsTheGetDocument() async throws {
        let f = try Fixture()
        let head = try CLI.json(["get", f.path, "Employee", "e1"])
        let before = try CLI.json(["get", f.path, "Employee", "e1", "--at", "1"])
        try await Fixture.app(f.server()).test(.router) { client in
            let r1 = try await client.execute(uri: "/v1/objects/Employee/e1", method: .get)
            #expect(r1.text == head)
            let r2 = try await client.execute(uri: "/v1/objects/Employee/e1?at=1", method: .get)
            #expect(r2.text == before)
        }
    }

    @Test func objectIdsArePercentDecodedAndKeepTheirType() async throws {
        let f = try Fixture(schema: "authors.json", input: """
        {"insert": "Author", "id": -3, "values": {"firstName": "A b", "lastName": "W"}}
        """)
        let expected = try CLI.json(["get", f.path, "Author", "-3"])
        try await Fixture.app(f.server()).test(.router) { client in
            let r3 = try await client.execute(uri: "/v1/objects/Author/-3", method: .get)
            #expect(r3.text == expected)
            let r4 = try await client.execute(uri: "/v1/objects/Author/%2D3", method: .get)
            #expect(r4.text == expected)
            let word = try await client.execute(uri: "/v1/objects/Author/abc", method: .get)
            #expect(word.status == .badRequest)
            #expect(word.error?.code == "value.invalid-id")
            #expect(word.error?.message == "id 'abc' is not an integer (Author ids are integers)")
        }
    }

    @Test func statsAndVerifyAreTheirDocuments() async throws {
        let f = try Fixture()
        let stats = try CLI.json(["stats", f.path])
        let verify = try CLI.json(["verify", f.path])
        try await Fixture.app(f.server()).test(.router) { client in
            let r5 = try await client.execute(uri: "/v1/stats", method: .get)
            #expect(r5.text == stats)
            let r6 = try await client.execute(uri: "/v1/verify", method: .get)
            #expect(r6.text == verify)
        }
    }
}

/// Views over relationships (DESIGN §10): rows with their path values, `include`, change sets one hop away.
@Suite struct RelationshipEndpointTests {
    static let company = """
    {"author": "hr", "changes": [{"insert": "Department", "id": 1, "values": {"name": "Sales", "floor": 2}}, {"insert": "Department", "id": 2, "values": {"name": "Ops", "floor": 1}}]}
    {"author": "hr", "changes": [{"insert": "Employee", "id": "ann", "values": {"name": "Ann", "department": 1}}, {"insert": "Employee", "id": "bob", "values": {"name": "Bob", "department": 2, "manager": "ann"}}, {"insert": "Employee", "id": "cy", "values": {"name": "Cy", "department": 1, "manager": "ann"}}]}
    {"update": "Department", "id": 1, "values": {"name": "Alpha"}}
    """

    @Test(arguments: [
        ("/v1/query?view=byDepartment", ["query", "byDepartment"]),
        ("/v1/query?view=upstairs&include=department.name", ["query", "upstairs", "--include", "department.name"]),
        ("/v1/query?view=byDepartment&at=2", ["query", "byDepartment", "--at", "2"]),
        ("/v1/diff?view=byDepartment&from=2&to=3", ["diff", "byDepartment", "--from", "2", "--to", "3"]),
        ("/v1/diff?view=byDepartment&from=3&to=2&seq=true", ["diff", "byDepartment", "--from", "3", "--to", "2", "--seq"]),
        // A window of the stored named view (its stored rows and the rows the rename reaches) against the same view
        // ad hoc, built in memory.
        ("/v1/diff?view=byDepartment&limit=2&offset=1&from=2&to=3&seq=true",
         ["diff", "--entity", "Employee", "--sort", "department.name, name", "--section", "department.name", "--limit", "2",
          "--offset", "1", "--from", "2", "--to", "3", "--seq"]),
        ("/v1/diff?view=byDepartment&limit=1&from=3&to=1",
         ["diff", "--entity", "Employee", "--sort", "department.name, name", "--section", "department.name", "--limit", "1",
          "--from", "3", "--to", "1"]),
    ])
    func documentsOverRelationshipsAreTheCLIs(uri: String, cli: [String]) async throws {
        let f = try Fixture(schema: "company.json", input: Self.company)
        let expected = try CLI.json([cli[0], f.path] + cli.dropFirst())
        try await Fixture.app(f.server()).test(.router) { client in
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .ok)
            #expect(r.text == expected)
        }
    }
}
