@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Which positions a store can answer for: from its horizon (0 until compacted) to its head (DESIGN §13).
///
/// Every read at a position — a state, a delta, the log after a position, a context's move — checks it here, so a
/// position past the head and a position below the horizon are refused the same way everywhere, never answered
/// from a log that no longer holds what the answer needs.
extension LogStore {
    /// The horizon: the lowest position the store can still answer for. The log holds the transactions after it,
    /// and the objects at it are kept (as a checkpoint); 0 for a store never compacted (``compact(_:now:)``).
    public var horizon: UInt64 {
        get throws(StoreError) { try perform(read: true) { txn in try self.horizon(in: txn) } }
    }

    /// The horizon as `txn` sees it (0 when the metadata has none).
    package func horizon(in txn: LMDBTransaction) throws -> UInt64 {
        guard let bytes = try txn.value(metaDB, for: MetaKey.horizon) else { return 0 }
        let payload = try MetaRecord.payload(bytes, key: MetaKey.horizon, format: try format(in: txn), record: "the horizon")
        guard let h = uint64FromBigEndian(payload) else {
            throw StoreError.corrupt(seq: nil, reason: "the horizon in the metadata has \(payload.count) bytes, not 8")
        }
        return h
    }

    /// The rule: a position is reachable when it is at most the head and at least the horizon.
    /// - Throws: ``StoreError/positionPastHead(position:head:)``, ``StoreError/compacted(position:horizon:)``.
    package static func checkReachable(_ position: UInt64, head: UInt64, horizon: UInt64) throws(StoreError) {
        guard position <= head else { throw .positionPastHead(position: position, head: head) }
        guard position >= horizon else { throw .compacted(position: position, horizon: horizon) }
    }

    /// `position` (the head when `nil`) checked against the head and the horizon as `txn` sees them; returns it
    /// and the head.
    package func reachable(_ position: UInt64?, in txn: LMDBTransaction) throws -> (position: UInt64, head: UInt64) {
        let head = try self.head(in: txn)
        guard let position else { return (head, head) }
        if position != head { try Self.checkReachable(position, head: head, horizon: try horizon(in: txn)) }
        return (position, head)
    }

    /// `position` checked against the head and the horizon (``checkReachable(_:head:horizon:)``); the head when
    /// `nil`.
    package func checkedPosition(_ position: UInt64?) throws(StoreError) -> UInt64 {
        try perform(read: true) { txn in try self.reachable(position, in: txn).position }
    }

    /// The error for log entry `seq`, which a read needs and does not find: the horizon is past it (a read that
    /// started before a compaction removed it), or the store is damaged.
    func missingEntry(_ seq: UInt64, in txn: LMDBTransaction, _ reason: String = "missing from the log") -> StoreError {
        if let horizon = try? self.horizon(in: txn), seq <= horizon {
            return .compacted(position: seq - 1, horizon: horizon)
        }
        return .corrupt(seq: seq, reason: reason)
    }
}
