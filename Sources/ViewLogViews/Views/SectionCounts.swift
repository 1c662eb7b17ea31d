@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// One section of the full (unwindowed) view: its key bytes (the section component of its rows' keys, so
/// that sections order by `memcmp` and equal bytes are one section), its value and how many rows it has.
package struct SectionEntry: CountedTreeElement, Hashable {
    package var key: [UInt8]
    package var value: Value
    package var rows: Int
    package var weight: Int { rows }
    /// Sections always compare their bytes (sections are few; their keys have no fixed-width prefix).
    package var orderHint: UInt64 { 0 }
}

/// Where a section sits in the full view order.
package struct SectionLocation: Hashable {
    /// The section's value.
    package var value: Value
    /// Its index among all non-empty sections.
    package var index: Int
    /// Global rank of its first row.
    package var start: Int
    /// Its number of rows.
    package var rows: Int
    /// Global rank one past its last row.
    package var end: Int { start + rows }
}

/// The non-empty sections of a view with their row counts, in section order: an order-statistic tree whose
/// weights are row counts, so that (section index, row in section) ↔ global rank is O(log s). Sections are
/// identified and ordered by their key bytes (``KeyEncoding``, direction included).
package final class SectionCounts {
    private let tree: CountedBTree<SectionEntry>

    /// Makes an empty structure.
    init(capacity: Int = 64) {
        self.tree = CountedBTree(capacity: capacity)
    }

    /// Number of non-empty sections.
    package var count: Int { tree.count }
    /// Work done so far.
    package var counters: TreeCounters {
        get { tree.counters }
        set { tree.counters = newValue }
    }

    /// The section whose key bytes are `key`, if it has rows.
    package func locate(_ key: UnsafeRawBufferPointer) -> SectionLocation? {
        let found = tree.lowerBound(hint: 0) { e in e.key.withUnsafeBytes { compareBytes($0, key) } }
        guard let match = found.match else { return nil }
        return SectionLocation(value: match.value, index: found.index, start: found.weightBefore, rows: match.rows)
    }

    /// The section holding the row of global rank `rank`.
    package func section(containingRank rank: Int) -> SectionLocation {
        let found = tree.selectByWeight(rank)
        return SectionLocation(value: found.element.value, index: found.index, start: found.weightBefore,
                               rows: found.element.rows)
    }

    /// The section at `index`.
    package func section(at index: Int) -> SectionLocation {
        let found = tree.select(index)
        return SectionLocation(value: found.element.value, index: index, start: found.weightBefore,
                               rows: found.element.rows)
    }

    /// Adds `delta` rows to the section whose key bytes are `key`, creating it (with the value `value()`) or
    /// removing it when it becomes empty.
    func add(_ delta: Int, to key: UnsafeRawBufferPointer, value: () -> Value) {
        // Closure literals at each call (not one stored closure): they stay on the stack, a change allocates nothing.
        var emptied = false
        let found = tree.update(hint: 0, { e in e.key.withUnsafeBytes { compareBytes($0, key) } }) { entry in
            entry.rows += delta
            emptied = entry.rows == 0
        }
        if !found {
            precondition(delta > 0, "SectionCounts: removing rows from a missing section")
            tree.insert(SectionEntry(key: Array(key), value: value(), rows: delta)) { e in
                e.key.withUnsafeBytes { compareBytes($0, key) }
            }
        } else if emptied {
            tree.remove(hint: 0) { e in e.key.withUnsafeBytes { compareBytes($0, key) } }
        }
    }

    /// Replaces the contents with `sections`, in section order.
    func load(_ sections: [SectionEntry]) { tree.load(sections) }

    /// Calls `body` with every section from `index` on until it returns `false`.
    package func forEach(from index: Int, _ body: (SectionEntry) -> Bool) { tree.forEach(from: index, body) }

    /// Checks the tree and that no section is empty.
    package func checkInvariants() {
        tree.checkInvariants { a, b in
            a.key.withUnsafeBytes { x in b.key.withUnsafeBytes { y in compareBytes(x, y) < 0 } }
        }
        tree.forEach { e in
            precondition(e.rows > 0, "SectionCounts holds an empty section")
            return true
        }
    }
}
