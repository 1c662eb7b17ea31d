import Dispatch
import Hummingbird
@_spi(Engine) @_spi(Replication) import ViewLog
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
        let expensiveReads = self.expensiveReads
        // Made before the answer starts, so that its errors have their statuses; written in pieces.
        let view = try await blocking {
            let position = try store.checkedPosition(at)
            // Below the head, the view is replayed: an expensive read, its place held while the view is made (not
            // while a slow client reads it).
            let ticket = position < (try store.head) ? try expensiveReads.admit("a query at \(position), below the head") : nil
            defer { ticket?.end() }
            // As `query`: a window of a named view at the head is read from its stored rows.
            return Handoff(try MaterializedView(store: store, selection: selection, at: position, for: .print))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: Self.streamed(view))
    }

    /// The query document of `view`, written in pieces of about ``pieceBytes`` on a thread of its own while at
    /// most ``piecesAhead`` pieces wait for the client: a view of a million rows is never held whole in memory,
    /// and a slow client holds up only its own writer.
    static func streamed(_ view: Handoff<MaterializedView>) -> ResponseBody {
        ResponseBody { writer in
            let (pieces, continuation) = AsyncStream<ByteBuffer>.makeStream()
            let room = DispatchSemaphore(value: piecesAhead)
            let gone = Locked(false)
            // A thread of its own, not one of Dispatch's global queue: it waits (`room`) for as long as the client
            // does not read, and the global queue is as wide as the machine's cores — two unread answers on two cores
            // would stall every other request's read (`blocking`).
            startDetachedThread {
                var w = JSONWriter()
                let send = { (w: inout JSONWriter) in
                    if !gone.withLock({ $0 }) {
                        room.wait()
                        continuation.yield(ByteBuffer(bytes: w.bytes))
                    }
                    w.bytes.removeAll(keepingCapacity: true)
                }
                // A row that cannot be read ends the document early: the status is sent already, and the client
                // sees a document that does not parse rather than a different one.
                if (try? view.value.writeJSON(into: &w, every: pieceBytes, send)) != nil {
                    w.raw("\n")
                    send(&w)
                }
                continuation.finish()
            }
            defer {
                // The client left: the writer thread stops waiting and finishes without sending.
                gone.withLock { $0 = true }
                for _ in 0...piecesAhead { room.signal() }
            }
            for await piece in pieces {
                try await writer.write(piece)
                room.signal()
            }
            try await writer.finish(nil)
        }
    }

    /// Bytes of one piece of a streamed document.
    static let pieceBytes = 64 * 1024
    /// Pieces of a streamed document made ahead of the client.
    static let piecesAhead = 4

    /// `GET /v1/diff?…view…&from=A&to=B[&seq=true]`: the `diff` document.
    func diff(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["from", "to", "seq"]), repeatable: ["var"])
        let selection = try parameters.selection()
        guard let from = try parameters.uint64("from") else { throw ServerError.badParameter("diff needs from=A") }
        guard let to = try parameters.uint64("to") else { throw ServerError.badParameter("diff needs to=B") }
        let includeSeq = try parameters.flag("seq")
        let store = self.store
        let expensiveReads = self.expensiveReads
        return try await blocking {
            // Its view is read at `from`, below the head: an expensive read.
            let ticket = try expensiveReads.admit("a diff")
            defer { ticket.end() }
            let changes = try MaterializedView.diff(store: store, selection: selection, from: from, to: to).changes
            return Self.json(changes.json(includeSeq: includeSeq).text)
        }
    }

    /// `POST /v1/query?…view…&at=P` with append input as the body (DESIGN §14, what-if): the `query` document of the
    /// view as it would be after appending the body at P (default: the head). Read-only: nothing is appended, and it
    /// needs no token beyond the read rules. An expensive read.
    func queryWhatIf(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["at"]), repeatable: ["var"])
        let selection = try parameters.selection()
        let at = try parameters.uint64("at")
        let text = try await Self.bodyText(request, unreadable: "nothing read")
        let store = self.store
        let expensiveReads = self.expensiveReads
        let view = try await blocking {
            let ticket = try expensiveReads.admit("a what-if query")
            defer { ticket.end() }
            let position = try store.checkedPosition(at)
            return Handoff(try WhatIf.view(store, selection: selection, at: position, text: text, named: "the request body").view)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: Self.streamed(view))
    }

    /// `POST /v1/diff?…view…&from=A[&at=P][&seq=true]` with append input as the body (DESIGN §14, what-if): the `diff`
    /// document from the view at A to the view at P (default: the head) with the body appended. Read-only.
    func diffWhatIf(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["from", "at", "seq"]), repeatable: ["var"])
        let selection = try parameters.selection()
        guard let from = try parameters.uint64("from") else { throw ServerError.badParameter("diff needs from=A") }
        let at = try parameters.uint64("at")
        let includeSeq = try parameters.flag("seq")
        let text = try await Self.bodyText(request, unreadable: "nothing read")
        let store = self.store
        let expensiveReads = self.expensiveReads
        return try await blocking {
            let ticket = try expensiveReads.admit("a what-if diff")
            defer { ticket.end() }
            let position = try store.checkedPosition(at)
            let changes = try WhatIf.view(store, selection: selection, at: position, text: text, named: "the request body",
                                          from: from).changes
            return Self.json(changes.json(includeSeq: includeSeq).text)
        }
    }

    /// `GET /v1/log?from=A&to=B&limit=N`: `{"transactions": [log documents A+1…], "next": S or null}`, at most N
    /// (default ``ServerLimits/logPageTransactionsDefault``); `next` is the `from` of the following page, null at
    /// B (or the head).
    func log(_ request: Request) async throws -> Response {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: ["from", "to", "limit"])
        let fromParameter = try parameters.uint64("from")
        let to = try parameters.uint64("to")
        let limit = try parameters.int("limit") ?? ServerLimits.logPageTransactionsDefault
        guard limit > 0, limit <= ServerLimits.logPageTransactionsMax else {
            throw ServerError.badParameter("limit must be 1…\(ServerLimits.logPageTransactionsMax), got \(limit)")
        }
        let store = self.store
        return try await blocking {
            let end = try store.checkedPosition(to)
            let from = try store.checkedPosition(fromParameter ?? store.horizon)
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
        let expensiveReads = self.expensiveReads
        return try await blocking {
            let ticket = try expensiveReads.admit("verify")
            defer { ticket.end() }
            return Self.json(Documents.verify(try store.verify()).text)
        }
    }
}
