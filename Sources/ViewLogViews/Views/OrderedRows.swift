@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// The rows of a view in view order (section, sort values, id), with O(log n) insert, remove, rank and
/// select, and the per-section row counts that map (section, row) ↔ global rank in O(log n).
///
/// Rows are their key bytes (``RowKey``, ``KeyEncoding``) in a ``RowSlab``; the order is a ``CountedBTree`` of
/// ``RowSlot``s (a 12-byte key prefix and a 4-byte slot, 16 bytes), so that comparisons are `memcmp`s, mostly of words
/// inside one node, and a change moves at most one node's worth of memory.
package final class OrderedRows {
    package private(set) var order: RowOrder
    private let slab: RowSlab
    private let tree: CountedBTree<RowSlot>
    /// Non-empty sections of all rows (one `null` section when the view has no section key).
    package let sections: SectionCounts
    // Unchecked for exclusivity at run time, as the tree's storage (``CountedBTree``).
    /// Scratch bytes for encoding an id to look it up (reused: a lookup allocates nothing).
    @exclusivity(unchecked) private var idScratch: [UInt8] = []
    /// Rows staged by ``stage(_:idStart:)`` for ``finishLoad()``.
    @exclusivity(unchecked) private var staged: [RowSlot] = []

    /// Makes an empty set of rows ordered by `order`; `capacity` is the tree's node size (small in tests).
    package init(order: RowOrder, capacity: Int = 64) {
        self.order = order
        self.slab = RowSlab(inlineKeyBytes: order.inlineKeyBytes)
        self.tree = CountedBTree(capacity: capacity)
        self.sections = SectionCounts(capacity: capacity)
    }

    /// Orders the rows by `order`, the same keys under the names and types a migration gives them (DESIGN §13): a key
    /// is its values' bytes, which a rename leaves as they are; a value a conversion changes is re-keyed by the batch
    /// that carries it.
    package func carry(to order: RowOrder) {
        precondition(order.ascending == self.order.ascending && order.isSectioned == self.order.isSectioned,
                     "a migration changes the names of a view's keys, not their directions")
        self.order = order.keeping(inlineKeyBytes: self.order.inlineKeyBytes)
    }

    /// Number of rows.
    package var count: Int { tree.count }
    /// Node size of the trees.
    package var capacity: Int { tree.capacity }

    /// Node visits and comparisons of both trees, summed; settable to reset.
    package var counters: TreeCounters {
        get {
            TreeCounters(nodeVisits: tree.counters.nodeVisits + sections.counters.nodeVisits,
                         comparisons: tree.counters.comparisons + sections.counters.comparisons)
        }
        set {
            tree.counters = newValue
            sections.counters = TreeCounters()
        }
    }

    // MARK: - Comparing

    /// Compares the row `slot` with `key` (whose prefix is `prefix`) in view order.
    @inline(__always)
    private func compare(_ slot: RowSlot, _ key: UnsafeRawBufferPointer, _ prefix: (UInt64, UInt32)) -> Int {
        if slot.prefix0 != prefix.0 { return slot.prefix0 < prefix.0 ? -1 : 1 }
        if slot.prefix1 != prefix.1 { return slot.prefix1 < prefix.1 ? -1 : 1 }
        return slab.withKey(slot.raw) { stored, _ in compareBytes(stored, key) }
    }

    /// Compares two stored rows in view order.
    @inline(__always)
    private func compare(_ a: RowSlot, _ b: RowSlot) -> Int {
        if a.prefix0 != b.prefix0 { return a.prefix0 < b.prefix0 ? -1 : 1 }
        if a.prefix1 != b.prefix1 { return a.prefix1 < b.prefix1 ? -1 : 1 }
        return slab.withKey(a.raw) { x, _ in slab.withKey(b.raw) { y, _ in compareBytes(x, y) } }
    }

    // MARK: - Queries

    /// The slot of the row with `id`, if stored.
    package func slot(of id: ObjectID) -> UInt32? {
        idScratch.removeAll(keepingCapacity: true)
        KeyEncoding.append(id: id, to: &idScratch)
        return idScratch.withUnsafeBytes { slab.find(idBytes: $0) }
    }

    /// Whether a row with `id` is stored.
    package func contains(_ id: ObjectID) -> Bool { slot(of: id) != nil }

    /// The stored key of the row with `id`.
    package func key(of id: ObjectID) -> RowKey? { slot(of: id).map(slab.key) }

    /// Calls `body` with the key bytes of the row in slot `raw` and where its id starts.
    @inline(__always)
    package func withKey<R>(ofSlot raw: UInt32, _ body: (UnsafeRawBufferPointer, Int) -> R) -> R { slab.withKey(raw, body) }

    /// The id of the row in slot `raw`.
    package func id(ofSlot raw: UInt32) -> ObjectID { slab.id(raw) }

    /// The global rank of the row with `id`, if stored.
    package func rank(of id: ObjectID) -> Int? { slot(of: id).map(rank(ofSlot:)) }

    /// The global rank of the row in slot `raw`.
    package func rank(ofSlot raw: UInt32) -> Int {
        slab.withKey(raw) { key, _ in
            let found = lowerBound(key)
            precondition(found.matched, "OrderedRows: key is not stored")
            return found.index
        }
    }

    /// The number of stored rows before `key` (stored or not), and whether `key` is stored.
    package func lowerBound(_ key: UnsafeRawBufferPointer) -> (index: Int, matched: Bool) {
        let prefix = RowSlot.prefix(key)
        let found = tree.lowerBound(hint: prefix.0) { compare($0, key, prefix) }
        return (found.index, found.match != nil)
    }

    /// The slot of the row at global rank `rank`.
    package func slot(at rank: Int) -> UInt32 { tree.select(rank).element.raw }

    /// The id of the row at global rank `rank`.
    package func id(at rank: Int) -> ObjectID { slab.id(slot(at: rank)) }

    /// The key of the row at global rank `rank`.
    package func key(at rank: Int) -> RowKey { slab.key(slot(at: rank)) }

    /// The section value of the row at global rank `rank`.
    func sectionValue(at rank: Int) -> Value {
        order.isSectioned ? slab.withKey(slot(at: rank)) { key, _ in order.sectionValue(key) } : .null
    }

    /// Calls `body` with the slots from global rank `start` on, in order, until it returns `false`.
    package func forEachSlot(from start: Int, _ body: (UInt32) -> Bool) {
        tree.forEach(from: start) { body($0.raw) }
    }

    /// Calls `body` with the ids from global rank `start` on, in order, until it returns `false`.
    package func forEachID(from start: Int, _ body: (ObjectID) -> Bool) {
        tree.forEach(from: start) { body(slab.id($0.raw)) }
    }

    // MARK: - Changes

    /// Adds the row with key `key` (its id starting at `idStart`), whose id is not stored (the slab's one
    /// index probe traps otherwise); returns its global rank.
    @discardableResult
    package func insert(_ key: UnsafeRawBufferPointer, idStart: Int) -> Int {
        let raw = slab.add(key, idStart: idStart)
        addToSection(key)
        return attach(slot: raw, key)
    }

    /// Puts the row in slot `raw`, whose key in the slab is `key`, into the order (not into the section
    /// counts); returns its global rank.
    @inline(__always)
    private func attach(slot raw: UInt32, _ key: UnsafeRawBufferPointer) -> Int {
        let prefix = RowSlot.prefix(key)
        return tree.insert(RowSlot(raw: raw, key: key)) { compare($0, key, prefix) }
    }

    /// Counts one more row in the section of `key`.
    @inline(__always)
    private func addToSection(_ key: UnsafeRawBufferPointer) {
        sections.add(1, to: UnsafeRawBufferPointer(rebasing: key[..<order.sectionEnd(key)])) { order.sectionValue(key) }
    }

    /// Counts one row less in the section of `key`.
    @inline(__always)
    private func removeFromSection(_ key: UnsafeRawBufferPointer) {
        sections.add(-1, to: UnsafeRawBufferPointer(rebasing: key[..<order.sectionEnd(key)])) { .null }
    }

    /// Adds a row whose id is not stored; returns its global rank.
    @discardableResult
    package func insert(_ key: RowKey) -> Int {
        key.bytes.withUnsafeBytes { insert($0, idStart: key.idStart) }
    }

    /// Removes the row in slot `raw`; returns its global rank before the removal.
    @discardableResult
    package func remove(slot raw: UInt32) -> Int {
        let rank = detach(slot: raw)
        slab.withKey(raw) { key, _ in removeFromSection(key) }
        slab.remove(raw)
        return rank
    }

    /// Takes the row in slot `raw` out of the order but keeps its slot and id (for ``reattach(slot:_:idStart:)``
    /// with a new key); returns its global rank before. Until it is reattached, the row is in the slab and not
    /// in the order (ranks leave it out, its id cannot be inserted again), and its section still counts it, so
    /// that a row that stays in its section never touches the section counts.
    package func detach(slot raw: UInt32) -> Int {
        slab.withKey(raw) { key, _ in
            let prefix = RowSlot.prefix(key)
            guard let removed = tree.remove(hint: prefix.0, { compare($0, key, prefix) }) else {
                preconditionFailure("OrderedRows: a detached row is not in the order")
            }
            return removed.index
        }
    }

    /// Puts the row detached from slot `raw` back into the order with key `key` (the same id; its id's place in
    /// the slab's index is kept, so a move probes no index), moving its count to the new section if the section
    /// changed; returns its global rank.
    @discardableResult
    package func reattach(slot raw: UInt32, _ key: UnsafeRawBufferPointer, idStart: Int) -> Int {
        let sameSection = slab.withKey(raw) { old, _ in
            let oldSection = UnsafeRawBufferPointer(rebasing: old[..<order.sectionEnd(old)])
            if compareBytes(oldSection, UnsafeRawBufferPointer(rebasing: key[..<order.sectionEnd(key)])) == 0 { return true }
            removeFromSection(old)
            return false
        }
        slab.replaceKey(raw, with: key, idStart: idStart)
        if !sameSection { addToSection(key) }
        return attach(slot: raw, key)
    }

    /// Removes the row with `id`; returns its key, or `nil` when it is not stored.
    @discardableResult
    package func remove(_ id: ObjectID) -> RowKey? {
        guard let raw = slot(of: id) else { return nil }
        let key = slab.key(raw)
        remove(slot: raw)
        return key
    }

    // MARK: - Bulk load

    /// Stores a row for the next ``finishLoad()`` (the structure must be empty, the id not staged yet: a repeated
    /// id traps in ``finishLoad()``, which indexes the staged rows).
    /// - Returns: the row's slot in the slab.
    @discardableResult
    package func stage(_ key: UnsafeRawBufferPointer, idStart: Int) -> UInt32 {
        precondition(count == 0, "OrderedRows.stage needs an empty structure")
        let raw = slab.addUnindexed(key, idStart: idStart)
        staged.append(RowSlot(raw: raw, key: key))
        return raw
    }

    /// Sorts the staged rows by their key bytes (O(n log n), mostly comparisons of inline prefixes) and builds
    /// the trees from them (O(n)). With `presorted`, the rows were staged in key order (read from an index in that
    /// order) and are not sorted again.
    package func finishLoad(presorted: Bool = false) {
        precondition(count == 0, "OrderedRows.finishLoad needs an empty structure")
        var slots = staged
        staged = []
        slab.index(slots.lazy.map(\.raw))
        if !presorted { RowSlot.sort(&slots) { compare($0, $1) < 0 } }
        tree.load(slots)
        guard order.isSectioned else {
            // Every key's section is the empty prefix: one section of every row (no key read per row).
            sections.load(slots.isEmpty ? [] : [SectionEntry(key: [], value: .null, rows: slots.count)])
            return
        }
        var runs: [SectionEntry] = []
        var previous: UInt32? = nil
        for slot in slots {
            slab.withKey(slot.raw) { key, _ in
                let sectionKey = UnsafeRawBufferPointer(rebasing: key[..<order.sectionEnd(key)])
                if let p = previous, slab.withKey(p, { k, _ in
                    compareBytes(UnsafeRawBufferPointer(rebasing: k[..<order.sectionEnd(k)]), sectionKey) == 0
                }) {
                    runs[runs.count - 1].rows += 1
                } else {
                    runs.append(SectionEntry(key: Array(sectionKey), value: order.sectionValue(key), rows: 1))
                }
            }
            previous = slot.raw
        }
        sections.load(runs)
    }

    /// Makes room for `rows` rows to be staged.
    package func reserve(_ rows: Int) {
        slab.reserve(rows)
        staged.reserveCapacity(rows)
    }

    /// Replaces the contents with `keys` (unique ids, any order): O(n log n) sort, O(n) build.
    func load<S: Sequence<RowKey>>(_ keys: S) {
        for key in keys { _ = key.bytes.withUnsafeBytes { stage($0, idStart: key.idStart) } }
        finishLoad()
    }

    /// Checks both trees, the slab, and that section counts match the rows (O(n)).
    package func checkInvariants() {
        tree.checkInvariants { compare($0, $1) < 0 }
        slab.checkInvariants()
        sections.checkInvariants()
        precondition(slab.count == tree.count, "OrderedRows: slab and tree disagree")
        var rank = 0
        tree.forEach { slot in
            slab.withKey(slot.raw) { key, _ in
                precondition(RowSlot(raw: slot.raw, key: key) == slot, "OrderedRows: stale key prefix")
            }
            return true
        }
        sections.forEach(from: 0) { entry in
            for r in rank..<(rank + entry.rows) {
                slab.withKey(slot(at: r)) { key, _ in
                    let sectionKey = UnsafeRawBufferPointer(rebasing: key[..<order.sectionEnd(key)])
                    precondition(entry.key.withUnsafeBytes { compareBytes($0, sectionKey) } == 0,
                                 "OrderedRows: section counts drift")
                }
            }
            rank += entry.rows
            return true
        }
        precondition(rank == count, "OrderedRows: section counts do not add up")
    }
}
