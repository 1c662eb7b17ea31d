import Hummingbird
@_spi(Engine) import ViewLog
import ViewLogDocuments

extension ViewLogServer {
    /// `POST /v1/append[?author=A]` (body: append input, JSON lines; the token checked by ``TokenMiddleware``):
    /// `{"seqs": [...]}`, all lines in one write or none; only with `--allow-append`.
    func append(_ request: Request) async throws -> Response {
        guard options.allowAppend else {
            throw ServerError(.methodNotAllowed, .methodNotAllowed, "this server is read-only (serve --allow-append takes appends)",
                              allow: "")
        }
        let parameters = try RequestParameters(query: request.uri.query)
        try parameters.check(known: ["author"])
        let author = parameters.string("author") ?? options.author
        let text = try await Self.bodyText(request, unreadable: "nothing appended")
        let store = self.store
        return try await blocking {
            let seqs = try AppendInOneWrite.append(store, text: text, author: author)
            // null for a transaction whose changes by predicate matched nothing (it appended nothing).
            return Self.json(JSONValue.object([("seqs", .array(seqs.map { $0 == 0 ? .null : .int(Int64($0)) }))]).text)
        }
    }
}

extension ViewLogServer {
    /// A request's body as text: append input for `POST /v1/append` and the what-if reads.
    /// - Throws: 413 over ``ServerLimits/requestBodyBytesMax``; 400 when it is not UTF-8 (`unreadable` ends the message).
    static func bodyText(_ request: Request, unreadable: String) async throws -> String {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > ServerLimits.requestBodyBytesMax {
            throw ServerError.tooLarge("the request body is larger than \(ServerLimits.requestBodyBytesMax) bytes")
        }
        var body = try await request.body.collect(upTo: ServerLimits.requestBodyBytesMax)
        guard let bytes = body.readBytes(length: body.readableBytes), let text = String(validating: bytes, as: UTF8.self) else {
            throw ServerError(.badRequest, .malformedJSON, "the request body is not UTF-8 text; \(unreadable)")
        }
        return text
    }
}
