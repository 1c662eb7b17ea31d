@_spi(Replication) @_spi(Engine) import ViewLog
import CNATS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store bound to a NATS JetStream stream: the stream is the log, its sequence is the seq, and
/// every replica holds the same transactions under the same seqs.
///
/// - The stream's subject is `viewlog.NAME`; one message per transaction, in the log's binary encoding with its
///   checksum; each replica checks every message as it applies it (``ReplicationError/corruptMessage(stream:seq:reason:)``).
/// - The schema at position 0 is the stream's **description**: `viewlog-schema-v1:` then the schema's canonical
///   JSON in base64. A joining replica needs nothing but the stream. (nats-server limits a description to
///   4 KiB, so that schema is at most about 3 KiB of JSON; later schema changes are transactions of the log.)
/// - The local store records the stream it follows (its `meta`), and refuses local-only appends.
///
/// Reads never need a server: read the local ``store`` as any store. Writes go through ``append(_:committed:)``,
/// which validates against the replica caught up to the stream's last sequence, publishes with
/// `Nats-Expected-Last-Sequence` and a `Nats-Msg-Id`, and commits locally under the acknowledged sequence.
///
/// A `Replica` is `Sendable`; its operations are synchronous and bounded by ``ReplicationLimits``; use one
/// writer per replica at a time (appends of one `Replica` are serialized).
public final class Replica: Sendable {
    /// The local store. Read it freely; appending to it directly is refused (`StoreError/replica(path:stream:)`).
    public let store: LogStore
    /// The stream this replica follows.
    public let stream: String
    /// The stream's subject: `viewlog.` + ``stream``.
    public var subject: String { Replica.subject(of: stream) }
    let connection: NATSConnection
    /// Serializes appends and catch-ups of this replica (one LMDB writer, one expected-last-sequence at a time).
    let writer = Locked()
    /// When the local head was last checked against the stream (checked again after every reconnect).
    let headCheck = HeadCheck()
    /// Answers tests inject into this replica's reads of the stream (none outside tests).
    let faults = ReplicaFaults()
    /// What the servers made this replica warn about when it was created or joined (an old server:
    /// ``ReplicationWarning/oldServer(url:version:required:)``); empty for ``open(at:servers:)``.
    public let warnings: [ReplicationWarning]

    /// The description prefix that marks a ViewLog stream and carries its schema.
    static let descriptionPrefix = "viewlog-schema-v1:"

    static func subject(of stream: String) -> String { "viewlog." + stream }

    init(store: LogStore, stream: String, connection: NATSConnection, warnings: [ReplicationWarning] = []) {
        self.store = store
        self.stream = stream
        self.connection = connection
        self.warnings = warnings
    }

    /// The warnings the connected server calls for: its version, when older than ``ReplicationLimits/serverVersionMin``.
    static func serverWarnings(_ connection: NATSConnection) -> [ReplicationWarning] {
        guard let (url, version) = connection.serverVersion() else { return [] }
        return ReplicationWarning.forServer(url: url, version: version).map { [$0] } ?? []
    }

    /// Creates the local store at `path` as a replica of `stream`, creating the stream (file storage, `replicas`
    /// copies, default `min(3, servers.count)`) with `schema` when it does not exist, or joining it when it
    /// does (its schema must then equal `schema`). Joining a stream that holds transactions applies them all.
    /// A server older than ``ReplicationLimits/serverVersionMin`` is named in the replica's ``warnings``.
    /// - Throws: ``ReplicationError/unreachable(servers:reason:)`` before anything is created when no server
    ///   answers; ``ReplicationError/streamMismatch(stream:reason:)``; ``ReplicationError/store(_:)``.
    public static func create(at path: String, schema: Schema, servers: [String], stream: String,
                              replicas: Int? = nil) throws(ReplicationError) -> Replica {
        try create(at: path, schema: schema, servers: servers, stream: stream, replicas: replicas, maxMessages: nil)
    }

    /// ``create(at:schema:servers:stream:replicas:)``, creating a stream that keeps at most `maxMessages` messages
    /// (JetStream's `max_msgs`: the oldest go): how tests make a stream with limits.
    static func create(at path: String, schema: Schema, servers: [String], stream: String,
                       replicas: Int?, maxMessages: Int64?) throws(ReplicationError) -> Replica {
        try validate(stream: stream)
        let connection = try NATSConnection(servers: servers)
        let text = schema.json.text
        let description = descriptionPrefix + Base64.encode(Array(text.utf8))
        guard description.utf8.count <= ReplicationLimits.streamDescriptionBytesMax else {
            throw .streamMismatch(stream: stream, reason: "the schema has \(text.utf8.count) bytes; a stream carries at most \((ReplicationLimits.streamDescriptionBytesMax - descriptionPrefix.utf8.count) / 4 * 3) (nats-server's description limit, in base64)")
        }
        let deadline = Deadline(milliseconds: ReplicationLimits.appendPatienceMilliseconds)
        let existing = try patiently(stream, until: deadline) { () throws(NATSConnection.CallError) in try connection.streamState(stream) }
        if existing == nil {
            let copies = replicas ?? min(3, servers.count)
            guard copies >= 1 && copies <= 5 else {
                throw .streamMismatch(stream: stream, reason: "--replicas must be 1…5, not \(copies)")
            }
            // 10005, "no suitable peers for placement (peer offline)": a cluster whose nodes have not all
            // reported to its meta leader yet (seen right after the servers started); a cluster with too few
            // nodes for `copies` gets the same answer, after the patience.
            try patiently(stream, until: deadline, retrying: [10005]) { () throws(NATSConnection.CallError) in
                do throws(NATSConnection.CallError) {
                    try connection.addStream(stream, subject: subject(of: stream), description: description, replicas: copies,
                                             maxMessages: maxMessages)
                } catch where error.code == Int(JSStreamNameExistErr.rawValue) {
                    return  // another replica created it meanwhile: join it (its schema is checked there)
                }
            }
        }
        return try join(at: path, connection: connection, stream: stream, expectedSchema: schema)
    }

    /// Creates the local store at `path` as a replica of the existing `stream`, with the stream's schema, and
    /// applies every transaction the stream holds. A server older than ``ReplicationLimits/serverVersionMin`` is
    /// named in the replica's ``warnings``.
    /// - Throws: ``ReplicationError/noStream(_:)`` when it does not exist; the errors of ``create(at:schema:servers:stream:replicas:)``.
    public static func join(at path: String, servers: [String], stream: String) throws(ReplicationError) -> Replica {
        try validate(stream: stream)
        return try join(at: path, connection: try NATSConnection(servers: servers), stream: stream, expectedSchema: nil)
    }

    private static func join(at path: String, connection: NATSConnection, stream: String,
                             expectedSchema: Schema?) throws(ReplicationError) -> Replica {
        let deadline = Deadline(milliseconds: ReplicationLimits.appendPatienceMilliseconds)
        guard let state = try patiently(stream, until: deadline, { () throws(NATSConnection.CallError) in try connection.streamState(stream) }) else {
            throw .noStream(stream)
        }
        let schema = try streamSchema(state, stream: stream)
        if let expectedSchema, expectedSchema != schema {
            throw .streamMismatch(stream: stream, reason: "it exists with another schema (join it without --schema)")
        }
        let store: LogStore
        do {
            store = try LogStore.create(at: path, schema: schema)
            try store.setReplicaLink(ReplicaLink(stream: stream, servers: connection.servers))
        } catch {
            throw .store(error)
        }
        let replica = Replica(store: store, stream: stream, connection: connection, warnings: serverWarnings(connection))
        _ = try replica.sync()
        return replica
    }

    /// Opens the replica store at `path` (durable) and connects to its stream, at `servers` or at the servers it recorded.
    /// - Throws: ``ReplicationError/notAReplica(path:)``; ``ReplicationError/unreachable(servers:reason:)``.
    public static func open(at path: String, servers: [String]? = nil) throws(ReplicationError) -> Replica {
        let store: LogStore
        do { store = try LogStore.open(at: path) } catch { throw .store(error) }
        return try open(store, servers: servers)
    }

    /// Connects an open replica store to its stream, at `servers` or at the servers it recorded.
    /// - Throws: ``ReplicationError/notDurable(path:)`` for a store opened with `durable: false` (a commit the
    ///   stream acknowledged could vanish from it in a machine crash, and the replica would then not continue
    ///   its stream); ``ReplicationError/notAReplica(path:)``; ``ReplicationError/unreachable(servers:reason:)``.
    public static func open(_ store: LogStore, servers: [String]? = nil) throws(ReplicationError) -> Replica {
        guard store.isDurable else { throw .notDurable(path: store.path) }
        let link: ReplicaLink?
        do throws(StoreError) { link = try store.replicaLink } catch { throw .store(error) }
        guard let link else { throw .notAReplica(path: store.path) }
        let connection = try NATSConnection(servers: servers ?? link.servers)
        return Replica(store: store, stream: link.stream, connection: connection)
    }

    /// The schema a stream carries in its description.
    static func streamSchema(_ state: NATSConnection.StreamState, stream: String) throws(ReplicationError) -> Schema {
        guard state.description.hasPrefix(descriptionPrefix) else {
            throw .streamMismatch(stream: stream, reason: "it is not a ViewLog stream (its description carries no schema)")
        }
        guard let bytes = Base64.decode(String(state.description.dropFirst(descriptionPrefix.count))),
              let text = String(validating: bytes, as: UTF8.self) else {
            throw .streamMismatch(stream: stream, reason: "its schema is not base64 of UTF-8 text")
        }
        do {
            return try Schema(jsonText: text)
        } catch {
            throw .streamMismatch(stream: stream, reason: "its schema does not load: \(error)")
        }
    }

    static func validate(stream: String) throws(ReplicationError) {
        let allowed = stream.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
        guard !stream.isEmpty, stream.utf8.count <= 64, allowed else {
            throw .streamMismatch(stream: stream, reason: "a stream name is 1…64 letters, digits, '-' or '_'")
        }
    }

    /// Runs a client call, mapping its failure to ``ReplicationError/server(stream:reason:)``.
    static func call<T>(_ stream: String, _ body: () throws(NATSConnection.CallError) -> T) throws(ReplicationError) -> T {
        do { return try body() } catch {
            throw .server(stream: stream, reason: error.code != 0 ? "\(error.text) (JetStream error \(error.code))" : error.text)
        }
    }

    /// ``call(_:_:)``, retried with backoff until `deadline` while the servers answer with something other than
    /// JetStream's own errors (a timeout, no responders: a cluster still electing its leaders), or with one of
    /// `retried` (JetStream error codes that a cluster still forming gives).
    static func patiently<T>(_ stream: String, until deadline: Deadline, retrying retried: Set<Int> = [],
                             _ body: () throws(NATSConnection.CallError) -> T) throws(ReplicationError) -> T {
        var backoff = Backoff()
        while true {
            do { return try body() } catch {
                // 10008: JetStream temporarily unavailable.
                if error.isJetStreamError && error.code != 10008 && !retried.contains(error.code) || deadline.passed {
                    throw .server(stream: stream, reason: error.code != 0 ? "\(error.text) (JetStream error \(error.code))" : error.text)
                }
                backoff.wait()
            }
        }
    }

    // MARK: - State

    /// Where the replica stands against its stream.
    public func state() throws(ReplicationError) -> ReplicaState {
        let head: UInt64
        do throws(StoreError) { head = try store.head } catch { throw .store(error) }
        let state = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.streamState(stream) }
        guard let state else { throw .noStream(stream) }
        return ReplicaState(stream: stream, lastApplied: head, streamLast: state.lastSeq, leader: state.leader)
    }

    // MARK: - Catching up

    /// Applies every transaction of the stream past the local head, and returns the new head. Timeouts, lost
    /// servers and leader elections are retried for up to ``ReplicationLimits/appendPatienceMilliseconds``.
    /// - Throws: ``ReplicationError/diverged(stream:seq:reason:)`` when the local log is not a prefix of the
    ///   stream (naming the first seq that differs); ``ReplicationError/compacted(stream:firstSeq:next:)`` when the
    ///   stream's limits removed the next transaction this replica needs; ``ReplicationError/corruptMessage(stream:seq:reason:)`` for a
    ///   message that fails its checks, or that the stream's state says it holds but no answer gives (asked again
    ///   with backoff first: during a failover a server that does not hold it yet may answer).
    @discardableResult
    public func sync() throws(ReplicationError) -> UInt64 {
        try writer.withLock { () throws(ReplicationError) -> UInt64 in
            let deadline = Deadline(milliseconds: ReplicationLimits.appendPatienceMilliseconds)
            return try retrying(until: deadline, publishing: false) { () throws(ReplicationError) in try catchUp().head }
        }
    }

    /// The caught-up head and the message ids of the transactions applied on the way. Call with `writer` held.
    /// The local head is checked against the stream first when it was not since the connection last reconnected
    /// (or since ``HeadCheck/invalidate()``), and again before a message is applied when the connection
    /// reconnected meanwhile: a request made while the client reconnects is answered by the server it reconnects
    /// to, which may hold another stream.
    func catchUp() throws(ReplicationError) -> (head: UInt64, applied: [(seq: UInt64, messageID: String?)]) {
        var found = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.streamState(stream) }
        if found == nil, try localHead() > 0 {
            // A stream that is gone lost every transaction this replica holds — unless the answer came from a
            // server still restoring its streams after a restart: asked again, as a missing head is.
            var backoff = Backoff()
            for _ in 0..<ReplicationLimits.divergenceChecksMax where found == nil {
                backoff.wait()
                found = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.streamState(stream) }
            }
            guard found != nil else {
                throw .diverged(stream: stream, seq: 1, reason: "the stream no longer exists: it lost every transaction this replica holds (`viewlog sync --rebuild` rebuilds this replica from a new stream, keeping the old one)")
            }
        }
        guard let state = found else { throw .noStream(stream) }
        var head = try localHead()
        try ensureHeadChecked(head, streamLast: state.lastSeq, streamFirst: state.firstSeq)
        var applied: [(seq: UInt64, messageID: String?)] = []
        while head < state.lastSeq {
            let seq = head + 1
            let message = try heldMessage(seq, streamFirst: state.firstSeq, streamLast: state.lastSeq)
            try ensureHeadChecked(head, streamLast: state.lastSeq, streamFirst: state.firstSeq)
            try apply(message)
            applied.append((seq, message.messageID))
            head = seq
        }
        return (head, applied)
    }

    /// The message at `seq`, which the stream's state (`streamFirst`…`streamLast`) says it holds. While a server
    /// answers that it has none, it is asked again with backoff, up to ``ReplicationLimits/missingMessageChecksMax``
    /// times: during a failover the answer can come from a server that does not hold it yet (a leader paused across
    /// the election of another, resumed, answers from its own shorter log until it hears of the new term), and
    /// the next answer, from the new leader, holds it. A stream with limits may have removed it meanwhile: its state
    /// is asked after each "none", and a first seq past `seq` ends the wait (``checkNextHeld(_:streamFirst:of:)``).
    /// - Throws: ``ReplicationError/corruptMessage(stream:seq:reason:)`` when every answer says there is none (a
    ///   stream with a gap: never a silent skip); ``ReplicationError/compacted(stream:firstSeq:next:)``.
    func heldMessage(_ seq: UInt64, streamFirst: UInt64, streamLast: UInt64) throws(ReplicationError) -> NATSConnection.StoredMessage {
        var backoff = Backoff()
        for check in 0...ReplicationLimits.missingMessageChecksMax {
            if check > 0 { backoff.wait() }
            if let message = try storedMessage(seq) { return message }
            if let state = try Self.call(stream, { () throws(NATSConnection.CallError) in try connection.streamState(stream) }) {
                try Self.checkNextHeld(seq, streamFirst: state.firstSeq, of: stream)
            }
        }
        throw .corruptMessage(stream: stream, seq: seq, reason: "the stream has no message at this seq, though its state says it holds \(streamFirst)…\(streamLast) (asked \(ReplicationLimits.missingMessageChecksMax + 1) times)")
    }

    /// The one rule for a stream with limits (`max_msgs`, `max_age`): a replica goes on while the stream holds its
    /// next transaction `next`, and stops when the stream starts past it — never a gap. A stream that starts at
    /// `next` or below, or holds nothing yet (`streamFirst` 0), holds it or will.
    /// - Throws: ``ReplicationError/compacted(stream:firstSeq:next:)`` naming the first seq the stream holds.
    static func checkNextHeld(_ next: UInt64, streamFirst: UInt64, of stream: String) throws(ReplicationError) {
        if streamFirst > next { throw .compacted(stream: stream, firstSeq: streamFirst, next: next) }
    }

    /// One read of the stream's message at `seq` (`nil`: the server answered that it has none), unless a test
    /// injected that answer (``faults``).
    func storedMessage(_ seq: UInt64) throws(ReplicationError) -> NATSConnection.StoredMessage? {
        if faults.takeMissingAnswer(seq) { return nil }
        return try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.message(stream, seq: seq) }
    }

    /// The local store's head.
    func localHead() throws(ReplicationError) -> UInt64 {
        do throws(StoreError) { return try store.head } catch { throw .store(error) }
    }

    /// The local log's entry at `seq`.
    func localEntry(_ seq: UInt64) throws(ReplicationError) -> [UInt8]? {
        do throws(StoreError) { return try store.encodedTransaction(at: seq) } catch { throw .store(error) }
    }

    /// Commits one stream message locally; it must be the next seq. When another process sharing the store
    /// (a writer, a follower) committed that seq first, the local entry must hold the same bytes.
    func apply(_ message: NATSConnection.StoredMessage) throws(ReplicationError) {
        do {
            try store.commitEncoded(message.data, seq: message.seq)
        } catch {
            switch error {
            case .corrupt(_, let reason):
                throw .corruptMessage(stream: stream, seq: message.seq, reason: reason)
            case .positionPastHead(_, let head) where head >= message.seq:
                if try !holdsLocally(message) { throw try divergence(below: message.seq + 1) }
            default:
                throw .store(error)
            }
        }
    }

    /// Checks the head (``checkHead(_:streamLast:streamFirst:)``) unless it was checked since the connection last
    /// reconnected; the count is read after the answers the caller acts on, and again after the check (a
    /// reconnect during the check makes it check again).
    func ensureHeadChecked(_ head: UInt64, streamLast: UInt64, streamFirst: UInt64) throws(ReplicationError) {
        while true {
            let reconnects = connection.reconnects
            if headCheck.isCurrent(reconnects: reconnects) { return }
            try checkHead(head, streamLast: streamLast, streamFirst: streamFirst)
            headCheck.checked(reconnects: reconnects)
        }
    }

    /// Checks that the local log is a prefix of the stream: the local head exists in the stream with the same
    /// bytes. When it does not, the error names the first seq that differs (``divergence(below:)``). A stream with
    /// limits must still hold the replica's next transaction (``checkNextHeld(_:streamFirst:of:)``); a head that the
    /// stream, or the local store (compacted to it), no longer holds has no bytes to compare, and the replica goes on.
    private func checkHead(_ head: UInt64, streamLast: UInt64, streamFirst: UInt64) throws(ReplicationError) {
        try Self.checkNextHeld(head + 1, streamFirst: streamFirst, of: stream)
        guard head > 0, head >= streamFirst else { return }
        let local = try localEntry(head)
        if local == nil, try localHorizon() >= head { return }
        // Asked even when the stream's info ends before `head`: a cluster may answer the info from a
        // replica that is behind (seen in tools/replication-test); the message itself decides.
        var remote = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.message(stream, seq: head) }
        var backoff = Backoff()
        for _ in 0..<ReplicationLimits.divergenceChecksMax where remote == nil {
            backoff.wait()  // a real divergence is permanent; a lagging answer is not
            remote = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.message(stream, seq: head) }
        }
        guard let remote, remote.data == local else { throw try divergence(below: head + 1) }
    }

    /// Whether the local log holds `message` with the same bytes. A seq the local store compacted away (at or
    /// below its horizon) has no bytes left to compare: it counts as held.
    func holdsLocally(_ message: NATSConnection.StoredMessage) throws(ReplicationError) -> Bool {
        if let local = try localEntry(message.seq) { return local == message.data }
        return try localHorizon() >= message.seq
    }

    /// The local store's horizon (0 until compacted).
    func localHorizon() throws(ReplicationError) -> UInt64 {
        do throws(StoreError) { return try store.horizon } catch { throw .store(error) }
    }

    /// The error for a local log that is not a prefix of the stream somewhere below `end`: it names the first
    /// seq whose entry the stream lacks or holds with other bytes (the stream lost, replaced or reordered
    /// transactions this replica holds). Reads from the first seq both hold — the stream's first (its limits may
    /// have removed older ones) and the one after the local horizon — (an error path: never in normal operation).
    func divergence(below end: UInt64) throws(ReplicationError) -> ReplicationError {
        let hint = " (`viewlog sync --rebuild` rebuilds this replica from the stream, keeping the old one)"
        let streamFirst = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.streamState(stream) }?.firstSeq ?? 1
        var seq = max(streamFirst, try localHorizon() + 1, 1)
        while seq < end {
            let remote = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.message(stream, seq: seq) }
            guard let remote else {
                return .diverged(stream: stream, seq: seq, reason: "the stream has no transaction at this seq: it lost transactions this replica holds" + hint)
            }
            guard try localEntry(seq) == remote.data else {
                return .diverged(stream: stream, seq: seq, reason: "same seq, other bytes: the stream lost, replaced or reordered transactions this replica holds" + hint)
            }
            seq += 1
        }
        return .diverged(stream: stream, seq: end - 1, reason: "same seq, other bytes" + hint)
    }
}

/// Where a replica stands against its stream.
public struct ReplicaState: Sendable, Hashable {
    /// The stream the replica follows.
    public var stream: String
    /// The local head: the last seq applied.
    public var lastApplied: UInt64
    /// The stream's last sequence when asked.
    public var streamLast: UInt64
    /// The server that leads the stream (clustered streams), if the server said.
    public var leader: String?
    /// Transactions in the stream not yet applied locally.
    public var lag: UInt64 { streamLast > lastApplied ? streamLast - lastApplied : 0 }
}
