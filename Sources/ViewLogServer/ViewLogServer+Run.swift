import Hummingbird
import Logging
import ServiceLifecycle
@_spi(Engine) import ViewLog

extension ViewLogServer {
    /// Serves on `host`:`port` (0: a free port; `onRunning` is told the port once it listens) until SIGTERM or
    /// SIGINT, then stops within a bound whatever its clients do (DESIGN §12): watch streams end, connections with
    /// no request under way close at once, and those still open ``Options/shutdownGrace`` later (a client that holds
    /// an unread stream) are closed. A read that still runs ``shutdownAbandon`` after that (a `verify` of a big store
    /// on its thread) is abandoned: this returns, and the process may exit.
    public func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let outcome = Outcome()
        let service = BoundedShutdown(inner: application(host: host, port: port, onRunning: onRunning),
                                      bound: options.shutdownGrace + Self.shutdownAbandon) { outcome.settle(.abandoned) }
        var logger = Logger(label: "viewlog.serve", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        let running = Task {
            do {
                try await group.run()
                outcome.settle(.ended)
            } catch {
                outcome.settle(.failed(error))
            }
        }
        switch await outcome.value() {
        case .ended: return
        case .failed(let error): throw error
        case .abandoned:
            logger.warning("stopped with requests still running \(Self.shutdownAbandon) after the connections were closed")
            running.cancel()
        }
    }

    /// How long after ``Options/shutdownGrace`` a stopping server waits for its last handlers before it gives up on
    /// them.
    static let shutdownAbandon = Duration.seconds(2)

    /// How ``run(host:port:onRunning:)`` ended: the first to settle wins.
    final class Outcome: Sendable {
        enum Value: Sendable { case ended, failed(any Error), abandoned }
        private struct State {
            var value: Value?
            var waiter: CheckedContinuation<Value, Never>?
        }
        private let state = Locked(State())

        func settle(_ value: Value) {
            let waiter = state.withLock { s -> CheckedContinuation<Value, Never>? in
                guard s.value == nil else { return nil }
                s.value = value
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: value)
        }

        func value() async -> Value {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { s -> Value? in
                    if let v = s.value { return v }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// `inner`, and a deadline that starts with its graceful shutdown: `bound` later, `abandon` is called if it has not
/// ended by then.
struct BoundedShutdown<Inner: Service>: Service {
    let inner: Inner
    let bound: Duration
    let abandon: @Sendable () -> Void

    func run() async throws {
        let (bound, abandon) = (self.bound, self.abandon)
        try await withGracefulShutdownHandler {
            try await inner.run()
        } onGracefulShutdown: {
            Task {
                try? await Task.sleep(for: bound)
                abandon()
            }
        }
    }
}
