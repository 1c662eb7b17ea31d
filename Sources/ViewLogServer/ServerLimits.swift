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
}
