@_spi(Replication) import ViewLog
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
    /// A lost server or a leader election is waited out (with backoff); a message that fails its checks
    /// (``ReplicationError/corruptMessage(stream:seq:reason:)``) or a diverged local log ends the sequence with
    /// that error. The sequence ends when the consuming task is cancelled. Following runs on a thread of its
    /// own (the client's calls block), not on the concurrency pool.
    public func follow() -> AsyncThrowingStream<UInt64, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: UInt64.self, throwing: (any Error).self,
                                                                    bufferingPolicy: .bufferingNewest(1))
        let stop = LockedFlag()
        continuation.onTermination = { _ in stop.set() }
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
    func followLoop(stop: LockedFlag, applied: (UInt64) -> Void) throws(ReplicationError) {
        var backoff = Backoff()
        var reported: UInt64?
        func report(_ head: UInt64) {
            if reported.map({ head > $0 }) ?? true { reported = head; applied(head) }
        }
        while !stop.value {
            do throws(ReplicationError) {
                let head = try writerLock { () throws(ReplicationError) -> UInt64 in try catchUp().head }
                report(head)
                let subscription: OrderedSubscription
                do { subscription = try connection.orderedSubscription(subject: subject, startSeq: head + 1) } catch {
                    throw ReplicationError.server(stream: stream, reason: error.text)
                }
                while !stop.value {
                    let message: NATSConnection.StoredMessage?
                    do { message = try subscription.next(timeoutMilliseconds: ReplicationLimits.followPollMilliseconds) } catch {
                        throw ReplicationError.server(stream: stream, reason: error.text)
                    }
                    guard let message else { continue }
                    let newHead = try writerLock { () throws(ReplicationError) -> UInt64 in
                        let local: UInt64
                        do throws(StoreError) { local = try store.head } catch { throw .store(error) }
                        if message.seq <= local { return local }  // applied already (by an append of this replica)
                        if message.seq == local + 1 {
                            try apply(message)
                            return message.seq
                        }
                        return try catchUp().head  // a gap: read the missing ones by seq
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
