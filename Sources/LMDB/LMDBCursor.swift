import CLMDB
import CLMDBGuard

/// A position in a database, valid inside ``LMDBTransaction/withCursor(_:_:)``. Moves return the entry they
/// land on as buffers into the map (valid until the transaction ends), or `nil` past either end.
public final class LMDBCursor {
    private var handle: OpaquePointer?
    private let transaction: LMDBTransaction

    /// One entry: key and value buffers into the map.
    public typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    init(handle: OpaquePointer, transaction: LMDBTransaction) {
        self.handle = handle
        self.transaction = transaction
    }

    func close() {
        if let h = handle {
            mdb_cursor_close(h)
            handle = nil
        }
    }

    private func get(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws(LMDBError) -> Entry? {
        guard let h = handle else { preconditionFailure("LMDB cursor used after it was closed") }
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val()
        let rc = viewlog_guarded_cursor_get(h, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "cursor get")
        return (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    /// The first entry.
    public func first() throws(LMDBError) -> Entry? { try get(MDB_FIRST) }
    /// The last entry.
    public func last() throws(LMDBError) -> Entry? { try get(MDB_LAST) }
    /// The entry after the current one (the first when unpositioned).
    public func next() throws(LMDBError) -> Entry? { try get(MDB_NEXT) }
    /// The entry before the current one (the last when unpositioned).
    public func previous() throws(LMDBError) -> Entry? { try get(MDB_PREV) }
    /// The first entry whose key is greater than or equal to `key`.
    public func seek(atLeast key: UnsafeRawBufferPointer) throws(LMDBError) -> Entry? { try get(MDB_SET_RANGE, key: key) }
    /// The first entry whose key is greater than or equal to `key` (array form).
    public func seek(atLeast key: [UInt8]) throws(LMDBError) -> Entry? {
        let r = key.withUnsafeBytes { k in Result { () throws(LMDBError) in try seek(atLeast: k) } }
        return try r.get()
    }

    /// Stores an entry of `count` bytes under `key` whose bytes `write` fills in place (`MDB_RESERVE`): the value
    /// is written once, into the page, instead of being built in a buffer and copied. A cursor that stays open
    /// across puts of increasing keys finds each one's page without descending from the root when it is the page
    /// of the last put.
    /// - Throws: ``LMDBError/keyExists`` for `.noOverwrite` with a present key (nothing written, `write` not
    ///   called, the transaction stays usable); ``LMDBError/mapFull`` when the map is full.
    public func put(key: UnsafeRawBufferPointer, reserving count: Int, flags: PutFlags = [],
                    write: (UnsafeMutableRawBufferPointer) -> Void) throws(LMDBError) {
        guard let h = handle else { preconditionFailure("LMDB cursor used after it was closed") }
        precondition(!transaction.isReadOnly, "put in a read-only transaction")
        precondition(count >= 0, "a negative value size")
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: count, mv_data: nil)
        let rc = viewlog_guarded_cursor_put(h, &k, &v, flags.rawValue | UInt32(MDB_RESERVE))
        if rc == MDB_MAP_FULL { transaction.hitMapFull = true }
        try LMDBError.check(rc, "cursor put")
        write(UnsafeMutableRawBufferPointer(start: v.mv_data, count: count))
    }

    /// Stores an entry through the cursor (`MDB_APPEND` is fastest for increasing keys).
    public func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws(LMDBError) {
        guard let h = handle else { preconditionFailure("LMDB cursor used after it was closed") }
        precondition(!transaction.isReadOnly, "put in a read-only transaction")
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = viewlog_guarded_cursor_put(h, &k, &v, flags.rawValue)
        if rc == MDB_MAP_FULL { transaction.hitMapFull = true }
        try LMDBError.check(rc, "cursor put")
    }
}
