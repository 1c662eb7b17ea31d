import ViewLog

/// Why a replication operation failed, naming the input, the stream or the seq at fault.
public enum ReplicationError: Error, Sendable, CustomStringConvertible {
    /// No server of the list could be reached; nothing was appended.
    case unreachable(servers: [String], reason: String)
    /// The servers answered, but not as JetStream does (JetStream disabled, no stream leader in time, …).
    case server(stream: String, reason: String)
    /// No stream of that name exists (joining needs one).
    case noStream(String)
    /// The stream exists but is not a ViewLog stream, or its schema differs from the one given.
    case streamMismatch(stream: String, reason: String)
    /// The local log and the stream disagree at `seq` (same seq, other bytes; or a local seq the stream lacks).
    case diverged(stream: String, seq: UInt64, reason: String)
    /// The stream's message at `seq` fails its checksum, does not decode, or does not apply as logged.
    case corruptMessage(stream: String, seq: UInt64, reason: String)
    /// The store refused: bad input (naming the 0-based transaction and change), storage failure, …
    case store(StoreError)
    /// The store is not a replica (it records no stream).
    case notAReplica(path: String)
    /// An append gave up after retrying; the reason says whether the transaction may be in the stream (a
    /// publish whose answer never came) or is not (other writers kept getting there first).
    case gaveUp(stream: String, reason: String)

    public var description: String {
        switch self {
        case let .unreachable(servers, reason):
            return "no NATS server reachable at \(servers.joined(separator: ",")): \(reason)"
        case let .server(stream, reason): return "stream \(stream): \(reason)"
        case .noStream(let name): return "no stream \(name) on the servers"
        case let .streamMismatch(stream, reason): return "stream \(stream): \(reason)"
        case let .diverged(stream, seq, reason):
            return "the local log disagrees with stream \(stream) at seq \(seq): \(reason)"
        case let .corruptMessage(stream, seq, reason):
            return "stream \(stream), seq \(seq): refused: \(reason)"
        case .store(let e): return e.description
        case .notAReplica(let path): return "\(path) is not a replica (it follows no stream)"
        case let .gaveUp(stream, reason): return "stream \(stream): gave up: \(reason)"
        }
    }
}
