@_spi(Engine) import ViewLog

/// The documents a watch subscriber has not been sent yet: at most `capacity`. The producer (which follows the
/// head) never waits for the subscriber: when the subscriber is `capacity` documents behind, the producer's next
/// document does not fit, and the producer replaces everything unsent with `{"reload": true}` and a fresh query
/// document (``restart(with:)``) — the subscriber starts again from a snapshot, never from a gap.
final class WatchBuffer: Sendable {
    private struct State {
        var documents: [String] = []
        var first = 0
        var finished = false
        var waiter: CheckedContinuation<String?, Never>?
        var count: Int { documents.count - first }
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Adds `document`, or returns false (adding nothing) when the subscriber is already `capacity` behind. After
    /// ``finish()``, drops it.
    func push(_ document: String) -> Bool {
        let waiter = state.withLock { s -> CheckedContinuation<String?, Never>?? in
            if s.finished { return .some(nil) }  // nobody reads any more
            if let w = s.waiter {
                s.waiter = nil
                return .some(w)
            }
            guard s.count < capacity else { return .none }
            s.documents.append(document)
            return .some(nil)
        }
        switch waiter {
        case .none: return false
        case .some(let w?): w.resume(returning: document)
        case .some(nil): break
        }
        return true
    }

    /// Drops every unsent document and queues `documents` instead (the reload and the fresh query document; they
    /// may go over `capacity`: they are what brings the subscriber back).
    func restart(with documents: [String]) {
        var documents = documents
        let waiter = state.withLock { s -> CheckedContinuation<String?, Never>? in
            s.documents.removeAll(keepingCapacity: true)
            s.first = 0
            if let w = s.waiter, !documents.isEmpty {
                s.waiter = nil
                s.documents = Array(documents.dropFirst())
                return w
            }
            s.documents = documents
            documents = []
            return nil
        }
        waiter?.resume(returning: documents.first)
    }

    /// No more documents after those queued.
    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<String?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next document; nil when finished and drained, or when the waiting task is cancelled.
    func next() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let ready = state.withLock { s -> String?? in
                    if s.count > 0 {
                        let d = s.documents[s.first]
                        s.first += 1
                        if s.first == s.documents.count || s.first >= 1024 {
                            s.documents.removeFirst(s.first)
                            s.first = 0
                        }
                        return .some(d)
                    }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Documents queued now (for tests).
    var queued: Int { state.withLock { $0.count } }
}
