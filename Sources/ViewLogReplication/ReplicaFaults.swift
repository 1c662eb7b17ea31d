@_spi(Engine) import ViewLog

/// Answers a test makes a replica's reads of the stream give instead of the server's: the seam through which tests
/// show a replica's handling of a failover's transient answers deterministically. Nothing outside tests sets it;
/// unset, every read goes to the server.
final class ReplicaFaults: Sendable {
    private struct State {
        /// Per seq: how many more reads of its message answer "no message" before the server is asked.
        var missingAnswers: [UInt64: Int] = [:]
        /// Per seq: how many times its message was asked for while catching up.
        var reads: [UInt64: Int] = [:]
    }

    private let state = Locked(State())

    /// Makes the next `times` reads of the message at `seq` answer that the stream has none, as a server that does
    /// not hold it yet does.
    func answerMissing(seq: UInt64, times: Int) {
        state.withLock { $0.missingAnswers[seq] = times }
    }

    /// How many times the message at `seq` was asked for while catching up.
    func reads(of seq: UInt64) -> Int { state.withLock { $0.reads[seq, default: 0] } }

    /// Counts a read of the message at `seq`; `true` when an injected "no message" answers it.
    func takeMissingAnswer(_ seq: UInt64) -> Bool {
        state.withLock { state in
            state.reads[seq, default: 0] += 1
            guard let left = state.missingAnswers[seq], left > 0 else { return false }
            state.missingAnswers[seq] = left - 1
            return true
        }
    }
}
