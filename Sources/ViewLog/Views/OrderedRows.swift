/// The rows of a view in view order (section, sort values, id), with O(log n) insert, remove, rank and
/// select, and the per-section row counts that map (section, row) ↔ global rank in O(log n).
///
/// Rows hold only what the view needs — id and key values — in a ``RowSlab``; the order is a
/// ``CountedBTree`` of 4-byte slots, so a change moves at most one node's worth of memory.
final class OrderedRows {
    let order: RowOrder
    private let slab: RowSlab
    private let tree: CountedBTree<RowSlot>
    /// Non-empty sections of all rows (one `null` section when the view has no section key).
    let sections: SectionCounts

    /// Makes an empty set of rows ordered by `order`; `capacity` is the tree's node size (small in tests).
    init(order: RowOrder, capacity: Int = 64) {
        self.order = order
        self.slab = RowSlab(width: order.width)
        self.tree = CountedBTree(capacity: capacity)
        let sectionAscending = order.isSectioned ? order.ascending[0] : true
        self.sections = SectionCounts(ascending: sectionAscending, capacity: capacity)
    }

    /// Number of rows.
    var count: Int { tree.count }
    /// Node size of the trees.
    var capacity: Int { tree.capacity }

    /// Node visits and comparisons of both trees, summed; settable to reset.
    var counters: TreeCounters {
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

    /// Compares the row in `slot` with `key` in view order.
    @inline(__always)
    private func compare(_ slot: RowSlot, _ key: RowKey) -> Int {
        for i in 0..<order.width {
            let c = order.compare(slab.value(slot, i), key.values[i], at: i)
            if c != 0 { return c }
        }
        let id = slab.id(slot)
        return id < key.id ? -1 : (id == key.id ? 0 : 1)
    }

    /// Compares two stored rows in view order.
    private func compare(_ a: RowSlot, _ b: RowSlot) -> Int {
        for i in 0..<order.width {
            let c = order.compare(slab.value(a, i), slab.value(b, i), at: i)
            if c != 0 { return c }
        }
        let x = slab.id(a), y = slab.id(b)
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    // MARK: - Queries

    /// Whether a row with `id` is stored.
    func contains(_ id: ObjectID) -> Bool { slab.slot(of: id) != nil }

    /// The stored key of the row with `id`.
    func key(of id: ObjectID) -> RowKey? { slab.slot(of: id).map(slab.key) }

    /// The global rank of the row with `id`, if stored.
    func rank(of id: ObjectID) -> Int? {
        guard let slot = slab.slot(of: id) else { return nil }
        return rank(ofStored: slab.key(slot))
    }

    /// The global rank of a stored row's key.
    func rank(ofStored key: RowKey) -> Int {
        let found = tree.lowerBound { compare($0, key) }
        precondition(found.match != nil, "OrderedRows: key is not stored")
        return found.index
    }

    /// The number of stored rows before `key` (stored or not).
    func lowerBound(_ key: RowKey) -> Int { tree.lowerBound { compare($0, key) }.index }

    /// The id of the row at global rank `rank`.
    func id(at rank: Int) -> ObjectID { slab.id(tree.select(rank).element) }

    /// The key of the row at global rank `rank`.
    func key(at rank: Int) -> RowKey { slab.key(tree.select(rank).element) }

    /// The section value of the row at global rank `rank`.
    func sectionValue(at rank: Int) -> Value {
        order.isSectioned ? slab.value(tree.select(rank).element, 0) : .null
    }

    /// Calls `body` with the ids from global rank `start` on, in order, until it returns `false`.
    func forEachID(from start: Int, _ body: (ObjectID) -> Bool) {
        tree.forEach(from: start) { body(slab.id($0)) }
    }

    // MARK: - Changes

    /// Adds a row whose id is not stored.
    func insert(_ key: RowKey) {
        precondition(!contains(key.id), "OrderedRows: id \(key.id) is already stored")
        let slot = slab.add(key)
        tree.insert(slot) { compare($0, key) }
        sections.add(1, to: order.sectionValue(key))
    }

    /// Removes the row with `id`; returns its key, or `nil` when it is not stored.
    @discardableResult
    func remove(_ id: ObjectID) -> RowKey? {
        guard let slot = slab.slot(of: id) else { return nil }
        let key = slab.key(slot)
        tree.remove { compare($0, key) }
        slab.remove(slot)
        sections.add(-1, to: order.sectionValue(key))
        return key
    }

    /// Replaces the contents with `keys` (unique ids, any order): O(n log n) sort, O(n) build.
    func load<S: Sequence<RowKey>>(_ keys: S) {
        precondition(count == 0, "OrderedRows.load needs an empty structure")
        var slots: [RowSlot] = []
        for key in keys {
            precondition(!contains(key.id), "OrderedRows: id \(key.id) is given twice")
            slots.append(slab.add(key))
        }
        slots.sort { compare($0, $1) < 0 }
        tree.load(slots)
        var runs: [SectionEntry] = []
        for slot in slots {
            let v = order.isSectioned ? slab.value(slot, 0) : .null
            if let last = runs.last, Value.compare(last.value, v) == 0 {
                runs[runs.count - 1].rows += 1
            } else {
                runs.append(SectionEntry(value: v, rows: 1))
            }
        }
        sections.load(runs)
    }

    /// Checks both trees, the slab, and that section counts match the rows (O(n)).
    func checkInvariants() {
        tree.checkInvariants { compare($0, $1) < 0 }
        slab.checkInvariants()
        sections.checkInvariants()
        precondition(slab.count == tree.count, "OrderedRows: slab and tree disagree")
        var rank = 0
        sections.forEach(from: 0) { entry in
            for r in rank..<(rank + entry.rows) {
                precondition(Value.compare(sectionValue(at: r), entry.value) == 0, "OrderedRows: section counts drift")
            }
            rank += entry.rows
            return true
        }
        precondition(rank == count, "OrderedRows: section counts do not add up")
    }
}
