/// Every bound of `viewlog serve` (DESIGN §12), in one place. A request over a bound is refused with a JSON error
/// that names it; none of them is a bound of the store (see ``ViewLog/Limits`` for those).
public enum ServerLimits {
    /// Largest request body (`POST /v1/append`): 16 MiB, the longest append input line the store takes
    /// (`Limits.lineBytesMax`). A bigger input is appended with the CLI (`append --chunked`).
    public static let requestBodyBytesMax = 16 * 1024 * 1024
    /// Longest query string of a request: 128 KiB, room for a predicate of `Limits.predicateBytesMax` percent-encoded
    /// twice over.
    public static let queryBytesMax = 128 * 1024
    /// Most query parameters of one request (a `var` repeated is counted each time).
    public static let queryParametersMax = 256
    /// Transactions of a `GET /v1/log` page when the request gives no `limit`.
    public static let logPageTransactionsDefault = 1_000
    /// Most transactions of one `GET /v1/log` page.
    public static let logPageTransactionsMax = 10_000
    /// Most `watch` subscribers (WebSocket and SSE together) at once. Idle ones cost no CPU: they share the
    /// store's head monitor (``ViewLog/LogStore/headUpdates()``).
    public static let watchSubscribersMax = 1_000
    /// Documents a `watch` subscriber may fall behind before it is sent `{"reload": true}` and a fresh query
    /// document (`--watch-buffer`).
    public static let watchBufferDocumentsDefault = 256
    /// Largest `--watch-buffer`.
    public static let watchBufferDocumentsMax = 65_536
    /// Longest token file (a token is a line of text, not a file).
    public static let tokenBytesMax = 4096

    // MARK: - Connections (DESIGN §12, "Under load and attack")

    /// Longest request target (path and query string): the query string's bound and 8 KiB of path; longer is a 414.
    public static let urlBytesMax = queryBytesMax + 8 * 1024
    /// Most bytes of a request's header fields (names and values together); more is a 431.
    public static let headerBytesMax = 64 * 1024
    /// Most header fields of one request; more is a 431.
    public static let headerFieldsMax = 256
    /// Most bytes of a request head (its URL and header fields) the HTTP parser takes before it gives up (a 431): room
    /// for the longest URL and the most header bytes, so that each of them is refused with its own status first.
    public static let headBytesMax = urlBytesMax + headerBytesMax + 8 * 1024
    /// Default time a connection may take to send a request's head, or be silent within its body, or sit idle
    /// between requests (`Options.requestTimeout`): past it, the connection is closed.
    public static let requestTimeoutSecondsDefault = 30
    /// Default time the server gives its connections to end on SIGTERM (`Options.shutdownGrace`) before it closes
    /// those still open (a client that holds an unread stream).
    public static let shutdownGraceSecondsDefault = 5
    /// Default number of expensive reads at once (`Options.expensiveReadsMax`): a query at a position below the head,
    /// a diff, `verify`. One more is a 503 with `Retry-After`.
    public static let expensiveReadsDefault = 4
    /// Longest the server reads (and drops) what a client still sends after an answer that ends its connection (a
    /// 413 while the body comes), so that the answer reaches it rather than a reset.
    public static let closeLingerSeconds = 2
    /// The `Retry-After` of a 503 (seconds).
    public static let retryAfterSeconds = 1
}
