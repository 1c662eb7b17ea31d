@_spi(Engine) import ViewLog

/// When a replica last checked its head against the stream: the connection's reconnection count then, or
/// `nil` before the first check or after something cast doubt on it (a wrong-last-sequence answer).
final class HeadCheck: Sendable {
    private let checkedAtReconnects = Locked<UInt64?>(nil)

    /// Whether the head was checked since the connection last reconnected (`reconnects` is its count now).
    func isCurrent(reconnects: UInt64) -> Bool { checkedAtReconnects.withLock { $0 == reconnects } }

    /// Records a check made while the connection had reconnected `reconnects` times.
    func checked(reconnects: UInt64) { checkedAtReconnects.withLock { $0 = reconnects } }

    /// Makes the next catch-up check the head again.
    func invalidate() { checkedAtReconnects.withLock { $0 = nil } }
}
