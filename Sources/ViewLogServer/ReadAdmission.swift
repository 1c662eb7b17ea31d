@_spi(Engine) import ViewLog

/// A bound on the expensive reads under way at once (DESIGN §12): a query at a position below the head, a diff (its
/// view read at `from`), `verify`. Each may replay much of the log; past the bound a read is refused at once with a
/// 503 and `Retry-After` rather than queued, so that many of them cannot make every answer slow (16 clients asking for
/// a view at an old position once took 33 s each).
final class ReadAdmission: Sendable {
    let limit: Int
    private let running = Locked(0)

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Takes a place for one read; throws the 503 when all `limit` are taken. ``Ticket/end()`` gives it back.
    func admit(_ what: String) throws -> Ticket {
        let admitted = running.withLock { n -> Bool in
            guard n < limit else { return false }
            n += 1
            return true
        }
        guard admitted else {
            throw ServerError(.serviceUnavailable, .busy,
                              "the server is busy with \(limit) expensive reads (\(what)); try again in \(ServerLimits.retryAfterSeconds) s",
                              retryAfter: ServerLimits.retryAfterSeconds)
        }
        return Ticket(self)
    }

    /// Reads under way now.
    var underWay: Int { running.withLock { $0 } }

    /// One read's place; given back once.
    final class Ticket: Sendable {
        private let admission: ReadAdmission
        private let ended = Locked(false)
        fileprivate init(_ admission: ReadAdmission) { self.admission = admission }

        func end() {
            guard ended.withLock({ e in defer { e = true }; return !e }) else { return }
            admission.running.withLock { $0 -= 1 }
        }

        deinit { end() }
    }
}
