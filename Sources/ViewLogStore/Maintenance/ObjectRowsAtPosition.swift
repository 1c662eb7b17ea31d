@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Every object at one position, in key order, as a compaction writes them into the checkpoint at its target:
/// each one's LMDB key and record (its values and the seq that last changed it), made when asked for.
///
/// The objects are held as a fold by slot (``CheckedFold``): a word per row and per value, strings once. A
/// dictionary of values per object held about 1.6 KB an object — 1.59 GB for a compaction of a million — where the
/// fold holds a tenth of that. A log the fold cannot read (a schema change between the fold's start and the
/// position, a name the schema lacks) is read by name instead, its records made at once.
struct ObjectRowsAtPosition {
    private enum Storage {
        /// The fold, the LMDB key prefix of each of its entities, and the objects that exist, in key order.
        case folded(CheckedFold, prefixes: [[UInt8]], order: [(entity: Int, row: Int)])
        case made([(key: [UInt8], record: [UInt8])])
    }

    private let storage: Storage
    /// The log format the records are made in.
    private let format: Int

    /// Rows of `fold`'s objects that exist, made in log format `format`.
    init(folded fold: CheckedFold, format: Int) {
        var order: [(entity: Int, row: Int)] = []
        for (e, entity) in fold.entities.enumerated() {
            for r in entity.rows.rowsInIDOrder() where entity.rows.exists(r) { order.append((e, r)) }
        }
        storage = .folded(fold, prefixes: fold.entities.map { ObjectRecordCodec.entityPrefix($0.description.name) },
                          order: order)
        self.format = format
    }

    /// Rows made already, in key order.
    init(made rows: [(key: [UInt8], record: [UInt8])], format: Int) {
        storage = .made(rows)
        self.format = format
    }

    /// Whether the rows are held as a fold by slot (tests check which way a log was read).
    var isFolded: Bool {
        if case .folded = storage { return true }
        return false
    }

    var count: Int {
        switch storage {
        case .folded(_, _, let order): return order.count
        case .made(let rows): return rows.count
        }
    }

    /// The object key (``ObjectRecordCodec/key(_:)``) of row `i`.
    func key(_ i: Int) -> [UInt8] {
        switch storage {
        case .folded(let fold, let prefixes, let order):
            let (e, r) = order[i]
            var w = ByteWriter(capacity: prefixes[e].count + 10)
            ObjectRecordCodec.writeKey(prefix: prefixes[e], id: fold.entities[e].rows.ids[r], into: &w)
            return w.finish()
        case .made(let rows):
            return rows[i].key
        }
    }

    /// Row `i`: its object key and its record, checksummed under that key.
    func row(_ i: Int) -> (key: [UInt8], record: [UInt8]) {
        switch storage {
        case .folded(let fold, _, let order):
            let (e, r) = order[i]
            let rows = fold.entities[e].rows
            let k = key(i)
            var values = ByteWriter(capacity: 256)
            rows.writeObjectValues(ofRow: r, into: &values)
            let seq = rows.seq(ofRow: r), format = format
            let size = ObjectRecordCodec.recordBytes(valueBytes: values.count, format: format)
            let record = values.withBytes(0..<values.count) { v in
                k.withUnsafeBytes { kb in
                    [UInt8](unsafeUninitializedCapacity: size) { out, n in
                        ObjectRecordCodec.write(into: UnsafeMutableRawBufferPointer(out), valueBytes: v, seq: seq,
                                                key: kb, format: format)
                        n = size
                    }
                }
            }
            return (k, record)
        case .made(let rows):
            return rows[i]
        }
    }

    /// The index of the first row whose key follows `cursor` (``count`` when none does): where a compaction
    /// stopped after writing the row of `cursor` goes on.
    func firstIndex(after cursor: [UInt8]) -> Int {
        var lo = 0, hi = count
        while lo < hi {  // bounded: the range halves each pass
            let mid = (lo + hi) / 2
            if cursor.lexicographicallyPrecedes(key(mid)) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

extension LogStore {
    /// Every object at `position` (at or above the horizon, at most the head) with the seq that last changed it, in
    /// key order: the rows of the nearest complete checkpoint at or below it (or none, from the empty store), with
    /// the log entries after that folded in — by slot when the fold can read them, else by name.
    func objectRows(at position: UInt64) throws(StoreError) -> ObjectRowsAtPosition {
        if let folded = try objectsFoldedBySlot(at: position) { return folded }
        return try objectRowsByName(at: position)
    }

    /// Where the objects at `position` start from: the horizon's checkpoint, or the nearest complete checkpoint
    /// above it and at or below the position (0, the empty store, when there is neither).
    private func objectRowsBase(at position: UInt64, in txn: LMDBTransaction) throws -> UInt64 {
        let horizon = try self.horizon(in: txn)
        precondition(position >= horizon, "objects below the horizon")
        return max(horizon, try checkpointDirectory(in: txn).bases(around: position).below ?? 0)
    }

    /// Calls `body` with each row of the checkpoint at `base` (none for 0), decoded: its object, values and seq.
    private func forEachCheckpointRow(at base: UInt64, format: Int, in txn: LMDBTransaction,
                                      _ body: (ObjectKey, ObjectValues, UInt64) throws -> Bool) throws {
        guard base > 0 else { return }
        let (db, prefix) = storedRows(at: base)
        try txn.scan(db, prefix: prefix) { e in
            let k = UnsafeRawBufferPointer(rebasing: e.key[prefix.count...])
            let object: ObjectKey, record: (values: ObjectValues, seq: UInt64)
            do {
                record = try ObjectRecordCodec.decode(e.value, key: e.key, format: format)
                object = try ObjectRecordCodec.decodeKey(k)
            } catch {
                throw StoreError.corrupt(seq: nil, reason: "\(Self.describeRow(e.key, checkpoint: base, "")): \(error)"
                                             + Self.checkpointRepairHint)
            }
            return try body(object, record.values, record.seq) ? .next : .stop
        }
    }

    /// The objects at `position` folded by slot in one read: the base checkpoint's rows, then entries base + 1 …
    /// `position`. `nil` when the fold cannot read them (a schema change or a name the base's schema lacks), or a
    /// change does not fit the state it follows (the log is read by name then, as it always was).
    private func objectsFoldedBySlot(at position: UInt64) throws(StoreError) -> ObjectRowsAtPosition? {
        try perform(read: true) { txn -> ObjectRowsAtPosition? in
            let base = try self.objectRowsBase(at: position, in: txn)
            let format = try self.format(in: txn)
            var fold = CheckedFold(schema: try self.schema(at: base, in: txn), appendChecks: false)
            var entityIndex: [String: Int] = [:]
            for (e, entity) in fold.entities.enumerated() { entityIndex[entity.description.name] = e }
            var seeded = true
            try self.forEachCheckpointRow(at: base, format: format, in: txn) { object, values, seq in
                guard let e = entityIndex[object.entity],
                      fold.addStored(entity: e, id: object.id, values: values, seq: seq) else { seeded = false; return false }
                return true
            }
            guard seeded else { return nil }
            var folded = true, expected = base + 1
            if expected <= position {
                try txn.scan(self.logDB, from: .atLeast(bigEndianBytes(expected))) { e in
                    try self.checkLogKey(e.key, expected: expected, in: txn)
                    do { folded = try fold.read(e.value, seq: expected) } catch {
                        throw StoreError.corrupt(seq: expected, reason: "\(error)")
                    }
                    if fold.pendingChanges >= Self.slotFoldBatchChanges { fold.flush { _ in folded = false } }
                    expected += 1
                    return folded && expected <= position ? .next : .stop
                }
                guard folded else { return nil }
                if expected <= position { throw self.missingEntry(expected, in: txn) }
                fold.flush { _ in folded = false }
                guard folded else { return nil }
            }
            return ObjectRowsAtPosition(folded: fold, format: format)
        }
    }

    /// The objects at `position` folded by name: each object's values in a dictionary, every record made at once (the
    /// way a log the fold by slot cannot read is read; tests compare the two).
    func objectRowsByName(at position: UInt64) throws(StoreError) -> ObjectRowsAtPosition {
        var state: [ObjectKey: (values: ObjectValues, seq: UInt64)] = [:]
        let (base, format) = try perform(read: true) { txn -> (UInt64, Int) in
            let base = try self.objectRowsBase(at: position, in: txn)
            let format = try self.format(in: txn)
            try self.forEachCheckpointRow(at: base, format: format, in: txn) { object, values, seq in
                state[object] = (values, seq)
                return true
            }
            return (base, format)
        }
        if base < position {
            try forEachTransaction(after: base, through: position) { t in
                for change in t.changes {
                    guard let key = change.key else { continue }
                    var values = state.removeValue(forKey: key)?.values
                    ObjectValues.apply(change, to: &values)
                    if let values { state[key] = (values, t.seq) }
                }
            }
        }
        var rows = state.map { key, object -> (key: [UInt8], record: [UInt8]) in
            let k = ObjectRecordCodec.key(key)
            return (k, ObjectRecordCodec.encode(values: object.values, seq: object.seq, key: k, format: format))
        }
        rows.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return ObjectRowsAtPosition(made: rows, format: format)
    }
}
