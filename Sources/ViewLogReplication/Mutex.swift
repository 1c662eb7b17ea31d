#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex (ThreadSanitizer understands it; see tools/RELIABILITY.md), for the few shared states of
/// replication: one writer per replica, and a checked flag.
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
