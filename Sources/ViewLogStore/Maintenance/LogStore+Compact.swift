@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where ``LogStore/compact(_:now:)`` puts the horizon (DESIGN §13).
public enum CompactionTarget: Sendable, Hashable {
    /// At this seq.
    case before(UInt64)
    /// So that the last `n` transactions stay: at the head − `n` (0 when the log is shorter).
    case keepLast(UInt64)
    /// So that the transactions of the last period stay: at the last transaction committed longer ago than it.
    case keepFor(RetentionPeriod)
}

/// What ``LogStore/compact(_:now:)`` did.
public struct CompactionResult: Sendable, Hashable {
    /// The horizon after it.
    public var horizon: UInt64
    /// The horizon before it.
    public var previousHorizon: UInt64
    /// Whether it moved the horizon. `false` when the target was at or below the horizon (or, with a period, no
    /// transaction was that old): nothing changed.
    public var moved: Bool { horizon != previousHorizon }
    /// Bytes of LMDB pages the log and the checkpoints no longer use (free for later appends to reuse; `backup
    /// --compact` writes a file without them).
    public var bytesFreed: Int
}

/// Compaction: moving the horizon up, keeping the objects at it, removing the log before it.
///
/// Three steps, each made of writes of at most ``compactionChunkRows`` rows (and removals of at most
/// ``compactionChunkBytes``), so that other processes' appends
/// interleave and none waits longer than one chunk:
/// 1. **Build**: the objects at the target, with the seq that last changed each (folded from the nearest complete
///    checkpoint at or below it), are written as a checkpoint at the target, in key order. The horizon is still
///    the old one.
/// 2. **Switch**, one write: the checkpoint is listed complete, checkpoints below it are unlisted, the horizon is
///    the target. From here reads below it are refused (``StoreError/compacted(position:horizon:)``).
/// 3. **Remove**: log entries up to the horizon and the rows of checkpoints below it are deleted.
///
/// A ``CompactionRecord`` in the metadata says where a compaction is; a compaction stopped at any moment leaves a
/// store that verifies (the old horizon before the switch, the new one after), and the next compaction finishes it.
extension LogStore {
    /// Rows (or log entries) written or deleted per write of a compaction: bounds how long an append waits for it.
    package static let compactionChunkRows = 4096
    /// The most bytes of log entries or checkpoint rows one write of a compaction removes (beyond the first).
    package static let compactionChunkBytes = 4 << 20

    /// Moves the horizon to `target` (DESIGN §13): afterwards every answer at a position at or above it is what
    /// it was, and a position below it is refused with ``StoreError/compacted(position:horizon:)``. Works in
    /// bounded writes while this and other processes append; stopped at any moment (a crash), the store still
    /// verifies, and the next `compact` finishes what was begun. A target at or below the horizon changes
    /// nothing (the result says so).
    /// - Parameters:
    ///   - target: where the horizon goes.
    ///   - now: the time a ``CompactionTarget/keepFor(_:)`` period is counted back from.
    /// - Throws: ``StoreError/positionPastHead(position:head:)`` for a seq past the head;
    ///   ``StoreError/compactionUnderWay(path:)`` when another process's compaction changes what this one began.
    @discardableResult
    public func compact(_ target: CompactionTarget, now: Timestamp = .now) throws(StoreError) -> CompactionResult {
        try compact(target, now: now, chunkRows: Self.compactionChunkRows)
    }

    /// ``compact(_:now:)`` in writes of `chunkRows` rows (tests use small chunks); `afterWrite`, called after each
    /// of its writes, lets a test stop it there.
    package func compact(_ target: CompactionTarget, now: Timestamp, chunkRows: Int,
                         afterWrite: () throws -> Void = {}) throws(StoreError) -> CompactionResult {
        precondition(chunkRows >= 1, "a chunk holds at least one row")
        let before = try compactedBytes()
        let previous = try horizon
        if let pending = try perform(read: true, { txn in try self.compactionRecord(in: txn) }) {
            try finishCompaction(pending, chunkRows: chunkRows, afterWrite: afterWrite)
        }
        let horizonNow = try horizon
        guard let seq = try horizon(for: target, now: now), seq > horizonNow else {
            let after = try compactedBytes()
            return CompactionResult(horizon: horizonNow, previousHorizon: previous, bytesFreed: max(0, before - after))
        }
        let record = try perform { txn -> CompactionRecord? in
            guard try self.format(in: txn) >= 2, self.checkpointsDB != nil else {
                throw StoreError.storage("\(self.path) has log format 1: `viewlog upgrade` it before compacting")
            }
            if try self.compactionRecord(in: txn) != nil { throw StoreError.compactionUnderWay(path: self.path) }
            guard seq > (try self.horizon(in: txn)) else { return nil }  // another process got there first
            // A checkpoint being built at or below the target is dropped (its rows go with the others below it).
            var directory = try self.checkpointDirectory(in: txn)
            if let building = directory.building, building <= seq {
                directory.building = nil
                directory.cursor = []
                try self.putCheckpointDirectory(directory, in: txn)
            }
            let record = CompactionRecord(target: seq, phase: .build)
            try self.putCompactionRecord(record, in: txn)
            return record
        }
        if let record {
            try afterWriteStep(afterWrite)
            try finishCompaction(record, chunkRows: chunkRows, afterWrite: afterWrite)
        }
        let after = try compactedBytes()
        return CompactionResult(horizon: try horizon, previousHorizon: previous, bytesFreed: max(0, before - after))
    }

    /// The seq `target` names, `nil` for a period with no transaction that old.
    private func horizon(for target: CompactionTarget, now: Timestamp) throws(StoreError) -> UInt64? {
        let head = try self.head
        switch target {
        case .before(let seq):
            guard seq <= head else { throw .positionPastHead(position: seq, head: head) }
            return seq
        case .keepLast(let n):
            return head > n ? head - n : 0
        case .keepFor(let period):
            guard let cutoff = period.cutoff(from: now) else { return nil }
            return try lastTransaction(before: cutoff)
        }
    }

    /// The seq of the last transaction after the horizon committed before `time`, reading the log from the horizon
    /// up to the first that is not (`nil` when there is none).
    private func lastTransaction(before time: Timestamp) throws(StoreError) -> UInt64? {
        var found: UInt64?
        var next = try horizon + 1
        while true {  // bounded: each pass reads up to scanChunkEntries entries, or ends
            let (last, done) = try perform(read: true) { txn -> (UInt64?, Bool) in
                var last: UInt64?, done = true
                var read = 0
                try txn.scan(self.logDB, from: .atLeast(bigEndianBytes(next))) { e in
                    let header: (seq: UInt64, time: Timestamp)
                    do {
                        let h = try TransactionCodec.checkedHeader(e.value, expectedSeq: uint64FromBigEndian(e.key))
                        header = (h.seq, h.time)
                    } catch {
                        throw StoreError.corrupt(seq: uint64FromBigEndian(e.key), reason: "\(error)")
                    }
                    guard header.time < time else { return .stop }
                    last = header.seq
                    read += 1
                    if read == Self.scanChunkEntries { done = false; return .stop }
                    return .next
                }
                return (last, done)
            }
            if let last { found = last; next = last + 1 }
            if done || last == nil { return found }
        }
    }

    /// Carries a compaction from where `record` says it is to its end.
    private func finishCompaction(_ start: CompactionRecord, chunkRows: Int, afterWrite: () throws -> Void) throws(StoreError) {
        var record = start
        let target = record.target
        if record.phase == .build {
            let complete = try perform(read: true) { txn in try self.checkpointDirectory(in: txn).complete.contains(target) }
            if !complete {
                let rows = try objectRows(at: target)
                // Resuming: after the rows written already.
                var i = record.cursor.isEmpty ? 0 : rows.firstIndex(after: record.cursor)
                while i < rows.count {
                    let end = min(i + chunkRows, rows.count)
                    record = try perform { txn in
                        try self.expectCompactionRecord(record, in: txn)
                        guard let db = self.checkpointsDB else { preconditionFailure("compaction without a checkpoints database") }
                        var batch = CheckpointRowBatch(seq: target)
                        var last: [UInt8] = []
                        for j in i..<end {
                            let row = rows.row(j)
                            try row.key.withUnsafeBytes { k in try row.record.withUnsafeBytes { try batch.add(key: k, record: $0) } }
                            last = row.key
                        }
                        try batch.write(into: db, txn)
                        var next = record
                        next.cursor = last
                        try self.putCompactionRecord(next, in: txn)
                        return next
                    }
                    try afterWriteStep(afterWrite)
                    i = end
                }
            }
            record = try perform { txn in
                try self.expectCompactionRecord(record, in: txn)
                return try self.switchHorizon(to: target, in: txn)
            }
            try afterWriteStep(afterWrite)
        }
        while true {  // bounded: each pass deletes up to chunkRows keys, and ends when it finds none
            let done = try perform { txn -> Bool in
                // Appends keeping a schema's retention finish removals too: a record they deleted is a removal done.
                guard try self.compactionRecord(in: txn) != nil || (try self.horizon(in: txn)) < target else { return true }
                try self.expectCompactionRecord(record, in: txn)
                return try self.removeCompacted(upTo: target, chunkRows: chunkRows, in: txn)
            }
            try afterWriteStep(afterWrite)
            if done { return }
        }
    }

    /// The switch of a compaction to `target`, in `txn`: the checkpoint at the target (complete) is listed, those
    /// below it are not, the horizon is the target, and the compaction record moves to removing. Returns the record.
    func switchHorizon(to target: UInt64, in txn: LMDBTransaction) throws -> CompactionRecord {
        var directory = try checkpointDirectory(in: txn)
        directory.complete = [target] + directory.complete.filter { $0 > target }
        if let building = directory.building, building <= target {
            directory.building = nil
            directory.cursor = []
        }
        try putCheckpointDirectory(directory, in: txn)
        try putMeta(txn, MetaKey.horizon, bigEndianBytes(target), format: try format(in: txn))
        let record = CompactionRecord(target: target, phase: .remove)
        try putCompactionRecord(record, in: txn)
        return record
    }

    /// Deletes, in `txn`, up to `chunkRows` of what a compaction to `target` removes — log entries up to it first,
    /// then rows of checkpoints below it — and the compaction record once nothing is left. Returns whether it is
    /// done (the record deleted).
    func removeCompacted(upTo target: UInt64, chunkRows: Int, in txn: LMDBTransaction) throws -> Bool {
        let removals: [(LMDBDatabase?, [UInt8])] = [(logDB, bigEndianBytes(target + 1)), (checkpointsDB, bigEndianBytes(target))]
        var keys: [[UInt8]] = []
        for case let (db?, end) in removals {
            // From seq 1: the checkpoint directory's key (8 zero bytes) sorts before every row.
            var bytes = 0
            try txn.scan(db, from: .atLeast(bigEndianBytes(1))) { e in
                guard e.key.lexicographicallyPrecedes(end) else { return .stop }
                keys.append(Array(e.key))
                bytes += e.value.count
                // A chunk is also bounded in bytes: 4,096 log entries of 1,000 changes each were 120 MB of pages
                // freed in one write, which an appender waited 350 ms for.
                return keys.count < chunkRows && bytes < Self.compactionChunkBytes ? .next : .stop
            }
            if !keys.isEmpty {
                for key in keys { _ = try txn.delete(db, key: key) }
                return false
            }
        }
        _ = try txn.delete(metaDB, key: MetaKey.compaction)
        return true
    }

    /// Microseconds a compaction waits after each of its writes before the next. LMDB's writer lock is not fair: a
    /// process that commits and at once begins again takes the lock back before a waiting writer wakes, so an
    /// appender of another process waited for the whole build (650 ms of a 1.5 s compaction of a million objects,
    /// with each write a few milliseconds). A gap after each write lets it in.
    package static let compactionWriteGapMicroseconds: UInt32 = 500

    private func afterWriteStep(_ afterWrite: () throws -> Void) throws(StoreError) {
        do { try afterWrite() } catch let error as StoreError { throw error } catch { throw .storage("\(error)") }
        usleep(Self.compactionWriteGapMicroseconds)
    }

    /// The compaction under way, as `txn` sees it (`nil` when none is).
    func compactionRecord(in txn: LMDBTransaction) throws -> CompactionRecord? {
        guard let value = try txn.value(metaDB, for: MetaKey.compaction) else { return nil }
        let payload = try MetaRecord.payload(value, key: MetaKey.compaction, format: try format(in: txn), record: "the compaction record")
        do { return try payload.withUnsafeBytes { try CompactionRecord(decoding: $0) } } catch {
            throw StoreError.corrupt(seq: nil, reason: "the compaction record in the metadata: \(error)")
        }
    }

    private func putCompactionRecord(_ record: CompactionRecord, in txn: LMDBTransaction) throws {
        try putMeta(txn, MetaKey.compaction, record.encoded(), format: try format(in: txn))
    }

    /// Throws unless the compaction record is still `record`: another process's compaction of the store moved it.
    private func expectCompactionRecord(_ record: CompactionRecord, in txn: LMDBTransaction) throws {
        guard try compactionRecord(in: txn) == record else { throw StoreError.compactionUnderWay(path: path) }
    }

    /// Bytes of the pages of the log and the checkpoints: what a compaction frees.
    private func compactedBytes() throws(StoreError) -> Int {
        try perform(read: true) { txn in
            try txn.statistics(self.logDB).bytes + (try self.checkpointsDB.map { try txn.statistics($0).bytes } ?? 0)
        }
    }
}
