import Hummingbird
import HummingbirdWebSocket
import ServiceLifecycle
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// `GET /v1/watch?…view…[&seq=true][&count=N]` over a WebSocket or as Server-Sent Events: the documents of
/// `watch --json` — the query document, then one diff document per batch of new transactions that changes the
/// view, each starting where the one before ended — one message (one `data:` event) each.
extension ViewLogServer {
    /// A watch request, checked before anything is sent: its view (made against the schema, so a bad view is a
    /// 4xx and not a stream that fails), its flags.
    struct WatchRequest: Sendable {
        var selection: ViewSelection
        var includeSeq: Bool
        /// Change sets after which the stream ends (`--count`); nil: until the client leaves.
        var count: Int?
    }

    func watchRequest(_ request: Request) throws -> WatchRequest {
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: RequestParameters.viewNames.union(["seq", "count"]), repeatable: ["var"])
        let selection = try parameters.selection()
        let count = try parameters.int("count")
        if let count, count < 0 { throw ServerError.badParameter("count must not be negative") }
        // The view must be one the schema can make: the same checks as the first document's.
        _ = try selection.fetchRequest(schema: try store.schema)
        return WatchRequest(selection: selection, includeSeq: try parameters.flag("seq"), count: count)
    }

    /// Takes a subscriber's place, or refuses with 503 when ``ServerLimits/watchSubscribersMax`` are watching.
    func subscribe() throws -> Subscription {
        let admitted = subscribers.withLock { n -> Bool in
            guard n < ServerLimits.watchSubscribersMax else { return false }
            n += 1
            return true
        }
        guard admitted else { throw Self.tooManySubscribers }
        return Subscription(server: self)
    }

    static let tooManySubscribers = ServerError(.serviceUnavailable, .tooManySubscribers,
                                                "more than \(ServerLimits.watchSubscribersMax) watch subscribers; try again later",
                                                retryAfter: ServerLimits.retryAfterSeconds)

    /// A subscriber's place; ``end()`` gives it back.
    final class Subscription: Sendable {
        let server: ViewLogServer
        private let ended = Locked(false)
        init(server: ViewLogServer) { self.server = server }
        func end() {
            guard ended.withLock({ e in defer { e = true }; return !e }) else { return }
            server.subscribers.withLock { $0 -= 1 }
        }
    }

    /// `GET /v1/watch` without a WebSocket upgrade: Server-Sent Events when the client accepts them, else a 400.
    func watchHTTP(_ request: Request) async throws -> Response {
        let watch = try watchRequest(request)
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            throw ServerError(.badRequest, .notAStream,
                              "watch is a stream: upgrade to a WebSocket, or accept text/event-stream (Server-Sent Events)")
        }
        // Refused here with a 503 when full; the place itself is taken when the body runs (a response whose body
        // never runs, its client gone, then holds no place).
        guard subscribers.withLock({ $0 < ServerLimits.watchSubscribersMax }) else { throw Self.tooManySubscribers }
        let buffer = WatchBuffer(capacity: options.watchBufferDocuments)
        let body = ResponseBody { [self] writer in
            let subscription: Subscription
            do { subscription = try subscribe() } catch {
                try await writer.write(ByteBuffer(string: "data: \(ServerError.from(error).body)\n\n"))
                try await writer.finish(nil)
                return
            }
            defer { subscription.end() }
            // A client that goes away is noticed when its connection closes, not only at the next document's
            // write: an idle subscriber that left gives its place back at once.
            try await request.body.consumeWithInboundCloseHandler { _ in
                try await stream(watch, into: buffer) { document in
                    var event = ByteBuffer()
                    event.writeString("data: ")
                    event.writeString(document)
                    event.writeString("\n\n")
                    try await writer.write(event)
                }
            } onInboundClosed: {
                buffer.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// The WebSocket routes: `/v1/watch` upgrades when the request is a good watch request (else the HTTP router
    /// answers it, with its error).
    public func webSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/v1/watch") { [self] request, _ in
            // Only the token refuses the upgrade (a refused upgrade is a bare 400): any other error of the request
            // is sent as the stream's one document, so that the client reads it.
            if options.tokenForEveryRequest {
                do { try checkToken(request.headers[.authorization]) } catch { return .dontUpgrade }
            }
            return .upgrade([:])
        } onUpgrade: { [self] inbound, outbound, context in
            let watch: WatchRequest
            let subscription: Subscription
            do {
                watch = try watchRequest(context.request)
                subscription = try subscribe()
            } catch {
                try await outbound.write(.text(ServerError.from(error).body))
                try await outbound.close(.policyViolation, reason: nil)
                return
            }
            defer { subscription.end() }
            let buffer = WatchBuffer(capacity: options.watchBufferDocuments)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client's messages are not read for anything; their end (a close, a dropped connection) ends
                // the watch.
                group.addTask {
                    for try await _ in inbound {}
                    buffer.finish()
                }
                defer { group.cancelAll() }
                try await stream(watch, into: buffer) { try await outbound.write(.text($0)) }
            }
        }
        return router
    }

    /// Joins the shared follow of `watch`'s view (``SharedFollows``) and gives each of its documents to `send`, until
    /// the watch ends (its `count`, an error document), the buffer is finished (the client left), or the server shuts
    /// down.
    func stream(_ watch: WatchRequest, into buffer: WatchBuffer, send: (String) async throws -> Void) async throws {
        let member = follows.join(watch, store: store, buffer: buffer)
        defer { member.leave() }
        try await withGracefulShutdownHandler {
            while let document = await buffer.next() {  // bounded by the client: it ends when it leaves
                try await send(document)
            }
        } onGracefulShutdown: {
            buffer.finish()
        }
    }

    /// Follows the head for `watch` alone, through the CLI's follow loop (``ViewFollower``) — what one member of a
    /// ``SharedFollow`` is sent, made for one subscriber (the tests compare the two): puts the query document, then
    /// each change set's diff document into `buffer`. When the subscriber is too far behind, everything unsent is
    /// replaced by `{"reload": true}` and a fresh query document, and the diffs go on from it; so too when the
    /// store's horizon passes the view's position (a compaction, a schema's retention: DESIGN §13), with the view
    /// opened again at the head. An error (the store removed) is the last document, as `{"error": …}`.
    /// `handled` is told each head the view has been moved to and its document queued (for tests).
    static func produce(_ watch: WatchRequest, store: LogStore, into buffer: WatchBuffer,
                        handled: (@Sendable (UInt64) -> Void)? = nil) async {
        defer { buffer.finish() }
        do {
            let start = try store.head
            let follower = try ViewFollower(store: store, selection: watch.selection, at: start)
            guard buffer.push(try follower.view.jsonText()) else { return }
            handled?(start)
            try await follower.follow(store, count: watch.count, handled: handled, reloaded: { view in
                buffer.restart(with: [reloadDocument, try view.jsonText()])
            }) { step in
                if !buffer.push(step.changes.json(includeSeq: watch.includeSeq).text) {
                    // The fresh query document is at the view's position, where the next change set starts.
                    buffer.restart(with: [reloadDocument, try follower.view.jsonText()])
                }
            }
        } catch {
            let e = ServerError.from(error)
            if !buffer.push(e.body) { buffer.restart(with: [e.body]) }
        }
    }

    /// What a subscriber that fell too far behind is sent before its fresh query document.
    static let reloadDocument = ViewFollower.reloadDocument
}
