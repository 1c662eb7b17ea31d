#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new detached thread: for loops that block in system calls (a head monitor waiting for the
/// kernel, a replica waiting for its server), which must not hold a thread of the concurrency pool.
@_spi(Replication) public func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        // Safety: immutable; handed from the creating thread to the new one exactly once.
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let made = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(made == 0, "pthread_create failed: \(made)")
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    if let thread { pthread_detach(thread) }
    #endif
}
