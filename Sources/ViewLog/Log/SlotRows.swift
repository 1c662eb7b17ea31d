import CPrefetch

/// Which attributes of one entity a fold by slot resolves and keeps.
///
/// A fold by slot (replay, time travel, a delta of one entity) keeps each object's values in an array indexed by
/// attribute slot instead of a dictionary by name: a logged name is matched against `attributes` by a merge walk
/// over the bytes (both are in code-point order), so nothing is hashed or allocated per name.
struct SlotLayout {
    /// The attributes names are resolved against: every attribute of the entity in the schema the fold reads
    /// under, sorted by name (as ``EntityDescription/attributes``).
    let attributes: [Attribute]
    /// Their names as UTF-8, compared with the logged names' bytes.
    let names: [[UInt8]]
    /// For each of `attributes`, its slot in a row, or `-1` when the fold does not keep it (its logged values are
    /// stepped over, never decoded).
    let slotOf: [Int]
    /// The kept attributes, in slot order (sorted by name).
    let kept: [Attribute]

    /// A layout resolving names against `attributes` (sorted by name) and keeping those of `keeping` (all when
    /// `nil`); a name of `keeping` the attributes lack is not kept.
    init(attributes: [Attribute], keeping: [Attribute]? = nil) {
        self.attributes = attributes
        names = attributes.map { Array($0.name.utf8) }
        let wanted = keeping.map { Set($0.map(\.name)) }
        var slotOf: [Int] = [], kept: [Attribute] = []
        for a in attributes {
            if wanted?.contains(a.name) ?? true, kept.last?.name != a.name {
                slotOf.append(kept.count)
                kept.append(a)
            } else {
                slotOf.append(-1)
            }
        }
        self.slotOf = slotOf
        self.kept = kept
    }

    /// How many values a row holds.
    var width: Int { kept.count }
}

/// One value decoded for a slot.
struct SlotValue {
    var slot: Int
    var value: Value
}

/// The changes of one entity in a run of log entries, decoded by slot, in the order a fold applies them: an entry's
/// changes in its order, or for an undo each change's inverse, the entry's last change first. A fold decodes a
/// batch of entries into it, then ``SlotRows/apply(_:onlyKnown:)`` applies the batch at once. Reused from batch to
/// batch.
struct SlotChanges {
    enum Kind {
        /// The object exists with exactly these values (an insert; the inverse of a delete).
        case set
        /// The object exists with these values changed (an update, or its inverse).
        case merge
        /// The object does not exist (a delete; the inverse of an insert).
        case remove
    }

    struct Change {
        var kind: Kind
        var id: ObjectID
        /// The seq of the entry that made it.
        var seq: UInt64
        /// Its values in ``SlotChanges/values``.
        var values: Range<Int>
    }

    private(set) var changes: [Change] = []
    private(set) var values: [SlotValue] = []
    /// Where the values of the change being decoded start.
    private var valuesStart = 0

    mutating func removeAll() {
        changes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        valuesStart = 0
    }

    mutating func append(_ value: SlotValue) { values.append(value) }

    /// Ends a change, made at `seq`, whose values were appended since the previous one ended.
    mutating func end(_ kind: Kind, id: ObjectID, seq: UInt64) {
        changes.append(Change(kind: kind, id: id, seq: seq, values: valuesStart..<values.count))
        valuesStart = values.count
    }

    /// Reverses the order of the changes from `first` on (an undo applies an entry's inverses last first).
    mutating func reverseChanges(from first: Int) {
        changes[first...].reverse()
    }

    /// The values of change `i`.
    func valueRange(of i: Int) -> Range<Int> { changes[i].values }
}

/// The objects of one entity while a fold by slot runs: rows in the order first seen, with an index by id, each
/// with its kept values in slots (`nil` where it has no value) and the seq of the last change applied to it.
///
/// A state that starts in id order (the head's rows) or grows in id order (inserts of increasing ids) is still in
/// id order at the end, so reading it out needs no sort.
struct SlotRows {
    let layout: SlotLayout
    private(set) var ids: [ObjectID] = []
    private var index = ObjectIDIndex()
    private var cells: [Value?] = []
    /// Per row, the seq of the last change applied to it (0 for a row read from the head and not changed since)
    /// shifted left by one, or 1 when the object exists: one array, so a change touches one cache line less.
    private var marks: [UInt64] = []
    /// How many changes ahead of the one applied a row's values are prefetched.
    static let prefetchDistance = 12
    /// The rows of the batch being applied (`-1` for a change left out), reused from batch to batch.
    private var batchRows: [Int] = []

    init(layout: SlotLayout, capacity: Int = 0) {
        self.layout = layout
        if capacity > 0 {
            ids.reserveCapacity(capacity)
            index = ObjectIDIndex(capacity: capacity)
            marks.reserveCapacity(capacity)
            cells.reserveCapacity(capacity * layout.width)
        }
    }

    var count: Int { ids.count }

    /// The seq of the last change applied to row `r` (0 for a head row not changed since).
    func seq(ofRow r: Int) -> UInt64 { marks[r] >> 1 }

    /// Adds an existing object, its kept values in slot order (as ``FetchedValues/slots`` of ``SlotLayout/kept``).
    mutating func appendExisting(_ id: ObjectID, _ slots: [Value]) {
        precondition(slots.count == layout.width, "a row holds one value per kept attribute")
        let r = newRow(id)
        marks[r] |= 1
        for j in 0..<layout.width { cells[r * layout.width + j] = slots[j] }
    }

    /// Adds an object that does not exist (yet): a fold that applies only to known objects changes it.
    mutating func appendAbsent(_ id: ObjectID) {
        _ = newRow(id)
    }

    private mutating func newRow(_ id: ObjectID) -> Int {
        let r = ids.count
        ids.append(id)
        index.insert(id, row: r)
        marks.append(0)
        cells.append(contentsOf: repeatElement(nil, count: layout.width))
        return r
    }

    /// Applies a batch of changes in their order, each made at its seq. With `onlyKnown`, changes of objects not
    /// yet in the state are left out.
    ///
    /// A fold of random changes waits on memory, twice per change: the row's index entry, then its values (a cache
    /// miss each on a state larger than the cache). So the batch is applied in three passes: prefetch every
    /// change's index entry; find (or make) every row; apply, prefetching the values and mark of the row
    /// ``prefetchDistance`` changes ahead. The misses overlap instead of queueing, and the result is the same as
    /// applying the changes one by one.
    mutating func apply(_ batch: SlotChanges, onlyKnown: Bool = false) {
        let changes = batch.changes
        for change in changes { index.prefetch(change.id) }
        batchRows.removeAll(keepingCapacity: true)
        let width = layout.width
        for change in changes {
            let r: Int
            if let found = index.row(of: change.id, in: ids) {
                r = found
            } else if onlyKnown {
                batchRows.append(-1)
                continue
            } else {
                r = newRow(change.id)
            }
            batchRows.append(r)
        }
        for (k, change) in changes.enumerated() {
            // The row `prefetchDistance` changes ahead: its mark and both cache lines its values may span. Far
            // enough to arrive in time, near enough not to be evicted or queued behind the CPU's few misses in
            // flight (prefetching the whole batch first left two fifths of the time on the values' load).
            if k + Self.prefetchDistance < batchRows.count, case let ahead = batchRows[k + Self.prefetchDistance], ahead >= 0 {
                marks.withUnsafeBufferPointer { viewlog_prefetch($0.baseAddress! + ahead) }
                if width > 0 {
                    cells.withUnsafeBufferPointer { c in
                        viewlog_prefetch(c.baseAddress! + ahead * width)
                        viewlog_prefetch(c.baseAddress! + (ahead * width + width - 1))
                    }
                }
            }
            let r = batchRows[k]
            guard r >= 0 else { continue }
            let base = r * width
            switch change.kind {
            case .remove, .set:
                for j in 0..<width { cells[base + j] = nil }
                marks[r] = change.seq << 1 | (change.kind == .set ? 1 : 0)
            case .merge:
                marks[r] = change.seq << 1 | 1  // an update of an absent object makes it, as `ObjectValues.apply` does
            }
            if change.kind != .remove {
                for v in batch.values[change.values] { cells[base + v.slot] = v.value }
            }
        }
    }

    /// The values of row `r` in the canonical form of `attributes` (sorted by name; each a kept attribute):
    /// exactly those names, `null` where the row has no value; `nil` when the object does not exist.
    func values(ofRow r: Int, canonicalFor output: OutputSlots) -> ObjectValues? {
        guard marks[r] & 1 == 1 else { return nil }
        var out = ObjectValues(minimumCapacity: output.names.count)
        let base = r * layout.width
        for (name, slot) in zip(output.names, output.slots) {
            out[name] = slot < 0 ? .null : (cells[base + slot] ?? .null)
        }
        return out
    }

    /// Every row that exists, in id order, in the canonical form of `output`.
    func existingRows(canonicalFor output: OutputSlots) -> [(id: ObjectID, values: ObjectValues)] {
        var out: [(id: ObjectID, values: ObjectValues)] = []
        out.reserveCapacity(ids.count)
        forEachExistingRow(canonicalFor: output) { id, values in
            var v = ObjectValues(minimumCapacity: output.names.count)
            for (name, value) in zip(output.names, values) { v[name] = value }
            out.append((id, v))
        }
        return out
    }

    /// Calls `body` with every row that exists, in id order, and its values of `output`'s attributes in their
    /// order (`null` where it has none), in one buffer reused for every row.
    func forEachExistingRow(canonicalFor output: OutputSlots, _ body: (ObjectID, [Value]) -> Void) {
        var values = [Value](repeating: .null, count: output.slots.count)
        for r in rowsInIDOrder() where marks[r] & 1 == 1 {
            let base = r * layout.width
            for (k, slot) in output.slots.enumerated() { values[k] = slot < 0 ? .null : (cells[base + slot] ?? .null) }
            body(ids[r], values)
        }
    }

    /// Row indices in id order.
    func rowsInIDOrder() -> [Int] {
        var order = Array(ids.indices)
        if !zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) { order.sort { ids[$0] < ids[$1] } }
        return order
    }

    /// Where the values of `attributes` are found in this state's rows.
    struct OutputSlots {
        let names: [String]
        let slots: [Int]
    }

    /// The output slots of `attributes` (sorted by name, without repeats); an attribute the layout does not keep
    /// reads as `null`.
    func output(_ attributes: [Attribute]) -> OutputSlots {
        var slotByName: [String: Int] = [:]
        for (j, a) in layout.kept.enumerated() { slotByName[a.name] = j }
        var names: [String] = [], slots: [Int] = []
        for a in attributes where names.last != a.name {
            names.append(a.name)
            slots.append(slotByName[a.name] ?? -1)
        }
        return OutputSlots(names: names, slots: slots)
    }
}
