/// One section of the full (unwindowed) view: its value and how many rows it has.
struct SectionEntry: CountedTreeElement, Hashable {
    var value: Value
    var rows: Int
    var weight: Int { rows }
}

/// Where a section sits in the full view order.
struct SectionLocation: Hashable {
    /// The section's value.
    var value: Value
    /// Its index among all non-empty sections.
    var index: Int
    /// Global rank of its first row.
    var start: Int
    /// Its number of rows.
    var rows: Int
    /// Global rank one past its last row.
    var end: Int { start + rows }
}

/// The non-empty sections of a view with their row counts, in section order: an order-statistic tree whose
/// weights are row counts, so that (section index, row in section) ↔ global rank is O(log s).
final class SectionCounts {
    private let tree: CountedBTree<SectionEntry>
    /// `true` when sections are in ascending value order.
    let ascending: Bool

    /// Makes an empty structure ordering sections ascending or descending by value.
    init(ascending: Bool, capacity: Int = 64) {
        self.ascending = ascending
        self.tree = CountedBTree(capacity: capacity)
    }

    /// Number of non-empty sections.
    var count: Int { tree.count }
    /// Work done so far.
    var counters: TreeCounters {
        get { tree.counters }
        set { tree.counters = newValue }
    }

    @inline(__always)
    private func order(_ value: Value) -> (SectionEntry) -> Int {
        let ascending = self.ascending
        return { e in
            let c = Value.compare(e.value, value)
            return ascending ? c : -c
        }
    }

    /// The section of `value`, if it has rows.
    func locate(_ value: Value) -> SectionLocation? {
        let found = tree.lowerBound(order(value))
        guard let match = found.match else { return nil }
        return SectionLocation(value: match.value, index: found.index, start: found.weightBefore, rows: match.rows)
    }

    /// The section holding the row of global rank `rank`.
    func section(containingRank rank: Int) -> SectionLocation {
        let found = tree.selectByWeight(rank)
        return SectionLocation(value: found.element.value, index: found.index, start: found.weightBefore,
                               rows: found.element.rows)
    }

    /// The section at `index`.
    func section(at index: Int) -> SectionLocation {
        let found = tree.select(index)
        return SectionLocation(value: found.element.value, index: index, start: found.weightBefore,
                               rows: found.element.rows)
    }

    /// Adds `delta` rows to the section of `value`, creating it or removing it when it becomes empty.
    func add(_ delta: Int, to value: Value) {
        var emptied = false
        let found = tree.update(order(value)) { entry in
            entry.rows += delta
            emptied = entry.rows == 0
        }
        if !found {
            precondition(delta > 0, "SectionCounts: removing rows from a missing section")
            tree.insert(SectionEntry(value: value, rows: delta), order(value))
        } else if emptied {
            tree.remove(order(value))
        }
    }

    /// Replaces the contents with `sections`, in section order.
    func load(_ sections: [SectionEntry]) { tree.load(sections) }

    /// Calls `body` with every section from `index` on until it returns `false`.
    func forEach(from index: Int, _ body: (SectionEntry) -> Bool) { tree.forEach(from: index, body) }

    /// Checks the tree and that no section is empty.
    func checkInvariants() {
        let ascending = self.ascending
        tree.checkInvariants { a, b in
            let c = Value.compare(a.value, b.value)
            return ascending ? c < 0 : c > 0
        }
        tree.forEach { e in
            precondition(e.rows > 0, "SectionCounts holds an empty section")
            return true
        }
    }
}
