#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex (ThreadSanitizer understands it; see tools/RELIABILITY.md), for the few shared states of
/// replication: one writer per replica, a stop flag, and when the head was last checked.
final class Mutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A flag that is set once and read from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = Mutex()
    private var isSet = false

    /// Whether it was set.
    var value: Bool { lock.withLock { isSet } }

    /// Sets it.
    func set() { lock.withLock { isSet = true } }
}

/// When a replica last checked its head against the stream: the connection's reconnection count then, or
/// `nil` before the first check or after something cast doubt on it (a wrong-last-sequence answer).
final class HeadCheck: @unchecked Sendable {
    private let lock = Mutex()
    private var checkedAtReconnects: UInt64?

    /// Whether the head was checked since the connection last reconnected (`reconnects` is its count now).
    func isCurrent(reconnects: UInt64) -> Bool { lock.withLock { checkedAtReconnects == reconnects } }

    /// Records a check made while the connection had reconnected `reconnects` times.
    func checked(reconnects: UInt64) { lock.withLock { checkedAtReconnects = reconnects } }

    /// Makes the next catch-up check the head again.
    func invalidate() { lock.withLock { checkedAtReconnects = nil } }
}
