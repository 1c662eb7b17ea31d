import Dispatch
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// `viewlog serve` (DESIGN §12): a store's views, log, objects and change sets over HTTP, live views over
/// WebSocket and Server-Sent Events, and the inspector page — the CLI's `--json` documents, served unchanged.
///
/// One server serves one store. Reads use the store's short read transactions; every `watch` subscriber follows
/// the head through the store's one head monitor (idle subscribers cost no CPU).
public final class ViewLogServer: Sendable {
    /// What the server allows and how it guards it.
    public struct Options: Sendable {
        /// Whether `POST /v1/append` appends (it always needs ``token``).
        public var allowAppend = false
        /// The bearer token: needed by `POST /v1/append`, and by every request when ``tokenForEveryRequest``.
        public var token: String?
        /// Every request needs the token (a server listening on a non-loopback address).
        public var tokenForEveryRequest = false
        /// Documents a watch subscriber may fall behind before it is sent `{"reload": true}` and a fresh query
        /// document.
        public var watchBufferDocuments = ServerLimits.watchBufferDocumentsDefault
        /// The author of appended transactions whose input line names none.
        public var author = "serve"
        /// Host names a request's `Host` may name besides the listen address (`--allow-host`; ``HostPolicy``).
        public var allowedHosts: [String] = []
        /// Origins, `SCHEME://HOST[:PORT]`, whose pages may open a WebSocket besides the server's own
        /// (`--allow-origin`).
        public var allowedOrigins: [String] = []
        /// Longest a client may take to send a request's head, or stay silent within its body, or sit idle between
        /// requests; then its connection is closed.
        public var requestTimeout: Duration = .seconds(ServerLimits.requestTimeoutSecondsDefault)
        /// Longest a connection stays open once the server shuts down (SIGTERM); then it is closed, whatever its
        /// client does.
        public var shutdownGrace: Duration = .seconds(ServerLimits.shutdownGraceSecondsDefault)
        /// Expensive reads at once (a query at a position below the head, a diff, `verify`); one more is a 503.
        public var expensiveReadsMax = ServerLimits.expensiveReadsDefault

        /// Read-only, no token, the default watch buffer.
        public init() {}
    }

    /// The store served.
    public let store: LogStore
    /// What the server allows.
    public let options: Options
    /// Watch subscribers now (WebSocket and SSE).
    let subscribers = Locked(0)
    /// The expensive reads under way.
    let expensiveReads: ReadAdmission
    /// The follows of the watched views, one per distinct view.
    let follows = SharedFollows()

    /// A server of `store`. `options` must hold a token when they allow appends or need a token on every request.
    public init(store: LogStore, options: Options = Options()) {
        precondition(!options.allowAppend || options.token != nil, "appends need a token")
        precondition(!options.tokenForEveryRequest || options.token != nil, "a token for every request needs a token")
        precondition(options.expensiveReadsMax > 0, "expensive reads need room for one at least")
        self.store = store
        self.options = options
        expensiveReads = ReadAdmission(limit: options.expensiveReadsMax)
    }

    /// Whether `host` is a loopback address, so that a server there may go without a token: `localhost`, an IPv4
    /// literal in 127.0.0.0/8, or `::1`. A name is not one, whatever it starts with (`127.evil.example`).
    public static func isLoopback(_ host: String) -> Bool {
        HostPolicy.Address(host) == .loopback
    }

    /// The application listening on `host`:`port` (0: a free port); `onRunning` is told the port once it listens.
    /// Every connection is held to ``ConnectionPolicy`` (its `Host` against `host`).
    public func application(host: String, port: Int,
                            onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "viewlog.serve", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        let policy = ConnectionPolicy(
            hosts: HostPolicy(listenHost: host, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins),
            requestTimeout: TimeAmount(options.requestTimeout), shutdownGrace: TimeAmount(options.shutdownGrace))
        let webSocketResponder = webSocketRouter().buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(httpDecoderConfiguration: .init(
                maxHeaderFieldSize: ServerLimits.headBytesMax, maxHeaderListSize: ServerLimits.headBytesMax,
                maxHeaderFieldCount: ServerLimits.headerFieldsMax + 1)),
            // A client that does not answer the close of its watch (the server shutting down) is not waited for long.
            ws: WebSocketServerConfiguration(closeTimeout: .seconds(1)))
        return Application(
            router: router(),
            server: HTTPServerBuilder { responder in
                GuardedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                   configuration: configuration),
                               policy: policy)
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "viewlog"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// The HTTP routes (everything but the WebSocket upgrade of `/v1/watch`).
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: TokenMiddleware(server: self))
        let routes: [(String, HTTPRequest.Method, @Sendable (Request, BasicRequestContext) async throws -> Response)] = [
            ("/", .get, { [self] r, _ in
                try RequestParameters(query: r.uri.query).check(known: [])
                let store = self.store
                return Self.page(relationships: try await blocking { InspectorPage.relationships(of: try store.schema) })
            }),
            ("/openapi.json", .get, { r, _ in
                try RequestParameters(query: r.uri.query).check(known: [])
                return Response(status: .ok, headers: [.contentType: "application/json"],
                                body: ResponseBody(byteBuffer: Self.openAPIDocument))
            }),
            ("/v1/views", .get, { [self] r, _ in try await views(r) }),
            ("/v1/query", .get, { [self] r, _ in try await query(r) }),
            ("/v1/diff", .get, { [self] r, _ in try await diff(r) }),
            ("/v1/log", .get, { [self] r, _ in try await log(r) }),
            ("/v1/objects/:entity/:id", .get, { [self] r, c in try await object(r, c) }),
            ("/v1/stats", .get, { [self] r, _ in try await stats(r) }),
            ("/v1/verify", .get, { [self] r, _ in try await verify(r) }),
            ("/v1/watch", .get, { [self] r, _ in try await watchHTTP(r) }),
            ("/v1/query", .post, { [self] r, _ in try await queryWhatIf(r) }),
            ("/v1/diff", .post, { [self] r, _ in try await diffWhatIf(r) }),
            ("/v1/append", .post, { [self] r, _ in try await append(r) }),
        ]
        for (path, method, handler) in routes {
            router.on(RouterPath(path), method: method, use: handler)
        }
        return router
    }

    /// The methods a path of the server takes, empty when it has no such path.
    static func methods(ofPath path: String) -> [HTTPRequest.Method] {
        switch path {
        case "/", "/openapi.json", "/v1/views", "/v1/log", "/v1/stats", "/v1/verify", "/v1/watch":
            return [.get]
        case "/v1/query", "/v1/diff":
            return [.get, .post]  // POST: what-if, the body appended in thought only (DESIGN §14)
        case "/v1/append":
            return [.post]
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 5 && parts[1] == "v1" && parts[2] == "objects" && !parts[3].isEmpty && !parts[4].isEmpty ? [.get] : []
        }
    }

    // MARK: - Answers

    /// A JSON document as the CLI prints it: one line.
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(text.utf8.count + 1)
        buffer.writeString(text)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: buffer))
    }

    /// ``OpenAPIDocument``'s bytes, made into a buffer once: each answer shares it.
    static let openAPIDocument = ByteBuffer(bytes: OpenAPIDocument.bytes)

    /// The inspector page under a strict content security policy: only its own script and style run (they carry a
    /// nonce made for this answer; no other inline script, no `eval`, no script or style of elsewhere), it talks to
    /// this server only, and no other page may frame it (`frame-ancestors 'none'`: no clickjacking).
    /// `relationships` is ``InspectorPage/relationships(of:)`` of the schema at the head.
    static func page(relationships: String) -> Response {
        var nonce = ""
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2 { nonce += String(random.next() as UInt64, radix: 16) }  // 128 random bits
        let policy = [
            "default-src 'none'", "script-src 'nonce-\(nonce)'", "style-src 'nonce-\(nonce)'", "connect-src 'self'",
            "img-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: policy,
            .init("X-Frame-Options")!: "DENY",
            .init("X-Content-Type-Options")!: "nosniff",
            .init("Referrer-Policy")!: "no-referrer",
            .cacheControl: "no-store",
        ], body: ResponseBody(byteBuffer: ByteBuffer(string: InspectorPage.page(nonce: nonce, relationships: relationships))))
    }

    /// Runs `body` (store reads: LMDB and decoding, CPU-bound) on a thread of its own instead of the cooperative
    /// pool, so that a long read (a big view, `verify`) never holds up the server's other requests.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// A value that is not `Sendable` handed from the task that made it to the one that uses it, and used by one at a
/// time (a ``MaterializedView`` made on a reading thread, then written by the response's writer thread).
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Turns every error into DESIGN §12's JSON answer.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var e = ServerError.from(error, action: request.uri.path == "/v1/append" ? .append : .read) { unexpected in
                context.logger.error("\(request.method) \(request.uri.path): \(String(describing: unexpected))")
            }
            // A path the server has, asked with another method: 405, not 404.
            let methods = ViewLogServer.methods(ofPath: request.uri.path)
            if e.code == .serveNotFound, !methods.isEmpty, !methods.contains(request.method) {
                let allow = methods.map(\.rawValue).joined(separator: ", ")
                e = ServerError(.methodNotAllowed, .methodNotAllowed,
                                "\(request.uri.path) takes \(methods.map(\.rawValue).joined(separator: " or ")) only", allow: allow)
            }
            var response = ViewLogServer.json(e.body, status: e.status)
            if let allow = e.allow { response.headers[.allow] = allow }
            if let seconds = e.retryAfter { response.headers[.retryAfter] = String(seconds) }
            return response
        }
    }
}

/// Checks the bearer token where it is needed: on `POST /v1/append`, and on every request of a server that
/// listens beyond loopback. No token is a 401, a wrong one a 403.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: ViewLogServer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let needsToken = server.options.tokenForEveryRequest || (request.method == .post && request.uri.path == "/v1/append")
        if needsToken { try server.checkToken(request.headers[.authorization]) }
        return try await next(request, context)
    }
}

extension ViewLogServer {
    /// Refuses an `Authorization` header that does not carry the server's bearer token.
    func checkToken(_ header: String?) throws {
        guard let token = options.token else {
            // Only a POST of a server without `--allow-append` gets here: there is no token to give.
            return
        }
        guard let header, header.hasPrefix("Bearer ") else {
            throw ServerError(.unauthorized, .unauthorized, "this request needs 'Authorization: Bearer TOKEN'")
        }
        let given = header.dropFirst("Bearer ".count).trimmingSpaces
        guard Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            throw ServerError(.forbidden, .forbidden, "the bearer token is not this server's")
        }
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {  // bounded by the longer one
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
