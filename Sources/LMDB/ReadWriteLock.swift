#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process-local reader/writer lock (pthread's, which ThreadSanitizer understands). Every LMDB transaction of an environment holds it shared; growing the
/// map holds it exclusive, because `mdb_env_set_mapsize` needs no transaction open in this process.
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        let rc = pthread_rwlock_init(lock, nil)
        precondition(rc == 0, "pthread_rwlock_init failed: \(rc)")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockShared() {
        let rc = pthread_rwlock_rdlock(lock)
        precondition(rc == 0, "pthread_rwlock_rdlock failed: \(rc)")
    }

    func lockExclusive() {
        let rc = pthread_rwlock_wrlock(lock)
        precondition(rc == 0, "pthread_rwlock_wrlock failed: \(rc)")
    }

    /// Runs `body` holding the lock exclusively.
    func withExclusiveLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lockExclusive()
        defer { unlock() }
        return try body()
    }

    func unlock() {
        let rc = pthread_rwlock_unlock(lock)
        precondition(rc == 0, "pthread_rwlock_unlock failed: \(rc)")
    }
}
