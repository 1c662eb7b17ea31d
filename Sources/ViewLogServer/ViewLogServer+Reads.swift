import Hummingbird
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// The read endpoints: each answers with the document the CLI prints for the same request with `--json`.
extension ViewLogServer {
    /// `GET /v1/views`: `{"views": [the documents of `views --json`]}`.
    func views(_ request: Request) async throws -> Response {
        try RequestParameters(query: request.uri.query).check(known: [])
        let store = self.store
        return try await blocking {
            Self.json(JSONValue.object([("views", .array(Documents.views(try store.schema)))]).text)
        }
    }

    /// `GET /v1/query?…view…&at=P`: the `query` document.
    func query(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["at"]), repeatable: ["var"])
        let selection = try parameters.selection()
        let at = try parameters.uint64("at")
        let store = self.store
        return try await blocking {
            let position = try store.checkedPosition(at)
            let view = try MaterializedView(store: store, selection: selection, at: position)
            return Self.json(try view.jsonText())
        }
    }

    /// `GET /v1/diff?…view…&from=A&to=B[&seq=true]`: the `diff` document.
    func diff(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["from", "to", "seq"]), repeatable: ["var"])
        let selection = try parameters.selection()
        guard let from = try parameters.uint64("from") else { throw ServerError.badParameter("diff needs from=A") }
        guard let to = try parameters.uint64("to") else { throw ServerError.badParameter("diff needs to=B") }
        let includeSeq = try parameters.flag("seq")
        let store = self.store
        return try await blocking {
            _ = try store.checkedPosition(from)
            _ = try store.checkedPosition(to)
            let view = try MaterializedView(store: store, selection: selection, at: from)
            let (changes, _) = try view.move(to: to)
            return Self.json(changes.json(includeSeq: includeSeq).text)
        }
    }

    /// `GET /v1/log?from=A&to=B&limit=N`: `{"transactions": [log documents A+1…], "next": S or null}`, at most N
    /// (default ``ServerLimits/logPageTransactionsDefault``); `next` is the `from` of the following page, null at
    /// B (or the head).
    func log(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: ["from", "to", "limit"])
        let from = try parameters.uint64("from") ?? 0
        let to = try parameters.uint64("to")
        let limit = try parameters.int("limit") ?? ServerLimits.logPageTransactionsDefault
        guard limit > 0, limit <= ServerLimits.logPageTransactionsMax else {
            throw ServerError.badParameter("limit must be 1…\(ServerLimits.logPageTransactionsMax), got \(limit)")
        }
        let store = self.store
        return try await blocking {
            let end = try store.checkedPosition(to)
            _ = try store.checkedPosition(from)
            guard from <= end else { throw ServerError.badParameter("from \(from) is after to \(end)") }
            var transactions: [JSONValue] = []
            let last = try Documents.log(store, from: from, to: end, limit: UInt64(limit)) { transactions.append($0) }
            let next: JSONValue = last < end ? .int(Int64(last)) : .null
            return Self.json(JSONValue.object([("transactions", .array(transactions)), ("next", next)]).text)
        }
    }

    /// `GET /v1/objects/ENTITY/ID[?at=P]`: the `get` document; 404 when the object is absent.
    func object(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: ["at"])
        let at = try parameters.uint64("at")
        let entity = try RequestParameters.decode(context.parameters.get("entity").map { $0[...] } ?? "", plusIsSpace: false)
        let id = try RequestParameters.decode(context.parameters.get("id").map { $0[...] } ?? "", plusIsSpace: false)
        let store = self.store
        return try await blocking {
            let position = try store.checkedPosition(at)
            return Self.json(try Documents.object(store, entity: entity, id: id, at: position).text)
        }
    }

    /// `GET /v1/stats`: the `stats` document.
    func stats(_ request: Request) async throws -> Response {
        try RequestParameters(query: request.uri.query).check(known: [])
        let store = self.store
        return try await blocking { Self.json(Documents.stats(try store.statistics()).text) }
    }

    /// `GET /v1/verify`: the `verify` document; 200 also when the store is damaged (`"ok": false`).
    func verify(_ request: Request) async throws -> Response {
        try RequestParameters(query: request.uri.query).check(known: [])
        let store = self.store
        return try await blocking { Self.json(Documents.verify(try store.verify()).text) }
    }
}
