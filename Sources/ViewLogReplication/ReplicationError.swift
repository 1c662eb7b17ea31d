import ViewLog

/// Why a replication operation failed, naming the input, the stream or the seq at fault.
public enum ReplicationError: ViewLogError {
    /// No server of the list could be reached; nothing was appended.
    case unreachable(servers: [String], reason: String)
    /// The servers answered, but not as JetStream does (JetStream disabled, no stream leader in time, …).
    case server(stream: String, reason: String)
    /// No stream of that name exists (joining needs one).
    case noStream(String)
    /// The stream exists but is not a ViewLog stream, or its schema differs from the one given.
    case streamMismatch(stream: String, reason: String)
    /// The local log and the stream disagree at `seq`, the first seq that differs (same seq, other bytes; or a
    /// local seq the stream lacks): the stream lost, replaced or reordered transactions the replica holds.
    case diverged(stream: String, seq: UInt64, reason: String)
    /// The replica's next transaction, `next`, is no longer in the stream: the stream's limits (`max_msgs`,
    /// `max_age`) removed it, and the stream now starts at `firstSeq`. The replica cannot continue it without a gap;
    /// a new replica started from a backup at `firstSeq − 1` or later can (`init --from-backup`).
    case compacted(stream: String, firstSeq: UInt64, next: UInt64)
    /// The stream's message at `seq` fails its checksum, does not decode, or does not apply as logged.
    case corruptMessage(stream: String, seq: UInt64, reason: String)
    /// The store refused: bad input (naming the 0-based transaction and change), storage failure, …
    case store(StoreError)
    /// The store is not a replica (it records no stream).
    case notAReplica(path: String)
    /// The store was opened with `durable: false`: a replica must not lose commits the stream acknowledged.
    case notDurable(path: String)
    /// An append gave up after retrying; the reason says whether the transaction may be in the stream (a
    /// publish whose answer never came) or is not (other writers kept getting there first).
    case gaveUp(stream: String, reason: String)
    /// The NATS C client library (Debian's `libnats3.4`, which `libnats-dev` installs) could not be loaded; the
    /// reason is the loader's. Nothing was appended.
    case clientLibraryUnavailable(reason: String)

    public var description: String {
        switch self {
        case let .unreachable(servers, reason):
            return "no NATS server reachable at \(servers.joined(separator: ",")): \(reason)"
        case let .server(stream, reason): return "stream \(stream): \(reason)"
        case .noStream(let name): return "no stream \(name) on the servers"
        case let .streamMismatch(stream, reason): return "stream \(stream): \(reason)"
        case let .diverged(stream, seq, reason):
            return "the local log disagrees with stream \(stream) at seq \(seq): \(reason)"
        case let .compacted(stream, firstSeq, next):
            return "stream \(stream) starts at seq \(firstSeq): it no longer holds seq \(next), the next this replica needs (its limits removed it); start a replica from a backup at seq \(firstSeq - 1) or later (`viewlog init … --from-backup`)"
        case let .corruptMessage(stream, seq, reason):
            return "stream \(stream), seq \(seq): refused: \(reason)"
        case .store(let e): return e.description
        case .notAReplica(let path): return "\(path) is not a replica (it follows no stream)"
        case .notDurable(let path):
            return "\(path) is opened with durable: false; a replica needs durable commits (what the stream acknowledged must survive a crash)"
        case let .gaveUp(stream, reason): return "stream \(stream): gave up: \(reason)"
        case .clientLibraryUnavailable(let reason):
            return "cannot load the NATS client library (install Debian's libnats-dev): \(reason)"
        }
    }
}

extension ReplicationError {
    /// What kind of error, as a stable code (`replication.…`); a ``store(_:)`` error has its store error's code.
    public var code: ErrorCode {
        switch self {
        case .unreachable: return .unreachable
        case .server: return .serverRefused
        case .noStream: return .noStream
        case .streamMismatch: return .streamMismatch
        case .diverged: return .diverged
        case .compacted: return .streamCompacted
        case .corruptMessage: return .corruptMessage
        case .store(let error): return error.code
        case .notAReplica: return .notAReplica
        case .notDurable: return .notDurable
        case .gaveUp: return .gaveUp
        case .clientLibraryUnavailable: return .clientLibraryUnavailable
        }
    }
}

extension ErrorCode {
    /// No NATS server of the list could be reached.
    public static let unreachable = ErrorCode(rawValue: "replication.unreachable")
    /// The servers answered, but not as JetStream does.
    public static let serverRefused = ErrorCode(rawValue: "replication.server")
    /// No stream of that name.
    public static let noStream = ErrorCode(rawValue: "replication.no-stream")
    /// A stream that is not a ViewLog stream, or of another schema.
    public static let streamMismatch = ErrorCode(rawValue: "replication.stream-mismatch")
    /// The local log and the stream disagree.
    public static let diverged = ErrorCode(rawValue: "replication.diverged")
    /// A replica whose next transaction the stream no longer holds (its limits removed it).
    public static let streamCompacted = ErrorCode(rawValue: "replication.compacted")
    /// A stream message that fails its checksum, does not decode or does not apply.
    public static let corruptMessage = ErrorCode(rawValue: "replication.corrupt-message")
    /// A store that follows no stream.
    public static let notAReplica = ErrorCode(rawValue: "replication.not-a-replica")
    /// A replica store opened with `durable: false`.
    public static let notDurable = ErrorCode(rawValue: "replication.not-durable")
    /// An append that gave up after retrying.
    public static let gaveUp = ErrorCode(rawValue: "replication.gave-up")
    /// The NATS C client library could not be loaded.
    public static let clientLibraryUnavailable = ErrorCode(rawValue: "replication.client-library")
}
