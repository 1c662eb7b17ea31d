/// Puts into one database through one cursor, for a write that stores many keys in increasing order: LMDB finds
/// each key's leaf from the previous put's when it falls in the same page, instead of descending from the root.
/// Keys in any order are still stored correctly, only without that saving. Valid inside
/// ``LMDBTransaction/withSequentialPuts(_:_:)``.
public struct SequentialPuts {
    let cursor: LMDBCursor

    /// Stores `count` bytes under `key`, filled in place by `write`; throws as
    /// ``LMDBCursor/put(key:reserving:flags:write:)``.
    public func put(key: UnsafeRawBufferPointer, reserving count: Int, flags: PutFlags = [],
                    write: (UnsafeMutableRawBufferPointer) -> Void) throws(LMDBError) {
        try cursor.put(key: key, reserving: count, flags: flags, write: write)
    }
}

extension LMDBTransaction {
    /// Runs `body` with puts into `db` through one cursor, closed when `body` returns.
    public func withSequentialPuts<T>(_ db: LMDBDatabase, _ body: (SequentialPuts) throws -> T) throws -> T {
        precondition(!isReadOnly, "puts in a read-only transaction")
        return try withCursor(db) { cursor in try body(SequentialPuts(cursor: cursor)) }
    }
}
