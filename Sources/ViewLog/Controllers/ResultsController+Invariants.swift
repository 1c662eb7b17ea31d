@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
extension ResultsController {
    /// Checks the controller's structures. Cheap by default (counts agree); `deep` also walks every node and
    /// row (O(n)): order, counts, section counts and the id index. Traps on a broken invariant.
    @_spi(Engine) public func checkInvariants(deep: Bool = false) {
        precondition(rows.sections.count <= rows.count, "more sections than rows")
        let w = window
        precondition(w.start <= w.end && w.end <= rows.count, "window out of range")
        if !isSectioned { precondition(rows.sections.count <= 1, "a view without sections has one section") }
        if deep { rows.checkInvariants() }
    }

    /// Node visits and comparisons of the view's trees since the last reset; for tests proving O(log n) work.
    @_spi(Testing)
    @_spi(Engine) public var treeWork: (nodeVisits: Int, comparisons: Int) {
        let c = rows.counters
        return (c.nodeVisits, c.comparisons)
    }

    /// Sets ``treeWork`` back to zero.
    @_spi(Testing)
    public func resetTreeWork() {
        rows.counters = TreeCounters()
    }
}
