@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore

/// Rows that keep only a view's first rows: a window and a reserve below it, not the whole view (a watcher's window,
/// DESIGN §12), filled from a scan in O(n log count) with at most `count` rows held at any moment.
extension OrderedRows {
    /// Adds the row with key `key` if it is among the first `count` rows, dropping the row that falls past them.
    /// - Returns: whether a row was left out (this one or the one it pushed past `count`).
    @discardableResult
    package func insert(_ key: UnsafeRawBufferPointer, idStart: Int, keepingFirst count: Int) -> Bool {
        precondition(count > 0, "keep at least one row")
        guard self.count >= count else {
            insert(key, idStart: idStart)
            return false
        }
        if lowerBound(key).index >= count { return true }
        insert(key, idStart: idStart)
        remove(slot: slot(at: count))
        return true
    }

    /// Removes every row from rank `rank` on (the rows past a window's reserve).
    package func removeRows(from rank: Int) {
        precondition(rank >= 0, "a rank is not negative")
        while count > rank { remove(slot: slot(at: count - 1)) }  // bounded: one row less each time
    }
}
