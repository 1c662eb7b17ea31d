extension LogStore {
    /// The head as it moves: yields the head when the stream starts, then every new head — immediately for
    /// appends made through any `LogStore` of this process, and within `pollInterval` for appends made by
    /// other processes (read from the store's metadata in a short read transaction; no reader stays open).
    ///
    /// Several appends in quick succession may be reported as one new head (consumers read the range).
    /// The stream keeps only the newest head when its consumer is slow (`bufferingNewest(1)`), and ends when
    /// the consuming task is cancelled.
    public func headUpdates(pollInterval: Duration = .milliseconds(10)) -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        let last = Locked<UInt64?>(nil)
        let publish: @Sendable (UInt64) -> Void = { head in
            let isNew = last.withLock { (l: inout UInt64?) -> Bool in
                guard l.map({ head > $0 }) ?? true else { return false }
                l = head
                return true
            }
            if isNew { continuation.yield(head) }
        }
        let token = HeadNotifier.shared.register(path: environment.path, publish)
        let poller = Task { [self] in
            while !Task.isCancelled {
                if let head = try? self.head { publish(head) }
                try? await Task.sleep(for: pollInterval)
            }
        }
        continuation.onTermination = { _ in
            poller.cancel()
            HeadNotifier.shared.unregister(token)
        }
        return stream
    }

    /// Tells this process's head observers of `path` that the head is now `head`.
    func notifyHead(_ head: UInt64) {
        HeadNotifier.shared.notify(path: environment.path, head: head)
    }
}

/// In-process observers of store heads, by store path.
final class HeadNotifier: Sendable {
    static let shared = HeadNotifier()
    private let observers = Locked<[Int: (path: String, publish: @Sendable (UInt64) -> Void)]>([:])
    private let nextToken = Locked<Int>(0)

    func register(path: String, _ publish: @escaping @Sendable (UInt64) -> Void) -> Int {
        let token = nextToken.withLock { (n: inout Int) -> Int in n += 1; return n }
        observers.withLock { $0[token] = (path, publish) }
        return token
    }

    func unregister(_ token: Int) {
        _ = observers.withLock { $0.removeValue(forKey: token) }
    }

    func notify(path: String, head: UInt64) {
        let targets = observers.withLock { $0.values.filter { $0.path == path }.map(\.publish) }
        for publish in targets { publish(head) }
    }
}
