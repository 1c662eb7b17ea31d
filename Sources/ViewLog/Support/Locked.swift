#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex.
///
/// ViewLog uses this rather than `Synchronization.Mutex` because ThreadSanitizer understands pthread mutexes
/// (it intercepts them), so `tools/sanitize thread` can check the code that shares state across threads; with
/// the futex-based `Mutex` it reported accesses inside `withLock` as races.
@_spi(Engine) public final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is only touched inside `withLock`, under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock holding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
