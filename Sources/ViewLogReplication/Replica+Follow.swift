@_spi(Replication) @_spi(Engine) import ViewLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Replica {
    /// Follows the stream: applies every transaction of every writer to the local store as it arrives, and
    /// yields the new head after each one (several may be reported as one when the consumer is slow).
    ///
    /// It first catches up, then reads an ordered consumer of the stream from the next seq on. Contexts and
    /// views of this process on the store see the applied transactions as any append (their automatic merging
    /// and `headUpdates` are told), and so do other processes watching the store.
    ///
    /// A lost server or a leader election is waited out (with backoff). The local head is checked against the
    /// stream (the stream still holds it, with the same bytes) after every reconnect and before a message that
    /// does not continue the head is applied; a message already applied must hold the local bytes. A message that
    /// fails its checks (``ReplicationError/corruptMessage(stream:seq:reason:)``) or a stream that lost, replaced
    /// or reordered transactions this replica holds (``ReplicationError/diverged(stream:seq:reason:)``, naming the
    /// first seq that differs) ends the sequence with that error — never a silent skip. The sequence ends when the
    /// consuming task is cancelled. Following runs on a thread of its own (the client's calls block), not on the
    /// concurrency pool.
    public func follow() -> AsyncThrowingStream<UInt64, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: UInt64.self, throwing: (any Error).self,
                                                                    bufferingPolicy: .bufferingNewest(1))
        let stop = Locked(false)
        continuation.onTermination = { _ in stop.withLock { $0 = true } }
        startDetachedThread { [self] in
            do {
                try followLoop(stop: stop) { head in continuation.yield(head) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }

    /// Follows until `stop` is set; calls `applied` with each new head. Throws only errors no retry can fix.
    func followLoop(stop: Locked<Bool>, applied: (UInt64) -> Void) throws(ReplicationError) {
        var backoff = Backoff()
        var reported: UInt64?
        func report(_ head: UInt64) {
            if reported.map({ head > $0 }) ?? true { reported = head; applied(head) }
        }
        while !stop.withLock({ $0 }) {
            do throws(ReplicationError) {
                let head = try writerLock { () throws(ReplicationError) -> UInt64 in try catchUp().head }
                report(head)
                let subscription: OrderedSubscription
                do { subscription = try connection.orderedSubscription(subject: subject, startSeq: head + 1) } catch {
                    throw ReplicationError.server(stream: stream, reason: error.text)
                }
                while !stop.withLock({ $0 }) {
                    let message: NATSConnection.StoredMessage?
                    do { message = try subscription.next(timeoutMilliseconds: ReplicationLimits.followPollMilliseconds) } catch {
                        throw ReplicationError.server(stream: stream, reason: error.text)
                    }
                    guard let message else {
                        // Idle: after a reconnect the head is checked now (a restarted server may have lost or
                        // replaced the stream), not only when the next message comes.
                        if !headCheck.isCurrent(reconnects: connection.reconnects) {
                            report(try writerLock { () throws(ReplicationError) -> UInt64 in try catchUp().head })
                        }
                        continue
                    }
                    let newHead = try writerLock { () throws(ReplicationError) -> UInt64 in
                        let local = try localHead()
                        if message.seq <= local {
                            // Applied already (by an append of this replica, or delivered again): the same bytes,
                            // or the stream no longer holds what this replica holds.
                            if try !holdsLocally(message) { throw try divergence(below: message.seq + 1) }
                            return local
                        }
                        if message.seq == local + 1 && headCheck.isCurrent(reconnects: connection.reconnects) {
                            try apply(message)
                            return message.seq
                        }
                        // A gap, or the first message after a reconnect: the head is checked against the stream
                        // before anything is applied on top of it, then the missing ones are read by seq.
                        headCheck.invalidate()
                        return try catchUp().head
                    }
                    report(newHead)
                    backoff = Backoff()
                }
            } catch {
                guard case .server = error else { throw error }
                backoff.wait()  // a lost server, an election: wait and start again from the local head
            }
        }
    }
}
