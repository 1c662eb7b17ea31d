@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// A schema's retention (DESIGN §13): appends compact by themselves, with bounded work per write.
///
/// An append never builds a checkpoint for the horizon: it moves the horizon to the newest **complete checkpoint**
/// that keeps what the retention asks for (appends build checkpoints anyway, ``CheckpointPolicy``), so the switch
/// reads the directory and writes three records; the log entries and older checkpoint rows are then removed
/// ``retentionChunkRows`` at a time by the appends that follow, as `compact` removes them. So the store keeps at least
/// what the retention asks for and at most about one checkpoint interval more.
extension LogStore {
    /// Log entries or checkpoint rows an append removes for its schema's retention: bounds what it adds to a write.
    package static let retentionChunkRows = 256

    /// Retention inside an append's write `txn` at `head`, `now` being the write's time: one chunk of a removal
    /// under way, or — when none is — the switch of the horizon to the newest complete checkpoint the retention
    /// allows, if it is above the horizon. A compaction that is building its checkpoint (`compact` in another
    /// process) is left to it.
    func retain(_ retention: Retention, head: UInt64, now: Timestamp, in txn: LMDBTransaction) throws {
        if let record = try compactionRecord(in: txn) {
            if record.phase == .remove { _ = try removeCompacted(upTo: record.target, chunkRows: Self.retentionChunkRows, in: txn) }
            return
        }
        let horizon = try self.horizon(in: txn)
        for checkpoint in try checkpointDirectory(in: txn).complete.reversed() {  // bounded by the directory
            guard checkpoint > horizon else { return }
            if try keeps(retention, from: checkpoint, head: head, now: now, in: txn) {
                _ = try switchHorizon(to: checkpoint, in: txn)
                return
            }
        }
    }

    /// Whether a horizon at `seq` keeps what `retention` asks for: at least the last N transactions, or every
    /// transaction of the last period (`seq` itself was committed before it began).
    private func keeps(_ retention: Retention, from seq: UInt64, head: UInt64, now: Timestamp,
                       in txn: LMDBTransaction) throws -> Bool {
        switch retention {
        case .keepLast(let n):
            return head >= n && seq <= head - n
        case .keepFor(let period):
            guard let cutoff = period.cutoff(from: now) else { return false }
            // Read in place: only the header is decoded.
            return try bigEndianBytes(seq).withUnsafeBytes { key throws -> Bool in
                guard let entry = try txn.value(logDB, for: key) else { return false }
                do {
                    return try TransactionCodec.checkedHeader(entry, expectedSeq: seq).time < cutoff
                } catch {
                    throw StoreError.corrupt(seq: seq, reason: "\(error)")
                }
            }
        }
    }
}
