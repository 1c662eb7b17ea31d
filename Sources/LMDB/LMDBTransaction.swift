import CLMDB
import CLMDBGuard

/// A read or write transaction, valid only inside the closure of ``LMDBEnvironment/read(_:)`` or
/// ``LMDBEnvironment/write(_:)``. Buffers it returns point into the map and are valid until the transaction
/// ends (for a write transaction: until the next change of the same key). Copy what must outlive it.
public final class LMDBTransaction {
    @usableFromInline var handle: OpaquePointer?
    /// Whether this transaction only reads.
    public let isReadOnly: Bool
    /// Set when a put failed with `MDB_MAP_FULL`: LMDB poisoned the transaction, and the environment will grow
    /// the map and retry the write, whatever the body did with the error.
    @usableFromInline var hitMapFull = false

    init(handle: OpaquePointer, readOnly: Bool) {
        self.handle = handle
        self.isReadOnly = readOnly
    }

    @usableFromInline
    var live: OpaquePointer {
        guard let handle else { preconditionFailure("LMDB transaction used after it ended") }
        return handle
    }

    func commit() throws(LMDBError) {
        let h = live
        handle = nil  // a failed commit has already freed the transaction: never abort after it
        try LMDBError.check(viewlog_guarded_commit(h), "commit")
    }

    func abort() {
        if let h = handle {
            mdb_txn_abort(h)
            handle = nil
        }
    }

    /// The value of `key`, or `nil`. The buffer is valid until the transaction ends.
    @inlinable
    public func value(_ db: LMDBDatabase, for key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = viewlog_guarded_get(live, db.dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "get from '\(db.name)'")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// The value of `key` copied into an array, or `nil`.
    public func value(_ db: LMDBDatabase, for key: [UInt8]) throws(LMDBError) -> [UInt8]? {
        let r = key.withUnsafeBytes { k in Result { () throws(LMDBError) in try value(db, for: k).map { Array($0) } } }
        return try r.get()
    }

    /// Stores `value` under `key`.
    /// - Throws: ``LMDBError/keyExists`` for `.append` with a key not greater than the last, or `.noOverwrite`
    ///   with a present key (the transaction stays usable); ``LMDBError/mapFull`` when the map is full.
    @inlinable
    public func put(_ db: LMDBDatabase, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                    flags: PutFlags = []) throws(LMDBError) {
        precondition(!isReadOnly, "put in a read-only transaction")
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = viewlog_guarded_put(live, db.dbi, &k, &v, flags.rawValue)
        if rc == MDB_MAP_FULL { hitMapFull = true }
        try LMDBError.check(rc, "put into '\(db.name)'")
    }

    /// Stores `value` under `key` (array form).
    public func put(_ db: LMDBDatabase, key: [UInt8], value: [UInt8], flags: PutFlags = []) throws(LMDBError) {
        let r = key.withUnsafeBytes { k in
            value.withUnsafeBytes { v in Result { () throws(LMDBError) in try put(db, key: k, value: v, flags: flags) } }
        }
        try r.get()
    }

    /// Removes `key`; returns whether it was present.
    @discardableResult
    public func delete(_ db: LMDBDatabase, key: [UInt8]) throws(LMDBError) -> Bool {
        precondition(!isReadOnly, "delete in a read-only transaction")
        let rc = key.withUnsafeBytes { k -> Int32 in
            var kv = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
            return viewlog_guarded_del(live, db.dbi, &kv)
        }
        if rc == MDB_NOTFOUND { return false }
        try LMDBError.check(rc, "delete from '\(db.name)'")
        return true
    }

    /// Removes every entry of `db`.
    public func clear(_ db: LMDBDatabase) throws(LMDBError) {
        precondition(!isReadOnly, "clear in a read-only transaction")
        try LMDBError.check(viewlog_guarded_drop(live, db.dbi, 0), "clear '\(db.name)'")
    }

    /// Counts of `db`.
    public func statistics(_ db: LMDBDatabase) throws(LMDBError) -> DatabaseStatistics {
        var s = MDB_stat()
        try LMDBError.check(viewlog_guarded_stat(live, db.dbi, &s), "stat '\(db.name)'")
        return DatabaseStatistics(entries: s.ms_entries, depth: Int(s.ms_depth), branchPages: s.ms_branch_pages,
                                  leafPages: s.ms_leaf_pages, overflowPages: s.ms_overflow_pages,
                                  pageSize: Int(s.ms_psize))
    }

    /// Runs `body` with a cursor over `db`; the cursor is closed when `body` returns.
    public func withCursor<T>(_ db: LMDBDatabase, _ body: (LMDBCursor) throws -> T) throws -> T {
        var c: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(live, db.dbi, &c), "open cursor on '\(db.name)'")
        guard let c else { throw LMDBError(code: MDB_INVALID, context: "mdb_cursor_open") }
        let cursor = LMDBCursor(handle: c, transaction: self)
        defer { cursor.close() }
        return try body(cursor)
    }
}
