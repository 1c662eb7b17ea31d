#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock: the package's one lock type, for every layer (ViewLog hands it on to the layers above
/// as `@_spi(Engine)`, so none of them imports this module).
///
/// A pthread mutex and condition variable rather than `Synchronization.Mutex`: ThreadSanitizer intercepts
/// pthread's calls and so sees the order they give, but not the futex that `Mutex` sleeps on when contended, and
/// `tools/sanitize thread` then reports the accesses inside its `withLock` as races (tools/RELIABILITY.md).
///
/// ``withLock(when:_:)`` waits until the value allows the body to run: ``LMDBEnvironment`` shares its map between
/// its transactions and a resize that way, without a second kind of lock.
public final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` and `waiters` are only touched with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value
    /// Callers of ``withLock(when:_:)`` asleep on `changed`: every other caller wakes them only when there are any.
    private var waiters = 0

    /// A lock holding `value`.
    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        rc = pthread_cond_init(changed, nil)
        precondition(rc == 0, "pthread_cond_init failed: \(rc)")
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Not reentrant: `body` must not take this lock again.
    public func withLock<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value, holding the lock, once `condition` holds for it: until then the caller sleeps,
    /// and the lock is free for others (each of their `withLock` calls may change the value, and wakes it).
    public func withLock<T, E: Error>(when condition: (borrowing Value) -> Bool,
                                      _ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        lock()
        defer { unlock() }
        while !condition(value) {  // bounded: each pass waits for another caller's change
            waiters += 1
            let rc = pthread_cond_wait(changed, mutex)
            waiters -= 1
            precondition(rc == 0, "pthread_cond_wait failed: \(rc)")
        }
        return try body(&value)
    }

    private func lock() {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "pthread_mutex_lock failed: \(rc)")
    }

    /// Releases the lock, first waking the callers waiting for a change, if any.
    private func unlock() {
        if waiters > 0 { pthread_cond_broadcast(changed) }
        let rc = pthread_mutex_unlock(mutex)
        precondition(rc == 0, "pthread_mutex_unlock failed: \(rc)")
    }
}

extension Locked where Value == Void {
    /// A lock holding nothing: it serializes the bodies of its `withLock` calls.
    public convenience init() {
        self.init(())
    }

    /// Runs `body` holding the lock.
    public func withLock<T, E: Error>(_ body: () throws(E) -> sending T) throws(E) -> sending T {
        try withLock { (_: inout sending Void) throws(E) -> sending T in try body() }
    }
}
