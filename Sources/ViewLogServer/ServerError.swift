import Hummingbird
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// An error answer of the server: an HTTP status and the body `{"error": {"code": …, "message": …}}`, the code a
/// library ``ViewLog/ErrorCode`` (or one of the server's own, `serve.…`), the message the CLI's error line
/// without `error: ` (DESIGN §12).
struct ServerError: Error, CustomStringConvertible {
    let status: HTTPResponse.Status
    let code: ErrorCode
    let message: String
    /// The `Allow` header of a 405: the methods the path takes (RFC 9110).
    var allow: String?
    /// The `Retry-After` header of a 503 (seconds).
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, allow: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.allow = allow
        self.retryAfter = retryAfter
    }

    var description: String { "\(status.code) \(code.rawValue): \(message)" }

    /// The JSON body (one line, as the CLI writes a document).
    var body: String {
        JSONValue.object([("error", .object([("code", .string(code.rawValue)), ("message", .string(oneLine(message)))]))]).text
    }

    /// What a request does, for the status of a library error: a bad append input is a 400 whatever it names.
    enum Action { case read, append }

    /// The answer for any error a handler threw. An error of neither the library nor the server (one of SwiftNIO or
    /// Hummingbird) is a 500 whose message names no internal type: `unexpected` is told it, to log.
    static func from(_ error: any Error, action: Action = .read, unexpected: (any Error) -> Void = { _ in }) -> ServerError {
        if let e = error as? ServerError { return e }
        if let e = error as? any ViewLogError {
            return ServerError(status(for: e.code, action: action), e.code, e.description)
        }
        if let e = error as? HTTPError {
            switch e.status {
            case .notFound: return .notFound("no such path")
            case .contentTooLarge: return .bodyTooLarge
            default: return ServerError(e.status, .serveHTTP, e.body ?? e.status.reasonPhrase)
            }
        }
        // A body collected past its bound (a chunked body has no length to refuse it by beforehand).
        if let e = error as? any HTTPResponseError, e.status == .contentTooLarge { return .bodyTooLarge }
        unexpected(error)
        return ServerError(.internalServerError, .serveInternal, "the server failed to answer this request (its log says why)")
    }

    /// A request body over ``ServerLimits/requestBodyBytesMax``.
    static let bodyTooLarge = tooLarge("the request body is larger than \(ServerLimits.requestBodyBytesMax) bytes")

    /// DESIGN §12's statuses: 400 bad input, 404 unknown view, entity or object, 409 conflict, 413 too large, 500
    /// storage.
    static func status(for code: ErrorCode, action: Action) -> HTTPResponse.Status {
        switch code {
        case .conflict, .replicaAppend: return .conflict
        case .inputTooLarge, .lineTooLong, .tooManyChanges: return .contentTooLarge
        case .storage, .corrupt, .notAStore, .unsupportedFormat, .unsupportedFeature: return .internalServerError
        case .unknownView, .unknownEntity, .objectNotFound: return action == .append ? .badRequest : .notFound
        default: break
        }
        if code.rawValue.hasPrefix("codec.") { return .internalServerError }
        return .badRequest
    }

    static func badParameter(_ message: String) -> ServerError { ServerError(.badRequest, .invalidParameter, message) }
    static func notFound(_ message: String) -> ServerError { ServerError(.notFound, .serveNotFound, message) }
    static func tooLarge(_ message: String) -> ServerError { ServerError(.contentTooLarge, .serveTooLarge, message) }
}

extension ErrorCode {
    /// A path the server does not have.
    static let serveNotFound = ErrorCode(rawValue: "serve.not-found")
    /// A method the path does not take (or `POST /v1/append` on a server without `--allow-append`).
    static let methodNotAllowed = ErrorCode(rawValue: "serve.method-not-allowed")
    /// A request without the bearer token the server needs.
    static let unauthorized = ErrorCode(rawValue: "serve.unauthorized")
    /// A request with a token that is not the server's.
    static let forbidden = ErrorCode(rawValue: "serve.forbidden")
    /// A request body or query string over its bound (``ServerLimits``).
    static let serveTooLarge = ErrorCode(rawValue: "serve.too-large")
    /// `GET /v1/watch` that asks for neither a WebSocket nor Server-Sent Events.
    static let notAStream = ErrorCode(rawValue: "serve.not-a-stream")
    /// More watch subscribers than ``ServerLimits/watchSubscribersMax``.
    static let tooManySubscribers = ErrorCode(rawValue: "serve.too-many-subscribers")
    /// Another error of HTTP itself.
    static let serveHTTP = ErrorCode(rawValue: "serve.http")
    /// A request whose `Host` names neither the listen address nor one given by `--allow-host` (a page of another
    /// site that reaches the server through a name of its own: DNS rebinding).
    static let forbiddenHost = ErrorCode(rawValue: "serve.forbidden-host")
    /// A WebSocket upgrade from another site's page: its `Origin` is neither the server's own nor one given by
    /// `--allow-origin`.
    static let forbiddenOrigin = ErrorCode(rawValue: "serve.forbidden-origin")
    /// A request without a `Host` header (HTTP/1.1 needs one).
    static let missingHost = ErrorCode(rawValue: "serve.missing-host")
    /// A request target longer than ``ServerLimits/urlBytesMax``.
    static let uriTooLong = ErrorCode(rawValue: "serve.uri-too-long")
    /// Request header fields over ``ServerLimits/headerBytesMax`` or ``ServerLimits/headerFieldsMax``.
    static let headersTooLarge = ErrorCode(rawValue: "serve.headers-too-large")
    /// More expensive reads at once than the server takes (`Options.expensiveReadsMax`): try again after
    /// `Retry-After`.
    static let busy = ErrorCode(rawValue: "serve.busy")
    /// An error of the server's machinery, not of the request or the store (logged; its answer names no type).
    static let serveInternal = ErrorCode(rawValue: "serve.internal")
}

/// `text` on one line (a message is one line, as the CLI prints it).
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
}
