@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// An element of a ``CountedBTree``: it has a weight (a row counts 1, a section counts its rows), so the tree
/// answers both "how many elements before" and "how much weight before".
package protocol CountedTreeElement {
    /// The element's weight, at least 0.
    var weight: Int { get }
    /// A coarse, monotone image of the order: an element before another has a hint ≤ the other's. Searches
    /// skip elements by hint in a sequential scan (which the cache prefetches) and compare fully only where
    /// hints tie; a constant hint (0) means "always compare".
    var orderHint: UInt64 { get }
}

/// Node visits and comparisons of a tree's operations: cheap counters that a test reads to prove that one
/// change touches O(log n) nodes, without timing anything.
package struct TreeCounters: Sendable, Hashable {
    package init(nodeVisits: Int = 0, comparisons: Int = 0) {
        self.nodeVisits = nodeVisits
        self.comparisons = comparisons
    }

    /// Nodes entered by searches, inserts and removes.
    package var nodeVisits = 0
    /// Calls of the order closure (one comparison of two keys each).
    package var comparisons = 0
}

/// The element count and total weight of one child of an inner node of a ``CountedBTree``, side by side (one
/// buffer and one cache line for both, where a change updates both).
struct ChildSize {
    package var count: Int
    var weight: Int
}

/// An order-statistic B+tree: elements live in leaves in order; every inner node keeps, per child, the
/// child's element count, total weight and first element. Insert, remove, rank and select are O(log n) with
/// O(capacity) work per level and no memory move larger than one node.
///
/// The tree does not know how elements compare: every search takes an `order` closure that compares an
/// element with the searched key (negative: the element is before the key). Elements must be unique under
/// that order, and the order must not change while an element is in the tree.
package final class CountedBTree<Element: CountedTreeElement> {
    package final class Node {
        let isLeaf: Bool
        // The tree's storage is unchecked for exclusivity at run time: every access is within one method of the
        // tree, which its owner calls from one thread (a controller is not Sendable), and the dynamic check was
        // about a tenth of `apply` at 1M rows (`swift_beginAccess`, `AccessSet::insert`; bench/RESULTS-notes.md).
        /// Leaf only: the elements, in order.
        @exclusivity(unchecked) var elements: [Element] = []
        /// Inner only: the children, and per child its first element, element count and weight.
        @exclusivity(unchecked) var children: [Node] = []
        @exclusivity(unchecked) var firsts: [Element] = []
        @exclusivity(unchecked) var sizes: [ChildSize] = []

        init(isLeaf: Bool) { self.isLeaf = isLeaf }

        var slotCount: Int { isLeaf ? elements.count : children.count }
        var first: Element { isLeaf ? elements[0] : firsts[0] }
        var elementCount: Int { isLeaf ? elements.count : sizes.reduce(0) { $0 + $1.count } }
        var totalWeight: Int {
            isLeaf ? elements.reduce(0) { $0 + $1.weight } : sizes.reduce(0) { $0 + $1.weight }
        }
        /// This node's element count and weight, as its parent keeps them.
        var size: ChildSize { ChildSize(count: elementCount, weight: totalWeight) }

        /// Adds to the count and weight of child `i` (one access to the buffer).
        @inline(__always)
        func grow(_ i: Int, count: Int, weight: Int) {
            sizes.withUnsafeMutableBufferPointer { s in
                s[i].count += count
                s[i].weight += weight
            }
        }
    }

    /// Most elements of a leaf, most children of an inner node.
    package let capacity: Int
    /// A non-root node with fewer slots than this is merged with or refilled from a sibling.
    var minimumFill: Int { capacity / 4 }
    @exclusivity(unchecked) private(set) var root: Node
    /// Number of elements.
    @exclusivity(unchecked) private(set) var count = 0
    /// Sum of the elements' weights.
    @exclusivity(unchecked) private(set) var totalWeight = 0
    /// Work done so far; reset by tests.
    @exclusivity(unchecked) package var counters = TreeCounters()

    /// Makes an empty tree whose nodes hold at most `capacity` (≥ 4) slots.
    init(capacity: Int = 64) {
        precondition(capacity >= 4, "CountedBTree capacity must be at least 4")
        self.capacity = capacity
        self.root = Node(isLeaf: true)
    }

    // MARK: - Search

    /// The range of `elements` whose hints equal `hint`: before it every element is before the key, after it
    /// every element is after it. A sequential scan, so the memory of a node is read in order.
    @inline(__always)
    private static func tieRange(_ elements: UnsafeBufferPointer<Element>, _ hint: UInt64) -> Range<Int> {
        var lo = 0
        while lo < elements.count && elements[lo].orderHint < hint { lo += 1 }
        var hi = lo
        while hi < elements.count && elements[hi].orderHint == hint { hi += 1 }
        return lo..<hi
    }

    /// The number of `elements` before the key (whose hint is `hint`), or before or equal to it when `orEqual`:
    /// elements skipped by hint, then a binary search with `order` among the ties.
    @inline(__always)
    private static func position(in elements: UnsafeBufferPointer<Element>, _ hint: UInt64, orEqual: Bool,
                                 _ order: (Element) -> Int, _ work: inout TreeCounters) -> Int {
        let ties = tieRange(elements, hint)
        var lo = ties.lowerBound, hi = ties.upperBound
        while lo < hi {
            let mid = (lo + hi) / 2
            work.comparisons += 1
            let c = order(elements[mid])
            if c < 0 || (orEqual && c == 0) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The child of `node` whose range holds the key (whose hint is `hint`): the last child whose first element
    /// is ≤ the key (or the first child). Searches one buffer (one exclusivity check per node, not per
    /// comparison) and counts into the caller's `work`, which the public operation adds to ``counters`` once.
    @inline(__always)
    private func childIndex(_ node: Node, _ hint: UInt64, _ order: (Element) -> Int, _ work: inout TreeCounters) -> Int {
        node.firsts.withUnsafeBufferPointer { max(0, CountedBTree.position(in: $0, hint, orEqual: true, order, &work) - 1) }
    }

    /// Index of the first element of a leaf that is not before the key (whose hint is `hint`).
    @inline(__always)
    private func leafLowerBound(_ node: Node, _ hint: UInt64, _ order: (Element) -> Int, _ work: inout TreeCounters) -> Int {
        node.elements.withUnsafeBufferPointer { CountedBTree.position(in: $0, hint, orEqual: false, order, &work) }
    }

    /// The number of elements of the children of inner `node` before child `i`.
    @inline(__always)
    private static func countBefore(_ node: Node, _ i: Int) -> Int {
        node.sizes.withUnsafeBufferPointer { sizes in
            var n = 0
            for j in 0..<i { n += sizes[j].count }
            return n
        }
    }

    /// Adds one operation's work to ``counters`` (one access to the property per operation).
    @inline(__always)
    private func record(_ work: TreeCounters) {
        counters.nodeVisits += work.nodeVisits
        counters.comparisons += work.comparisons
    }

    /// The number of elements before the key (whose ``CountedTreeElement/orderHint`` is `hint`) and their total
    /// weight, and the element equal to the key if there is one.
    package func lowerBound(hint: UInt64, _ order: (Element) -> Int) -> (index: Int, weightBefore: Int, match: Element?) {
        var work = TreeCounters()
        defer { record(work) }
        // Unretained: the descent only reads, and the tree keeps every node alive.
        unowned(unsafe) var node = root
        var index = 0, weight = 0
        while true {
            work.nodeVisits += 1
            if node.isLeaf { break }
            let i = childIndex(node, hint, order, &work)
            node.sizes.withUnsafeBufferPointer { sizes in
                for j in 0..<i {
                    index += sizes[j].count
                    weight += sizes[j].weight
                }
            }
            node = node.children[i]
        }
        let j = leafLowerBound(node, hint, order, &work)
        return node.elements.withUnsafeBufferPointer { elements in
            for e in elements[0..<j] { weight += e.weight }
            var match: Element? = nil
            if j < elements.count {
                work.comparisons += 1
                if order(elements[j]) == 0 { match = elements[j] }
            }
            return (index + j, weight, match)
        }
    }

    /// The element at `index` (0-based, in order) and the weight of the elements before it.
    func select(_ index: Int) -> (element: Element, weightBefore: Int) {
        precondition(index >= 0 && index < count, "CountedBTree index out of range")
        var work = TreeCounters()
        defer { record(work) }
        // Unretained: the descent only reads, and the tree keeps every node alive.
        unowned(unsafe) var node = root
        var rest = index, weight = 0
        while true {
            work.nodeVisits += 1
            if node.isLeaf { break }
            var i = 0
            while rest >= node.sizes[i].count {
                rest -= node.sizes[i].count
                weight += node.sizes[i].weight
                i += 1
            }
            node = node.children[i]
        }
        for e in node.elements[0..<rest] { weight += e.weight }
        return (node.elements[rest], weight)
    }

    /// The element whose weight range holds `offset` (the first element with `weightBefore + weight > offset`),
    /// its index, and the weight before it.
    func selectByWeight(_ offset: Int) -> (element: Element, index: Int, weightBefore: Int) {
        precondition(offset >= 0 && offset < totalWeight, "CountedBTree weight offset out of range")
        var work = TreeCounters()
        defer { record(work) }
        // Unretained: the descent only reads, and the tree keeps every node alive.
        unowned(unsafe) var node = root
        var rest = offset, index = 0, weight = 0
        while true {
            work.nodeVisits += 1
            if node.isLeaf { break }
            var i = 0
            while rest >= node.sizes[i].weight {
                rest -= node.sizes[i].weight
                weight += node.sizes[i].weight
                index += node.sizes[i].count
                i += 1
            }
            node = node.children[i]
        }
        var j = 0
        while rest >= node.elements[j].weight {
            rest -= node.elements[j].weight
            weight += node.elements[j].weight
            j += 1
        }
        return (node.elements[j], index + j, weight)
    }

    /// Calls `body` with the elements from `start` on, in order, until it returns `false`.
    package func forEach(from start: Int = 0, _ body: (Element) -> Bool) {
        guard start < count else { return }
        _ = visit(root, skipping: start, body)
    }

    private func visit(_ node: Node, skipping: Int, _ body: (Element) -> Bool) -> Bool {
        if node.isLeaf {
            for e in node.elements[skipping...] where !body(e) { return false }
            return true
        }
        var skip = skipping
        for (i, child) in node.children.enumerated() {
            if skip >= node.sizes[i].count {
                skip -= node.sizes[i].count
                continue
            }
            if !visit(child, skipping: skip, body) { return false }
            skip = 0
        }
        return true
    }

    // MARK: - Insert

    /// Inserts `element`, which must not be in the tree, at its place under `order` (which compares with it);
    /// returns its index (the number of elements before it), found by the same descent.
    @discardableResult
    package func insert(_ element: Element, _ order: (Element) -> Int) -> Int {
        var work = TreeCounters()
        defer { record(work) }
        var index = 0
        if let right = insert(element, into: root, element.orderHint, order, &index, &work) {
            let newRoot = Node(isLeaf: false)
            for node in [root, right] {
                newRoot.children.append(node)
                newRoot.firsts.append(node.first)
                newRoot.sizes.append(node.size)
            }
            root = newRoot
        }
        count += 1
        totalWeight += element.weight
        return index
    }

    /// Inserts into the subtree of `node`, adding the elements before it in that subtree to `index`; returns the
    /// new right sibling when `node` split.
    private func insert(_ element: Element, into node: Node, _ hint: UInt64, _ order: (Element) -> Int,
                        _ index: inout Int, _ work: inout TreeCounters) -> Node? {
        work.nodeVisits += 1
        if node.isLeaf {
            let j = leafLowerBound(node, hint, order, &work)
            index += j
            node.elements.insert(element, at: j)
            return node.elements.count > capacity ? split(node) : nil
        }
        let i = childIndex(node, hint, order, &work)
        index += CountedBTree.countBefore(node, i)
        // Unretained: `node.children` keeps the child alive until `removeChild`, after which it is not used.
        unowned(unsafe) let child = node.children[i]
        let right = insert(element, into: child, hint, order, &index, &work)
        // Only the first child can get a new first element: every other child's first is ≤ the element.
        if i == 0 { node.firsts[0] = child.first }
        if let right {
            let rightCount = right.elementCount, rightWeight = right.totalWeight
            node.grow(i, count: 1 - rightCount, weight: element.weight - rightWeight)
            node.children.insert(right, at: i + 1)
            node.firsts.insert(right.first, at: i + 1)
            node.sizes.insert(ChildSize(count: rightCount, weight: rightWeight), at: i + 1)
            return node.children.count > capacity ? split(node) : nil
        }
        node.grow(i, count: 1, weight: element.weight)
        return nil
    }

    /// Moves the upper half of an overfull node into a new right sibling.
    private func split(_ node: Node) -> Node {
        let right = Node(isLeaf: node.isLeaf)
        if node.isLeaf {
            let mid = node.elements.count / 2
            right.elements.reserveCapacity(capacity + 1)  // inserts into a leaf then never reallocate
            right.elements.append(contentsOf: node.elements[mid...])
            node.elements.removeSubrange(mid...)
        } else {
            let mid = node.children.count / 2
            right.children = Array(node.children[mid...])
            right.firsts = Array(node.firsts[mid...])
            right.sizes = Array(node.sizes[mid...])
            node.children.removeSubrange(mid...)
            node.firsts.removeSubrange(mid...)
            node.sizes.removeSubrange(mid...)
        }
        return right
    }

    // MARK: - Remove and update

    /// Removes the element equal to the key of `order`; returns it and its index before the removal (found by
    /// the same descent), or `nil` when there is none.
    @discardableResult
    package func remove(hint: UInt64, _ order: (Element) -> Int) -> (element: Element, index: Int)? {
        var work = TreeCounters()
        defer { record(work) }
        var index = 0
        guard let removed = remove(from: root, hint, order, &index, &work) else { return nil }
        count -= 1
        totalWeight -= removed.weight
        while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
        return (removed, index)
    }

    private func remove(from node: Node, _ hint: UInt64, _ order: (Element) -> Int, _ index: inout Int,
                        _ work: inout TreeCounters) -> Element? {
        work.nodeVisits += 1
        if node.isLeaf {
            let j = leafLowerBound(node, hint, order, &work)
            guard j < node.elements.count else { return nil }
            work.comparisons += 1
            guard order(node.elements[j]) == 0 else { return nil }
            index += j
            return node.elements.remove(at: j)
        }
        let i = childIndex(node, hint, order, &work)
        // Unretained: `node.children` keeps the child alive until `removeChild`, after which it is not used.
        unowned(unsafe) let child = node.children[i]
        guard let removed = remove(from: child, hint, order, &index, &work) else { return nil }
        index += CountedBTree.countBefore(node, i)
        node.grow(i, count: -1, weight: -removed.weight)
        if child.slotCount == 0 {
            removeChild(i, of: node)
        } else {
            node.firsts[i] = child.first
            if child.slotCount < minimumFill && node.children.count > 1 { rebalance(node, at: i) }
        }
        return removed
    }

    /// Changes the element equal to the key of `order` in place with `body`, which may change its weight but
    /// not its place in the order. Returns `false` when there is no such element.
    @discardableResult
    package func update(hint: UInt64, _ order: (Element) -> Int, _ body: (inout Element) -> Void) -> Bool {
        var work = TreeCounters()
        defer { record(work) }
        guard let delta = update(node: root, hint, order, body, &work) else { return false }
        totalWeight += delta
        return true
    }

    private func update(node: Node, _ hint: UInt64, _ order: (Element) -> Int, _ body: (inout Element) -> Void,
                        _ work: inout TreeCounters) -> Int? {
        work.nodeVisits += 1
        if node.isLeaf {
            let j = leafLowerBound(node, hint, order, &work)
            guard j < node.elements.count else { return nil }
            work.comparisons += 1
            guard order(node.elements[j]) == 0 else { return nil }
            let old = node.elements[j].weight
            body(&node.elements[j])
            return node.elements[j].weight - old
        }
        let i = childIndex(node, hint, order, &work)
        guard let delta = update(node: node.children[i], hint, order, body, &work) else { return nil }
        node.grow(i, count: 0, weight: delta)
        node.firsts[i] = node.children[i].first
        return delta
    }

    private func removeChild(_ i: Int, of node: Node) {
        node.children.remove(at: i)
        node.firsts.remove(at: i)
        node.sizes.remove(at: i)
    }

    /// Merges the underfull child `i` with a sibling, or evens out their slots when both do not fit in one.
    private func rebalance(_ node: Node, at i: Int) {
        let l = i + 1 < node.children.count ? i : i - 1
        let left = node.children[l], right = node.children[l + 1]
        if left.slotCount + right.slotCount <= capacity {
            if left.isLeaf {
                left.elements += right.elements
            } else {
                left.children += right.children
                left.firsts += right.firsts
                left.sizes += right.sizes
            }
            node.grow(l, count: node.sizes[l + 1].count, weight: node.sizes[l + 1].weight)
            removeChild(l + 1, of: node)
            return
        }
        let target = (left.slotCount + right.slotCount) / 2
        if left.isLeaf {
            var all = left.elements + right.elements
            right.elements = Array(all[target...])
            all.removeSubrange(target...)
            left.elements = all
        } else {
            let children = left.children + right.children, firsts = left.firsts + right.firsts
            let sizes = left.sizes + right.sizes
            left.children = Array(children[..<target]); right.children = Array(children[target...])
            left.firsts = Array(firsts[..<target]); right.firsts = Array(firsts[target...])
            left.sizes = Array(sizes[..<target]); right.sizes = Array(sizes[target...])
        }
        for (k, child) in [(l, left), (l + 1, right)] {
            node.firsts[k] = child.first
            node.sizes[k] = child.size
        }
    }

    // MARK: - Bulk load

    /// Replaces the contents with `sorted`, which must be in order and unique: O(n), nodes about 3/4 full.
    func load(_ sorted: [Element]) {
        let fill = max(2, capacity * 3 / 4)
        var level: [Node] = []
        var start = 0
        let leafCount = max(1, (sorted.count + fill - 1) / fill)
        for k in 0..<leafCount {
            let end = sorted.count * (k + 1) / leafCount
            let leaf = Node(isLeaf: true)
            leaf.elements.reserveCapacity(capacity + 1)  // inserts into a leaf then never reallocate
            leaf.elements.append(contentsOf: sorted[start..<end])
            level.append(leaf)
            start = end
        }
        while level.count > 1 {
            var next: [Node] = []
            let parentCount = (level.count + fill - 1) / fill
            var from = 0
            for k in 0..<parentCount {
                let end = level.count * (k + 1) / parentCount
                let parent = Node(isLeaf: false)
                for child in level[from..<end] {
                    parent.children.append(child)
                    parent.firsts.append(child.first)
                    parent.sizes.append(child.size)
                }
                next.append(parent)
                from = end
            }
            level = next
        }
        root = level[0]
        count = sorted.count
        totalWeight = sorted.reduce(0) { $0 + $1.weight }
    }

    // MARK: - Invariants

    /// Checks the whole structure (O(n)): order under `less`, counts, weights and first elements of every
    /// child, node fill, and that every leaf is at the same depth.
    package func checkInvariants(_ less: (Element, Element) -> Bool) {
        var previous: Element? = nil
        var leafDepth: Int? = nil
        func check(_ node: Node, depth: Int, isRoot: Bool) -> (count: Int, weight: Int) {
            precondition(node.slotCount <= capacity, "node over capacity")
            if !isRoot { precondition(node.slotCount >= 1, "empty non-root node") }
            if node.isLeaf {
                if let d = leafDepth { precondition(d == depth, "leaves at different depths") } else { leafDepth = depth }
                for e in node.elements {
                    if let p = previous {
                        precondition(less(p, e), "elements out of order")
                        precondition(p.orderHint <= e.orderHint, "order hints are not monotone")
                    }
                    previous = e
                }
                return (node.elements.count, node.totalWeight)
            }
            precondition(node.children.count == node.firsts.count && node.children.count == node.sizes.count,
                         "inner node arrays differ in length")
            if isRoot { precondition(node.children.count >= 2, "inner root with one child") }
            var total = (count: 0, weight: 0)
            for (i, child) in node.children.enumerated() {
                let sub = check(child, depth: depth + 1, isRoot: false)
                precondition(sub.count == node.sizes[i].count, "child count is stale")
                precondition(sub.weight == node.sizes[i].weight, "child weight is stale")
                precondition(!less(node.firsts[i], child.first) && !less(child.first, node.firsts[i]),
                             "child first element is stale")
                total.count += sub.count
                total.weight += sub.weight
            }
            return total
        }
        let total = check(root, depth: 0, isRoot: true)
        precondition(total.count == count, "tree count is stale")
        precondition(total.weight == totalWeight, "tree weight is stale")
    }
}
