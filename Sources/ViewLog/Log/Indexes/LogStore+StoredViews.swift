import LMDB

/// One stored view as ``LogStore/storedViewStatistics()`` counts it.
public struct StoredViewStatistics: Sendable, Hashable {
    /// The view's name.
    public var name: String
    /// Whether the store holds the view's rows: `false` for a view over key paths or with `$variables` (built in
    /// memory when read), and for a view not built yet (a store opened read-only since it was made by older code).
    public var isStored: Bool
    /// Rows stored (0 when not stored).
    public var rows: Int
    /// Bytes of its entries, keys and values (0 when not stored).
    public var bytes: Int
}

extension LogStore {
    /// Makes the stored views match the schema at the head, in one write when they do not: builds the rows of each
    /// stored view the store lacks (a store made before stored views, a view added by an older writer) and drops
    /// those of views the schema no longer stores. Called by every open for writing; reads nothing more when the
    /// store is up to date. `progress` is called with (view, objects read, objects of its entity) while a view is
    /// built.
    public func buildStoredViews(progress: ((String, Int, Int) -> Void)? = nil) throws(StoreError) {
        guard viewsDB != nil else { return }
        let needed = try perform(read: true) { txn -> Bool in
            let (build, drop) = try self.storedViewsToBuild(in: txn)
            return !build.isEmpty || !drop.isEmpty
        }
        guard needed else { return }
        try perform { txn in
            let (build, drop) = try self.storedViewsToBuild(in: txn)
            for prefix in drop { try self.dropStoredView(prefix: prefix, in: txn) }
            for view in build {
                try self.buildStoredView(view, progress: progress.map { p in { p(view.name, $0, $1) } }, in: txn)
            }
        }
    }

    /// The stored views of the head's schema whose rows the store lacks, and the prefixes of the views it holds
    /// that the schema does not store.
    private func storedViewsToBuild(in txn: LMDBTransaction) throws -> (build: [StoredView], drop: [[UInt8]]) {
        guard let db = viewsDB else { return ([], []) }
        let views = storedViews(of: try schema(at: UInt64.max, in: txn))
        var build: [StoredView] = []
        for view in views where try view.state(in: db, txn) == .unbuilt { build.append(view) }
        let known = Set(views.map(\.prefix))
        let drop = try storedViewPrefixes(in: txn).filter { !known.contains($0) }
        return (build, drop)
    }

    /// The prefixes of the views that have entries in the `views` database, in key order: one seek per view.
    func storedViewPrefixes(in txn: LMDBTransaction) throws -> [[UInt8]] {
        guard let db = viewsDB else { return [] }
        var prefixes: [[UInt8]] = []
        var start: LMDBTransaction.ScanStart = .first
        while true {  // bounded: each step moves past one view's entries
            var found: [UInt8]?
            try txn.scan(db, from: start) { e in
                if e.key.count >= 2 {
                    let n = Int(e.key[0]) << 8 | Int(e.key[1])
                    found = Array(e.key.prefix(2 + n))
                } else {
                    found = Array(e.key)
                }
                return .stop
            }
            guard let prefix = found else { return prefixes }
            prefixes.append(prefix)
            guard let next = Self.successor(of: prefix) else { return prefixes }
            start = .atLeast(next)
        }
    }

    /// The smallest key above every key that starts with `prefix`, or `nil` when there is none.
    private static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var s = prefix
        while let last = s.last {  // bounded by the prefix's length
            if last < 0xFF {
                s[s.count - 1] = last + 1
                return s
            }
            s.removeLast()
        }
        return nil
    }

    /// The stored view of the schema's view `name` when the store holds its rows for its definition, in `txn`.
    func storedView(named name: String, schema: Schema, in txn: LMDBTransaction) throws -> StoredView? {
        guard let db = viewsDB, let view = StoredView(name: name, schema: schema) else { return nil }
        return try view.state(in: db, txn) == .stored ? view : nil
    }

    /// Calls `body` with the ids of the rows of `view` from rank `offset` on, in view order, until it returns
    /// `false` or the rows end: O(log n + offset) to the first. Every entry read is checked against its checksum.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` for a damaged entry.
    func forEachStoredRow(of view: StoredView, from offset: Int, in txn: LMDBTransaction,
                          _ body: (ObjectID) throws -> Bool) throws {
        guard let db = viewsDB else { return }
        var skipped = 0
        try txn.scan(db, from: .after(view.prefix)) { e in
            guard e.key.hasPrefix(view.prefix) else { return .stop }
            guard StoredView.isIntactRow(key: e.key, value: e.value) else {
                throw StoreError.corrupt(seq: nil, reason: "a row of the stored view '\(view.name)' does not match its checksum: run 'viewlog verify'")
            }
            if skipped < offset {
                skipped += 1
                return .next
            }
            let row = UnsafeRawBufferPointer(rebasing: e.key[view.prefix.count...])
            guard let idStart = view.idStart(row) else {
                throw StoreError.corrupt(seq: nil, reason: "a row of the stored view '\(view.name)' is not a row key of its order")
            }
            return try body(KeyEncoding.id(row, at: idStart)) ? .next : .stop
        }
    }

    /// The rows and bytes of each named view of the schema at the head, by name.
    public func storedViewStatistics() throws(StoreError) -> [StoredViewStatistics] {
        try perform(read: true) { txn in
            let schema = try self.schema(at: UInt64.max, in: txn)
            return try schema.views.keys.sorted().map { name in
                guard let view = try self.storedView(named: name, schema: schema, in: txn), let db = self.viewsDB else {
                    return StoredViewStatistics(name: name, isStored: false, rows: 0, bytes: 0)
                }
                var rows = 0, bytes = 0
                try txn.scan(db, prefix: view.prefix) { e in
                    bytes += e.key.count + e.value.count
                    if e.key.count > view.prefix.count { rows += 1 }
                    return .next
                }
                return StoredViewStatistics(name: name, isStored: true, rows: rows, bytes: bytes)
            }
        }
    }
}

extension LogStore {
    /// Calls `body` with the values of `attributes` of each object of `entity` in `ids`, read at the head in `txn`
    /// into one ``FetchedValues`` reused for every object, and the object's whole values as their stored, checked
    /// encoding (valid only during the call). An id without an object is a ``StoreError/corrupt(seq:reason:)``
    /// naming `what` (the index that named it).
    func forEachHeadObject(of entity: String, ids: [ObjectID], reading attributes: [Attribute], named what: String,
                           in txn: LMDBTransaction, _ body: (ObjectID, FetchedValues, UnsafeRawBufferPointer) throws -> Void) throws {
        let format = try self.format(in: txn)
        let fetched = FetchedValues(attributes: attributes)
        let names = AttributeNames(attributes)
        var shape = RecordShape()
        let prefix = ObjectRecordCodec.entityPrefix(entity)
        var key = ByteWriter(capacity: 64)
        for id in ids {
            key.truncate(to: 0)
            ObjectRecordCodec.writeKey(prefix: prefix, id: id, into: &key)
            try key.withBytes(0..<key.count) { k in
                guard let value = try txn.value(objectsDB, for: k) else {
                    throw StoreError.corrupt(seq: nil, reason: "\(what) names \(entity) \(id.json.text), which does not exist: run 'viewlog verify'")
                }
                let range: Range<Int>
                do { range = try ObjectRecordCodec.decode(value, key: k, format: format, into: fetched, names: names, shape: &shape) } catch {
                    throw StoreError.corrupt(seq: nil, reason: "\(Self.describeRow(k, checkpoint: nil, "of \(entity)")): \(error)")
                }
                try body(id, fetched, UnsafeRawBufferPointer(rebasing: value[range]))
            }
        }
    }
}
