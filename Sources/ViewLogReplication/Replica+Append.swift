@_spi(Replication) import ViewLog
import CNATS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append through a replica that stopped at one transaction: the seqs committed before it stay committed.
public struct ReplicaAppendError: ViewLogError {
    /// The 0-based index of the first transaction not appended.
    public var transaction: Int
    /// The seqs of the transactions before it, committed (in the stream and locally).
    public var committed: [UInt64]
    /// Why it stopped. For bad input, ``ReplicationError/store(_:)`` with a `StoreError/invalidChange(transaction:change:reason:)`
    /// whose `transaction` is 0 (the transaction is validated alone).
    public var reason: ReplicationError

    /// The code of ``reason``.
    public var code: ErrorCode { reason.code }

    public var description: String {
        "transaction \(transaction + 1): \(reason)" + (committed.isEmpty ? "" : " (seqs \(committed.map(String.init).joined(separator: ", ")) committed before it)")
    }
}

extension Replica {
    /// Appends `requests` through the stream, **transaction by transaction**, and returns their seqs (the
    /// stream's sequences). For each transaction:
    ///
    /// 1. catch up to the stream's last sequence (a transaction of ours already there — a publish whose
    ///    acknowledgement was lost — is recognised by its message id and not published again, also when another
    ///    process sharing the store, such as a `watch`, committed it first); the first
    ///    attempt of a replica that checked its head since its connection last reconnected skips this and lets
    ///    step 3's expectation decide;
    /// 2. validate it against the (caught-up) replica (bad input: an error, nothing of it appended);
    /// 3. publish its encoded entry with `Nats-Expected-Last-Sequence` = the last sequence and a `Nats-Msg-Id`
    ///    made once per transaction, retrying the same publish through timeouts, lost servers and leader
    ///    elections (the server deduplicates it) for up to ``ReplicationLimits/appendPatienceMilliseconds``;
    /// 4. on "wrong last sequence" (another writer got there first, or the stream lost transactions): check
    ///    the local head against the stream again (``ReplicationError/diverged(stream:seq:reason:)`` naming the
    ///    first seq that differs), back off, and go to 1, at most
    ///    ``ReplicationLimits/wrongLastSequenceRetriesMax`` times;
    /// 5. commit locally under the acknowledged sequence (a crash before this is repaired by the next catch-up:
    ///    the transaction comes back from the stream).
    ///
    /// - Parameters:
    ///   - requests: the transactions, appended one after the other, each as one message of the stream.
    ///   - committed: called with each seq as soon as it is committed locally (0 for a transaction whose changes by
    ///     predicate all matched nothing: it appends nothing).
    /// - Throws: ``ReplicaAppendError`` naming the first transaction not appended and the seqs committed before it.
    @discardableResult
    public func append(_ requests: [TransactionRequest],
                       committed: (UInt64) -> Void = { _ in }) throws(ReplicaAppendError) -> [UInt64] {
        var seqs: [UInt64] = []
        for (index, request) in requests.enumerated() {
            do throws(ReplicationError) {
                guard !request.changes.isEmpty else { throw ReplicationError.store(.emptyTransaction(transaction: 0)) }
                let seq = try appendOne(request, messageID: Self.newMessageID())
                seqs.append(seq)
                committed(seq)
            } catch {
                throw ReplicaAppendError(transaction: index, committed: seqs, reason: error)
            }
        }
        return seqs
    }

    /// A fresh message id: 128 random bits in hex. Unique per transaction, kept across its retries.
    static func newMessageID() -> String {
        var rng = SystemRandomNumberGenerator()
        let a = rng.next() as UInt64, b = rng.next() as UInt64
        let hex = String(a, radix: 16) + "-" + String(b, radix: 16)
        return "viewlog-" + hex
    }

    /// Appends one transaction under `messageID`. `publishedAfter`: a publish of this id was already made
    /// expecting that last sequence (its answer lost), so it may be in the stream after it.
    func appendOne(_ request: TransactionRequest, messageID: String,
                   publishedAfter previous: UInt64? = nil) throws(ReplicationError) -> UInt64 {
        try writerLock { () throws(ReplicationError) -> UInt64 in
            let deadline = Deadline(milliseconds: ReplicationLimits.appendPatienceMilliseconds)
            var backoff = Backoff()
            var rounds = 0
            // The expected last sequence of this transaction's first publish: a publish whose answer was lost is
            // in the stream after it, if anywhere.
            var publishedAfter = previous
            while true {
                // The first round publishes against the local head without asking the stream for its last
                // sequence (one round trip less): the server's expected-last-sequence check refuses it if the
                // stream has more, and only then is the catch-up needed. The local head is checked against the
                // stream after every reconnect (and after a wrong-last-sequence answer), so the first append of a
                // replica, and the first after a reconnect, catches up first.
                if rounds > 0 || publishedAfter != nil || !headCheck.isCurrent(reconnects: connection.reconnects) {
                    let caughtUp = try retrying(until: deadline) { () throws(ReplicationError) in try catchUp() }
                    if let mine = caughtUp.applied.first(where: { $0.messageID == messageID }) { return mine.seq }
                    if let after = publishedAfter {
                        // Another process sharing the store (a `watch` following the stream) may have committed
                        // our earlier publish before this catch-up: look for its id among the seqs it applied.
                        let applied = Set(caughtUp.applied.map(\.seq))
                        let found = try retrying(until: deadline) { () throws(ReplicationError) -> UInt64? in
                            try published(messageID, after: after, through: caughtUp.head, skipping: applied)
                        }
                        if let found { return found }
                    }
                }
                let prepared: (seq: UInt64, bytes: [UInt8])
                do throws(StoreError) { prepared = try store.prepareEncoded(request) } catch { throw .store(error) }
                if prepared.seq == 0 { return 0 }  // its changes by predicate matched nothing: nothing to publish
                // Validated against the state at `prepared.seq - 1` — past the caught-up head when another process
                // sharing this store (a follower, a writer) committed meanwhile: that is the state to expect.
                // A publish retried through timeouts keeps its id and expectation, so its answer is definite:
                // stored, or refused as wrong last sequence. A retry of a stored one is answered "duplicate"
                // (nats-server 2.9) or "wrong last sequence" (2.12 checks the expectation first): then the
                // catch-up of the next round finds it by its message id.
                if publishedAfter == nil { publishedAfter = prepared.seq - 1 }
                let outcome = try retrying(until: deadline) { () throws(ReplicationError) in
                    try publish(prepared.bytes, messageID: messageID, expectedLastSeq: prepared.seq - 1)
                }
                switch outcome {
                case let .stored(seq, duplicate: false):
                    try retrying(until: deadline) { () throws(ReplicationError) in
                        try commitAcknowledged(prepared.bytes, seq: seq)
                    }
                    return seq
                case let .stored(seq, duplicate: true):
                    // An earlier publish of this transaction (its acknowledgement lost) is stored at `seq`, with
                    // the bytes of that attempt: take them from the stream.
                    let head = try retrying(until: deadline) { () throws(ReplicationError) in try catchUp().head }
                    guard head >= seq else {
                        throw .diverged(stream: stream, seq: seq, reason: "the stream acknowledged seq \(seq) but ends at \(head)")
                    }
                    return seq
                case .wrongLastSequence:
                    // Another writer — or a stream that lost or replaced transactions: the catch-up checks the
                    // head again before anything is validated against it.
                    headCheck.invalidate()
                    rounds += 1
                    guard rounds <= ReplicationLimits.wrongLastSequenceRetriesMax else {
                        throw .gaveUp(stream: stream, reason: "other writers got there first \(rounds) times in a row; nothing of this transaction was appended")
                    }
                    if rounds > 1 { backoff.wait() }  // the first refusal may only mean this replica was behind
                }
            }
        }
    }

    /// The seq in `after+1 … through`, outside `skipping`, whose stream message carries `messageID`, or `nil`.
    private func published(_ messageID: String, after: UInt64, through head: UInt64,
                           skipping: Set<UInt64>) throws(ReplicationError) -> UInt64? {
        guard head > after else { return nil }
        for seq in (after + 1)...head where !skipping.contains(seq) {
            let message = try Self.call(stream) { () throws(NATSConnection.CallError) in try connection.message(stream, seq: seq) }
            if message?.messageID == messageID { return seq }
        }
        return nil
    }

    /// Publishes once; a failure the server may recover from (a timeout, a lost connection, no leader yet) is
    /// thrown as ``RetryableError``.
    private func publish(_ bytes: [UInt8], messageID: String,
                         expectedLastSeq: UInt64) throws(ReplicationError) -> NATSConnection.PublishOutcome {
        do {
            return try connection.publish(bytes, subject: subject, messageID: messageID,
                                          expectedLastSeq: expectedLastSeq, expectedStream: stream)
        } catch {
            if error.status == NATS_MAX_PAYLOAD {
                throw .server(stream: stream, reason: "the transaction's \(bytes.count) bytes exceed the servers' max_payload; nothing appended")
            }
            throw .server(stream: stream, reason: error.text)
        }
    }

    /// Makes the local log hold `bytes` at `seq`, acknowledged by the stream: commits it when the head is just
    /// before it, catches up when it is further behind (then the transaction comes from the stream), and checks
    /// the local entry when another writer of this store (a follower) already committed it.
    private func commitAcknowledged(_ bytes: [UInt8], seq: UInt64) throws(ReplicationError) {
        var rounds = 0
        while true {
            rounds += 1
            let head: UInt64
            do throws(StoreError) { head = try store.head } catch { throw .store(error) }
            if head >= seq {
                let local: [UInt8]?
                do throws(StoreError) { local = try store.encodedTransaction(at: seq) } catch { throw .store(error) }
                guard local == bytes else {
                    throw .diverged(stream: stream, seq: seq, reason: "the stream acknowledged other bytes than the local entry")
                }
                return
            }
            if head + 1 == seq {
                do {
                    try store.commitEncoded(bytes, seq: seq)
                    return
                } catch where rounds < 3 {
                    if case .positionPastHead = error { continue }  // another process committed it meanwhile
                    throw .store(error)
                } catch {
                    throw .store(error)
                }
            }
            _ = try catchUp()
        }
    }

    /// Runs `body` (under the replica's writer lock, held by the caller), retrying ``ReplicationError/server(stream:reason:)``
    /// failures with backoff until `deadline`. `publishing`: the error then says a transaction may be in the stream.
    func retrying<T>(until deadline: Deadline, publishing: Bool = true,
                     _ body: () throws(ReplicationError) -> T) throws(ReplicationError) -> T {
        var backoff = Backoff()
        while true {
            do { return try body() } catch {
                guard case .server(_, let reason) = error, !reason.contains("max_payload") else { throw error }
                guard !deadline.passed else {
                    throw .gaveUp(stream: stream, reason: "no answer from the servers for \(ReplicationLimits.appendPatienceMilliseconds) ms (last: \(reason))"
                                  + (publishing ? "; a transaction published before may be in the stream: `sync` shows it" : ""))
                }
                backoff.wait()
            }
        }
    }

    /// Runs `body` holding this replica's writer lock.
    func writerLock<T: Sendable>(_ body: () throws(ReplicationError) -> T) throws(ReplicationError) -> T {
        try writer.withLock { () throws(ReplicationError) -> T in try body() }
    }
}

/// A point in time after which retrying stops (monotonic clock).
struct Deadline {
    private let end: UInt64

    init(milliseconds: Int64) { end = Deadline.nowNanoseconds() + UInt64(milliseconds) * 1_000_000 }

    var passed: Bool { Deadline.nowNanoseconds() >= end }

    static func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// Exponential backoff with jitter: ``ReplicationLimits/backoffInitialMilliseconds`` doubling up to
/// ``ReplicationLimits/backoffMaxMilliseconds``.
struct Backoff {
    private var current = ReplicationLimits.backoffInitialMilliseconds

    mutating func wait() {
        let jittered = Int64.random(in: current / 2 ... current)
        usleep(useconds_t(jittered * 1_000))
        current = min(current * 2, ReplicationLimits.backoffMaxMilliseconds)
    }
}
