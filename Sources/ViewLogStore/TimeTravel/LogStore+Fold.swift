@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Streaming the log for time travel: the changes of one entity, forwards (a fold from the empty store or a
/// checkpoint below) or backwards (an undo from a checkpoint above or the head), decoded in place from LMDB's pages
/// one entry at a time — no array of transactions.
///
/// Which way a read goes decides which entries it reads: a state at position p folded forwards from C reads entries
/// C + 1 … p, one undone from C' reads p + 1 … C'. A read never needs an entry on the other side, so a
/// damaged entry is reported by the reads that cross it, and `verify` reports every one (`tools/RELIABILITY.md`).
extension LogStore {
    /// How a state at an older position is computed.
    package enum TimeTravel {
        /// Whichever costs less, from the nearest known state each way (the empty store or a complete checkpoint
        /// below, a complete checkpoint or the head above: ``LogStore/timeTravelStart(from:to:head:via:in:)``): fold
        /// unless the entries before the position outnumber those after it by more than a third, else undo. An undo entry costs more than a fold entry (it decodes
        /// the previous values, and an entity's undo first reads every row at the head): on the bench's log (an
        /// insert per four updates) the two ways cost the same at 57 % of the log, and the middle folds 8–15 % faster
        /// than it undoes (`bench/RESULTS-notes.md`, "cheaper time-travel choice").
        case automatic
        /// Start from the object rows at the head and undo every change after the position (no checkpoint).
        case undoFromHead
        /// Start from the empty store and apply every change up to the position (no checkpoint).
        case foldFromStart

        /// Whether a state is folded forwards from the empty store rather than undone from the head, given the
        /// log entries before the position (read by a fold) and after it (read by an undo).
        func foldsForward(entriesBefore: UInt64, entriesAfter: UInt64) -> Bool {
            switch self {
            case .automatic: return entriesBefore.multipliedFullWidth(by: 3) <= entriesAfter.multipliedFullWidth(by: 4)
            case .undoFromHead: return false
            case .foldFromStart: return true
            }
        }
    }

    /// The known state a read at an older position starts from (``timeTravelStart(from:to:head:via:in:)``).
    struct TimeTravelStart {
        /// Its position: 0 (the empty store), a complete checkpoint's seq, or the head.
        let base: UInt64
        /// Whether the read folds forwards from it (`base` below the position) rather than undoing from it.
        let folds: Bool
        let head: UInt64

        /// Where the state's rows are stored, as ``LogStore/storedRows(at:)`` names them: `nil` for the head's
        /// object rows, else the checkpoint at `base`. (The empty store, base 0, has none to read.)
        var storedRows: UInt64? { base == head ? nil : base }
    }

    /// Where a state of positions `lo … hi` (`lo ≤ hi`; one position when equal) starts: the nearest known state
    /// below `lo` — the empty store (0) or, with ``TimeTravel/automatic``, a complete checkpoint — to fold forwards
    /// from, or the nearest above `hi` — a complete checkpoint or the head — to undo from; `travel` chooses by the
    /// entries each way.
    func timeTravelStart(from lo: UInt64, to hi: UInt64, head: UInt64, via travel: TimeTravel,
                         in txn: LMDBTransaction) throws -> TimeTravelStart {
        precondition(lo <= hi && hi <= head, "positions out of order")
        // Below the position: the empty store, or once compacted the checkpoint at the horizon (always complete).
        let horizon = try self.horizon(in: txn)
        var below = horizon, above = head
        if travel == .automatic {
            let directory = try checkpointDirectory(in: txn)
            below = max(horizon, directory.bases(around: lo).below ?? 0)
            above = directory.bases(around: hi).above ?? head
        }
        let folds = travel.foldsForward(entriesBefore: lo - below, entriesAfter: above - hi)
        return TimeTravelStart(base: folds ? below : above, folds: folds, head: head)
    }

    /// Calls `body` with the seq and each insert, update and delete of `entity` (of every entity when `nil`) of
    /// entries `from … through`, oldest first. An update carries the values `updates` asks for (by default its
    /// new values, all a fold forwards applies; its `previous` is then empty).
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` naming a missing or damaged entry of the range.
    func foldLog(_ txn: LMDBTransaction, from: UInt64, through: UInt64, entity: String?,
                 updates: UpdateValues = .new, _ body: (UInt64, Change) -> Void) throws {
        guard from <= through else { return }
        let name = entity.map { Array($0.utf8) }
        var expected = from
        try txn.scan(logDB, from: .atLeast(bigEndianBytes(from))) { e in
            try self.checkLogKey(e.key, expected: expected, in: txn)
            do {
                try TransactionCodec.forEachChange(e.value, expectedSeq: expected, entity: name, updates: updates) {
                    body(expected, $0)
                }
            } catch {
                throw StoreError.corrupt(seq: expected, reason: "\(error)")
            }
            expected += 1
            return expected <= through ? .next : .stop
        }
        if expected <= through { throw missingEntry(expected, in: txn) }
    }

    /// Calls `body` with the seq and the inverse of each insert, update and delete of `entity` (of every entity
    /// when `nil`) of entries `from … through`, newest entry first and, within an entry, last change first:
    /// applied in that order, they take the state at `through` back to the state at `from − 1`. An update's
    /// inverse carries the values it undoes to (its `previous` is empty).
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` naming a missing or damaged entry of the range.
    func undoLog(_ txn: LMDBTransaction, from: UInt64, through: UInt64, entity: String?,
                 _ body: (UInt64, Change) -> Void) throws {
        guard from <= through else { return }
        let name = entity.map { Array($0.utf8) }
        var changes: [Change] = []
        var expected = through, done = false
        try txn.scan(logDB, from: .below(bigEndianBytes(through + 1))) { e in
            try self.checkLogKey(e.key, expected: expected, in: txn)
            changes.removeAll(keepingCapacity: true)
            do {
                try TransactionCodec.forEachChange(e.value, expectedSeq: expected, entity: name, updates: .previous) {
                    changes.append($0)
                }
            } catch {
                throw StoreError.corrupt(seq: expected, reason: "\(error)")
            }
            for change in changes.reversed() { body(expected, change.inverse) }
            if expected == from { done = true; return .stop }
            expected -= 1
            return .next
        }
        if !done { throw missingEntry(expected, in: txn) }
    }

    /// Folds the changes of `entity` in entries `from … through` into `rows` by slot: forwards, oldest first, or
    /// with `undo` their inverses, newest first (taking the state at `through` back to `from − 1`). With
    /// `onlyKnown`, objects not already in `rows` are left out. Reads the same entries, in the same order, with the
    /// same errors as ``foldLog(_:from:through:entity:updates:_:)`` and ``undoLog(_:from:through:entity:_:)``.
    /// - Returns: `false` when an entry names an attribute the layout does not resolve (a log written under a
    ///   schema that was not additive): `rows` is then incomplete and the caller folds by name.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` naming a missing or damaged entry of the range.
    func slotFold(_ txn: LMDBTransaction, from: UInt64, through: UInt64, entity: String, undo: Bool,
                  onlyKnown: Bool = false, into rows: inout SlotRows) throws -> Bool {
        guard from <= through else { return true }
        let name = Array(entity.utf8)
        // Entries are decoded into a batch of about `slotFoldBatchChanges` changes, then applied at once (see
        // `SlotRows.apply`: the batch's cache misses overlap).
        var changes = SlotChanges()
        // Read once, not from `rows` per entry (each read retains it).
        let layout = rows.layout
        var expected = undo ? through : from, done = false, resolved = true
        let start: LMDBTransaction.ScanStart = undo ? .below(bigEndianBytes(through + 1)) : .atLeast(bigEndianBytes(from))
        try txn.scan(logDB, from: start) { e in
            try self.checkLogKey(e.key, expected: expected, in: txn)
            do {
                resolved = try TransactionCodec.slotChanges(e.value, expectedSeq: expected, entity: name,
                                                            layout: layout, undo: undo, into: &changes)
            } catch {
                throw StoreError.corrupt(seq: expected, reason: "\(error)")
            }
            guard resolved else { return .stop }
            if changes.changes.count >= Self.slotFoldBatchChanges {
                rows.apply(changes, onlyKnown: onlyKnown)
                changes.removeAll()
            }
            if expected == (undo ? from : through) { done = true; return .stop }
            if undo { expected -= 1 } else { expected += 1 }
            return .next
        }
        guard resolved else { return false }
        if !done { throw missingEntry(expected, in: txn) }
        rows.apply(changes, onlyKnown: onlyKnown)
        return true
    }

    /// The changes a fold by slot decodes before it applies them: enough for their cache misses to overlap, few
    /// enough for the batch's values to stay in cache.
    static let slotFoldBatchChanges = 256

    /// Throws unless a log key is the 8-byte big-endian `expected`.
    func checkLogKey(_ key: UnsafeRawBufferPointer, expected: UInt64, in txn: LMDBTransaction) throws {
        guard let seq = uint64FromBigEndian(key) else {
            throw StoreError.corrupt(seq: expected, reason: "log key of \(key.count) bytes")
        }
        guard seq == expected else { throw missingEntry(expected, in: txn, "missing from the log (next entry is \(seq))") }
    }
}

/// The objects of one entity while a fold or an undo runs: rows in the order they were first seen, with an index by
/// id. A state that starts in id order (the head's rows) or grows in id order (inserts of increasing ids) is still
/// in id order at the end, so reading it out needs no sort.
struct EntityState {
    private var ids: [ObjectID] = []
    private var states: [ObjectState] = []
    private var index: [ObjectID: Int] = [:]

    /// An empty state.
    init() {}

    /// The state of `rows`.
    init(_ rows: [(id: ObjectID, values: ObjectValues)]) {
        ids.reserveCapacity(rows.count)
        states.reserveCapacity(rows.count)
        index.reserveCapacity(rows.count)
        for row in rows { append(row.id, row.values) }
    }

    private mutating func append(_ id: ObjectID, _ v: ObjectValues?) {
        index[id] = ids.count
        ids.append(id)
        states.append(ObjectState(values: v))
    }

    /// Applies an insert, update or delete of an object of this entity.
    @inline(__always)
    mutating func apply(_ change: Change) {
        guard let id = change.key?.id else { return }
        if let i = index[id] {
            states[i].apply(change)
        } else {
            append(id, nil)
            states[states.count - 1].apply(change)
        }
    }

    /// The objects that exist, in id order.
    package func rows() -> [(id: ObjectID, values: ObjectValues)] {
        var out: [(id: ObjectID, values: ObjectValues)] = []
        out.reserveCapacity(ids.count)
        var sorted = true
        for i in ids.indices {
            guard let v = states[i].values else { continue }
            if sorted, let last = out.last, !(last.id < ids[i]) { sorted = false }
            out.append((ids[i], v))
        }
        if !sorted { out.sort { $0.id < $1.id } }
        return out
    }
}
