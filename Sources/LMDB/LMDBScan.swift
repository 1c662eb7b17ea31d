/// Range scans: the one way the layers above walk a database in key order.
///
/// A scan owns its cursor and hands `body` each entry in turn, as buffers into the map that stay valid until
/// the transaction ends (in a write transaction: until its next write). The body says whether to go on, so a
/// scan is bounded by the database's size and by whatever bound the caller's body keeps — there is no other
/// loop to get wrong (a forgotten `next()`, a prefix check on the wrong side, a cursor left open).
extension LMDBTransaction {
    /// Where a scan starts, and so which way it goes.
    public enum ScanStart: Sendable {
        /// The first entry, then forward.
        case first
        /// The last entry, then backward.
        case last
        /// The first entry whose key is greater than or equal to the key, then forward.
        case atLeast([UInt8])
        /// The first entry whose key is greater than the key, then forward (resuming after a key seen before).
        case after([UInt8])
        /// The last entry whose key is less than the key, then backward.
        case below([UInt8])

        var isForward: Bool {
            switch self {
            case .first, .atLeast, .after: true
            case .last, .below: false
            }
        }
    }

    /// What a scan's body asks for after an entry.
    public enum ScanStep: Sendable {
        /// Go on to the next entry.
        case next
        /// End the scan.
        case stop
    }

    /// Visits the entries of `db` from `start`, in key order (forward) or reverse key order (backward), until
    /// the body returns ``ScanStep/stop`` or the database ends. Returns how many entries the body saw.
    @discardableResult
    public func scan(_ db: LMDBDatabase, from start: ScanStart = .first,
                     _ body: (LMDBCursor.Entry) throws -> ScanStep) throws -> Int {
        try withCursor(db) { cursor in
            var entry = try Self.position(cursor, at: start)
            var seen = 0
            while let e = entry {
                seen += 1
                guard try body(e) == .next else { break }
                entry = try start.isForward ? cursor.next() : cursor.previous()
            }
            return seen
        }
    }

    /// Visits, in key order, the entries of `db` whose key starts with `prefix`. Returns how many there were
    /// (when the body never stops early).
    @discardableResult
    public func scan(_ db: LMDBDatabase, prefix: [UInt8],
                     _ body: (LMDBCursor.Entry) throws -> ScanStep) throws -> Int {
        var seen = 0
        // LMDB refuses to seek to an empty key: every key starts with the empty prefix.
        try scan(db, from: prefix.isEmpty ? .first : .atLeast(prefix)) { e in
            guard e.key.hasPrefix(prefix) else { return .stop }
            seen += 1
            return try body(e)
        }
        return seen
    }

    private static func position(_ cursor: LMDBCursor, at start: ScanStart) throws(LMDBError) -> LMDBCursor.Entry? {
        switch start {
        case .first:
            return try cursor.first()
        case .last:
            return try cursor.last()
        case .atLeast(let key):
            return try cursor.seek(atLeast: key)
        case .after(let key):
            guard let e = try cursor.seek(atLeast: key) else { return nil }
            return e.key.elementsEqual(key) ? try cursor.next() : e
        case .below(let key):
            // The entry before the first one at or after `key`; the last one when every key is below it.
            return try cursor.seek(atLeast: key) == nil ? cursor.last() : cursor.previous()
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes start with `prefix`: a byte compare (the generic `starts(with:)` walks two iterators,
    /// several times slower on a scan's every key).
    @inline(__always)
    package func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard count >= prefix.count else { return false }
        return prefix.withUnsafeBytes { p in
            var i = 0
            while i < p.count {  // bounded by the prefix's length
                if self[i] != p[i] { return false }
                i += 1
            }
            return true
        }
    }
}
