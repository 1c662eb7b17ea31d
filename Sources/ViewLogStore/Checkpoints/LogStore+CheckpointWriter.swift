@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Building checkpoints inside appends, a bounded number of rows per write.
///
/// A checkpoint at seq C must hold every object's row as it was at C, while appends after C keep changing rows.
/// Two rules make that hold without copying everything at once:
/// - **Copy before write.** Before a write changes a row the build has not passed yet (its key is above the
///   cursor) and the row is still as it was at C (its seq is at most C), the row is copied into the checkpoint.
/// - **Copy forwards.** Each write then moves the cursor over the next rows in key order, copying those whose seq is
///   at most C. A row with a later seq was either copied before it was written, or did not exist at C.
///
/// Both run in the append's own LMDB write, so a checkpoint is never half-updated. When the cursor passes the last
/// row the checkpoint is complete and listed in the directory.
extension LogStore {
    /// The checkpoint directory as `txn` sees it (an empty one when the store has none).
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` when the record fails its checksum or does not decode.
    func checkpointDirectory(in txn: LMDBTransaction) throws -> CheckpointDirectory {
        guard let db = checkpointsDB else { return CheckpointDirectory() }
        return try CheckpointDirectory.key.withUnsafeBytes { key throws -> CheckpointDirectory in
            guard let value = try txn.value(db, for: key) else { return CheckpointDirectory() }
            let payload: UnsafeRawBufferPointer
            do {
                payload = try MetaRecord.payload(value, key: CheckpointDirectory.key, format: 2,
                                                 record: "the directory", in: "the checkpoints database")
            } catch let StoreError.corrupt(_, reason) {
                throw StoreError.corrupt(seq: nil, reason: reason + Self.checkpointRepairHint)
            }
            do { return try CheckpointDirectory(decoding: payload) } catch {
                throw StoreError.corrupt(seq: nil, reason: "the checkpoint directory: \(error)" + Self.checkpointRepairHint)
            }
        }
    }

    /// The directory a write of a store of `format` keeps up to date, read before its rows are written, or `nil`
    /// when the store keeps no checkpoints (log format 1, or opened read-only). A build that an older code's write
    /// left behind (the directory's head is not `headBefore`) is dropped, rows and all, and started again later.
    func checkpointsBeforeWrite(headBefore: UInt64, format: Int, in txn: LMDBTransaction) throws -> CheckpointDirectory? {
        guard format >= 2, let db = checkpointsDB else { return nil }
        var directory = try checkpointDirectory(in: txn)
        if let building = directory.building, directory.maintained != headBefore {
            try deleteCheckpointRows(of: building, in: db, txn)
            directory.building = nil
            directory.cursor = []
            try putCheckpointDirectory(directory, in: txn)
        }
        return directory
    }

    /// Copies into the checkpoint being built the rows a write is about to change, as they are before it: those
    /// the build has not passed (above the cursor) and that are still as they were at the checkpoint's seq. An
    /// object whose first change in the write is an insert has no row (the write checks that), so it is not read.
    func copyRowsBeforeWrite(of objects: borrowing AppendedObjects, directory: CheckpointDirectory,
                             in txn: LMDBTransaction) throws {
        guard let building = directory.building, let db = checkpointsDB else { return }
        var copies = CheckpointRowBatch(seq: building)
        for slot in objects.keyOrder() where objects[slot].assumedAbsent == nil {  // in key order, for the puts
            try objects.withKey(of: slot) { key in
                guard directory.cursor.isEmpty || directory.cursor.withUnsafeBytes({ ByteReader.compare($0, key) < 0 }),
                      let row = try txn.value(objectsDB, for: key) else { return }
                try copies.add(key: key, record: row)
            }
        }
        try copies.write(into: db, txn)
    }

    /// After a write's rows: starts a checkpoint at `head` when one is due, and moves the build forwards by the
    /// rows the write's `changes` pay for, completing it at the last row. Writes the directory when it changed.
    func advanceCheckpoints(_ directory: inout CheckpointDirectory, head: UInt64, changes: Int,
                            in txn: LMDBTransaction) throws {
        guard let db = checkpointsDB else { return }
        let policy = checkpointPolicy
        if directory.building == nil {
            guard policy.startsCheckpoints, directory.complete.count < CheckpointDirectory.checkpointsMax else { return }
            let rows = try txn.statistics(objectsDB).entries
            guard head - directory.newest >= policy.interval(rows: rows) else { return }
            directory.building = head
            directory.cursor = []
        }
        guard let building = directory.building else { return }
        var copies = CheckpointRowBatch(seq: building)
        var budget = policy.rowsCopied(changes: changes)
        var last: [UInt8]?
        var finished = true
        if budget > 0 {
            let start: LMDBTransaction.ScanStart = directory.cursor.isEmpty ? .first : .after(directory.cursor)
            try txn.scan(objectsDB, from: start) { e in
                budget -= 1
                try copies.add(key: e.key, record: e.value)
                if budget == 0 {
                    last = Array(e.key)
                    finished = false
                    return .stop
                }
                return .next
            }
        } else {
            finished = false
        }
        try copies.write(into: db, txn)
        if finished {
            directory.complete.append(building)
            directory.building = nil
            directory.cursor = []
        } else if let last {
            directory.cursor = last
        }
        directory.maintained = head
        try putCheckpointDirectory(directory, in: txn)
    }

    /// What an error about a damaged checkpoint adds: checkpoints hold nothing the log does not, so dropping them
    /// repairs the store.
    static let checkpointRepairHint = " (checkpoints are copies of what the log holds: `viewlog checkpoints STORE --drop`, or LogStore.dropCheckpoints(), removes them and loses nothing)"

    /// Removes every checkpoint — the complete ones and the one being built — in one write, and returns how many rows
    /// it held. Time travel then starts from the empty store or the head again until appends build new checkpoints
    /// (the next append starts one when one is due). Checkpoints are copies of what the log holds, so nothing is
    /// lost: this repairs a store whose checkpoints `verify` reports damaged. A compacted store keeps the checkpoint
    /// at its horizon: the log no longer holds what it holds (``horizon``).
    @discardableResult
    public func dropCheckpoints() throws(StoreError) -> Int {
        try perform { txn -> Int in
            guard let db = self.checkpointsDB else { return 0 }
            let horizon = try self.horizon(in: txn)
            guard horizon > 0 else {
                let entries = try txn.statistics(db).entries
                let hasDirectory = try CheckpointDirectory.key.withUnsafeBytes { try txn.value(db, for: $0) } != nil
                try txn.clear(db)
                return entries - (hasDirectory ? 1 : 0)
            }
            let kept = bigEndianBytes(horizon)
            var keys: [[UInt8]] = []
            try txn.scan(db, from: .atLeast(bigEndianBytes(1))) { e in
                if !e.key.starts(with: kept) { keys.append(Array(e.key)) }
                return .next
            }
            for key in keys { _ = try txn.delete(db, key: key) }
            var directory = CheckpointDirectory()
            directory.complete = [horizon]
            directory.maintained = try self.head(in: txn)
            try self.putCheckpointDirectory(directory, in: txn)
            return keys.count
        }
    }

    /// Writes the directory record (with its checksum, as a metadata record of log format 2).
    func putCheckpointDirectory(_ directory: CheckpointDirectory, in txn: LMDBTransaction) throws {
        guard let db = checkpointsDB else { preconditionFailure("no checkpoints database to write to") }
        try txn.put(db, key: CheckpointDirectory.key,
                    value: MetaRecord.encode(directory.encoded(), key: CheckpointDirectory.key, format: 2))
    }

    /// Deletes every row of the checkpoint at `seq`, a chunk of keys at a time.
    private func deleteCheckpointRows(of seq: UInt64, in db: LMDBDatabase, _ txn: LMDBTransaction) throws {
        let prefix = bigEndianBytes(seq)
        while true {  // bounded: every pass deletes what it found, and ends when it found nothing
            var keys: [[UInt8]] = []
            try txn.scan(db, from: .atLeast(prefix)) { e in
                guard e.key.hasPrefix(prefix) else { return .stop }
                keys.append(Array(e.key))
                return keys.count < Self.upgradeChunkRows ? .next : .stop
            }
            if keys.isEmpty { return }
            for key in keys { _ = try txn.delete(db, key: key) }
        }
    }
}

/// Object rows on their way into the checkpoint at `seq`, copied out of LMDB's pages before any put (a put may move
/// the pages a scan points into), each under its checkpoint key with its checksum computed over that key.
struct CheckpointRowBatch: ~Copyable {
    package let seq: UInt64
    private var bytes = ByteWriter(capacity: 4096)
    /// Per row: its key's and its record's range in `bytes`.
    private var rows: [(key: Range<Int>, record: Range<Int>)] = []

    init(seq: UInt64) { self.seq = seq }

    /// Adds the row stored under the object key `key` when it is as it was at the checkpoint's seq (its seq is at
    /// most that); a row changed later is left out.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` when the row fails its checksum: a damaged row is never
    ///   copied under a checksum of its own.
    mutating func add(key: UnsafeRawBufferPointer, record: UnsafeRawBufferPointer) throws {
        let rowSeq: UInt64
        do { rowSeq = try ObjectRecordCodec.checkedSeq(record, key: key) } catch {
            throw StoreError.corrupt(seq: nil, reason: "object record \(ObjectRecordCodec.describeKey(key)): \(error)")
        }
        guard rowSeq <= seq else { return }
        let keyStart = bytes.count
        bytes.u64BigEndian(seq)
        bytes.raw(key)
        let recordStart = bytes.count
        bytes.raw(UnsafeRawBufferPointer(rebasing: record[..<(record.count - ObjectRecordCodec.checksumBytes)]))
        // The checksum of key and record together: the key's bytes are just before the record's.
        bytes.u32(bytes.checksum(from: keyStart))
        rows.append((keyStart..<recordStart, recordStart..<bytes.count))
    }

    /// Puts the rows into the checkpoints database `db`, through one cursor: they were added in key order, so each
    /// put finds its page from the last one's.
    func write(into db: LMDBDatabase, _ txn: LMDBTransaction) throws {
        guard !rows.isEmpty else { return }
        try txn.withSequentialPuts(db) { puts in
            for row in rows {
                try bytes.withBytes(row.key) { key in
                    try bytes.withBytes(row.record) { record in
                        try puts.put(key: key, reserving: record.count) { out in out.copyMemory(from: record) }
                    }
                }
            }
        }
    }
}
