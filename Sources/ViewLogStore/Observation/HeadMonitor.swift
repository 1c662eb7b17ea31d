@_spi(Engine) @_spi(Replication) import ViewLogModel
@_spi(Engine) import ViewLogQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one watcher of a store's head in this process: every ``LogStore/headUpdates()`` stream of the store's
/// directory shares it, and it runs only while one exists.
///
/// It is told of commits, it does not poll: appends of this process publish their head directly
/// (``LogStore/notifyHead(_:)``); appends of other processes write `data.mdb`, which wakes the monitor's thread
/// through a ``FileWatch`` (inotify), and it reads the head in one short read transaction. A safety poll every
/// ``safetyPollMilliseconds`` catches what a notification could miss (none is known). When the store's files go
/// away, every stream ends with ``StoreError/notAStore(path:reason:)``.
///
/// Bounds: at most ``Limits/headSubscribersMax`` streams per store and process; each stream keeps only its
/// newest head; the kernel's event queue is read in 4 KiB reads and drained before the head is read, so a burst
/// of commits costs one head read per wakeup, not one per event; during a burst the thread tells a new head at
/// most every ``publishIntervalMinMilliseconds`` (the first at once).
final class HeadMonitor: Sendable {
    typealias Continuation = AsyncThrowingStream<UInt64, any Error>.Continuation

    private struct Subscriber {
        var continuation: Continuation
        /// The newest head this subscriber was given; it is never given an older one.
        var last: UInt64?
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextToken = 0
    }

    /// The running monitors of this process, by the environment's resolved path. A forked child finds its
    /// parent's monitors without their threads (fork copies one thread): it makes its own (see ``pid``).
    private static let running = Locked<[String: HeadMonitor]>([:])

    /// How often the monitor reads the head with no notification, in milliseconds: 2 s, or
    /// `VIEWLOG_HEAD_SAFETY_POLL_MS` from the environment (for tests that prove no poll is needed).
    static let safetyPollMilliseconds: Int32 = {
        if let text = getenv("VIEWLOG_HEAD_SAFETY_POLL_MS").map({ String(cString: $0) }),
           let value = Int32(text), value > 0 {
            return value
        }
        return 2000
    }()

    private let path: String
    private let pid: pid_t
    private let store: LogStore
    private let watch: FileWatch
    private let state = Locked(State())

    private init(store: LogStore) {
        self.store = store
        path = store.environment.path
        pid = getpid()
        watch = FileWatch(directory: store.environment.path, fileName: "data.mdb")
    }

    /// A new stream of `store`'s head: its current head first, then every newer one.
    static func subscribe(_ store: LogStore) -> AsyncThrowingStream<UInt64, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: UInt64.self, throwing: (any Error).self,
                                                                    bufferingPolicy: .bufferingNewest(1))
        let key = store.environment.path
        let pid = getpid()
        let added = running.withLock { (monitors: inout [String: HeadMonitor]) -> (HeadMonitor, Int, isNew: Bool)? in
            var isNew = false
            let monitor: HeadMonitor
            if let existing = monitors[key], existing.pid == pid {
                monitor = existing
            } else {
                monitor = HeadMonitor(store: store)
                monitors[key] = monitor
                isNew = true
            }
            let token = monitor.state.withLock { (s: inout State) -> Int? in
                guard s.subscribers.count < Limits.headSubscribersMax else { return nil }
                s.nextToken += 1
                s.subscribers[s.nextToken] = Subscriber(continuation: continuation, last: nil)
                return s.nextToken
            }
            guard let token else { return nil }
            return (monitor, token, isNew)
        }
        guard let (monitor, token, isNew) = added else {
            continuation.finish(throwing: StoreError.storage(
                "\(key): more than \(Limits.headSubscribersMax) head observers in this process"))
            return stream
        }
        continuation.onTermination = { _ in monitor.unsubscribe(token) }
        if isNew { startDetachedThread { monitor.run() } }
        // Read after the watch exists, so no commit falls between this read and the first notification.
        if let head = try? store.head { monitor.publish(head, to: token) }
        return stream
    }

    /// Gives `head` to every stream of the store at `path` in this process that has not seen it.
    static func notify(path: String, head: UInt64) {
        let pid = getpid()
        guard let monitor = running.withLock({ $0[path] }), monitor.pid == pid else { return }
        monitor.publish(head)
    }

    /// How many streams watch the store at `path` (0 when no monitor runs for it): for tests.
    static func subscriberCount(path: String) -> Int {
        running.withLock { $0[path] }.map { $0.state.withLock { $0.subscribers.count } } ?? 0
    }

    private func unsubscribe(_ token: Int) {
        HeadMonitor.running.withLock { (monitors: inout [String: HeadMonitor]) in
            let isLast = state.withLock { (s: inout State) -> Bool in
                s.subscribers.removeValue(forKey: token)
                return s.subscribers.isEmpty
            }
            guard isLast, monitors[path] === self else { return }
            monitors.removeValue(forKey: path)
            watch.stop()
        }
    }

    /// Gives `head` to the subscribers (or the one of `token`) that have not seen it.
    private func publish(_ head: UInt64, to token: Int? = nil) {
        let targets = state.withLock { (s: inout State) -> [Continuation] in
            var targets: [Continuation] = []
            for (t, subscriber) in s.subscribers where token == nil || t == token {
                guard subscriber.last.map({ head > $0 }) ?? true else { continue }
                s.subscribers[t]?.last = head
                targets.append(subscriber.continuation)
            }
            return targets
        }
        // Outside the lock: a stream's termination handler takes it.
        for continuation in targets { continuation.yield(head) }
    }

    /// The monitor's thread: waits for notifications until the last subscriber leaves or the store goes away.
    ///
    /// A writer's last write of a commit (its meta page) comes just *before* it makes the commit visible to
    /// readers (LMDB then stores the new transaction id in the lock file's shared memory, which notifies
    /// nobody), so a head read on that notification can still see the old head. When a notification brings no
    /// new head, the monitor reads again after 1, 2, 4 … ``recheckMillisecondsMax`` ms, then goes back to
    /// sleep; a commit that is not visible by then is caught by the safety poll.
    private func run() {
        // The newest head this thread read *and published*: a read it did not publish must never hold back a
        // later one (a subscriber may have read an older head before the thread started).
        var newest: UInt64?
        var recheck: Int32?
        while true {
            let event = watch.wait(timeoutMilliseconds: recheck ?? Self.safetyPollMilliseconds)
            switch event {
            case .stopped:
                return
            case .removed:
                let ended = HeadMonitor.running.withLock { (monitors: inout [String: HeadMonitor]) -> [Continuation] in
                    if monitors[path] === self { monitors.removeValue(forKey: path) }
                    return state.withLock { s in s.subscribers.values.map(\.continuation) }
                }
                let error = StoreError.notAStore(path: store.path, reason: "its data.mdb was removed while it was watched")
                for continuation in ended { continuation.finish(throwing: error) }
                return
            case .changed, .timedOut:
                let head: UInt64?
                do { head = try store.head } catch {
                    // An environment left without a map (another process grew it past this one's address
                    // space: `ulimit -v`) never reads again: end every stream with the error, as for a removed
                    // store, instead of watching in silence. Other failures are retried at the next event.
                    if store.environment.failure != nil {
                        let ended = HeadMonitor.running.withLock { (monitors: inout [String: HeadMonitor]) -> [Continuation] in
                            if monitors[path] === self { monitors.removeValue(forKey: path) }
                            return state.withLock { s in s.subscribers.values.map(\.continuation) }
                        }
                        for continuation in ended { continuation.finish(throwing: error) }
                        return
                    }
                    head = nil
                }
                if let head, newest.map({ head > $0 }) ?? true {
                    newest = head
                    recheck = nil
                    publish(head)
                    // A burst of commits: the first is told at once, the rest at most every interval, so that
                    // every follower does not compute a change set per commit while the writer competes with
                    // them for the processors. An isolated commit is never delayed.
                    if !watch.pause(milliseconds: Self.publishIntervalMinMilliseconds) { return }
                } else if event == .changed {
                    recheck = 1
                } else if let r = recheck {
                    recheck = r < Self.recheckMillisecondsMax ? r * 2 : nil
                }
            }
        }
    }

    /// The shortest time between two heads told by the monitor's thread (appends of this process are told at
    /// once, always).
    static let publishIntervalMinMilliseconds: Int32 = 5

    /// The longest wait between the reads that follow a notification that brought no new head.
    static let recheckMillisecondsMax: Int32 = 256
}
