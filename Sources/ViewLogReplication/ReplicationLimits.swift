/// Every bound and timeout of replication, in one place. Times are in milliseconds unless named otherwise.
public enum ReplicationLimits {
    /// Connecting to one server.
    public static let connectTimeoutMilliseconds: Int64 = 2_000
    /// Waiting for a JetStream API answer (stream info, get message, create stream).
    public static let requestTimeoutMilliseconds: Int64 = 3_000
    /// Waiting for one publish's acknowledgement before retrying it (same message id: deduplicated).
    public static let publishTimeoutMilliseconds: Int64 = 2_000
    /// How long one append keeps retrying through a lost server or a leader election before it gives up.
    public static let appendPatienceMilliseconds: Int64 = 30_000
    /// Catch-up-and-retry rounds of one transaction when other writers keep getting there first.
    public static let wrongLastSequenceRetriesMax = 64
    /// First backoff between retries; doubles up to ``backoffMaxMilliseconds``, with jitter.
    public static let backoffInitialMilliseconds: Int64 = 5
    /// Largest backoff between retries.
    public static let backoffMaxMilliseconds: Int64 = 500
    /// The client's reconnection attempts per server, and the wait between them.
    public static let reconnectAttemptsMax: Int32 = 120
    /// Wait between reconnection attempts.
    public static let reconnectWaitMilliseconds: Int64 = 250
    /// Ping interval: how fast a dead server is noticed.
    public static let pingIntervalMilliseconds: Int64 = 1_000
    /// The stream's deduplication window for `Nats-Msg-Id` (2 minutes: far longer than an append's patience).
    public static let duplicateWindowNanoseconds: Int64 = 120_000_000_000
    /// Bytes of a stream description, where the schema lives (nats-server's own limit).
    public static let streamDescriptionBytesMax = 4_096
    /// How long a follower waits for the next message before it checks for cancellation.
    public static let followPollMilliseconds: Int64 = 200
    /// The oldest nats-server a replica runs on without a warning (``ReplicationWarning/oldServer(url:version:required:)``):
    /// 2.12.4 has the fixes of Jepsen's analysis of 2.12.1, and `sync_interval: always` (since 2.10) flushes
    /// before it acknowledges (DESIGN §9 "Durability of the stream").
    public static let serverVersionMin = "2.12.4"
    /// Times a local head missing from the stream is asked again before the replica is declared diverged.
    public static let divergenceChecksMax = 6
    /// Times a message that the stream's state says it holds, but a server answered it has none, is asked again
    /// (with backoff, about 2–4 s in all) before the replica calls it missing: during a failover the answer can
    /// come from a server that does not hold it yet (a leader paused across the election of another answers from
    /// its own, shorter log until it hears of the new term).
    public static let missingMessageChecksMax = 12
}
