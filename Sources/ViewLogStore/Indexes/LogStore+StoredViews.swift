@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// One stored view as ``LogStore/storedViewStatistics()`` counts it.
public struct StoredViewStatistics: Sendable, Hashable {
    /// The view's name.
    public var name: String
    /// Whether the store holds the view's rows: `false` for a view with `$variables` (built in memory
    /// when read), one with a row too long to store, and one not built yet (a store opened read-only since it was
    /// made by older code).
    public var isStored: Bool
    /// Rows stored (0 when not stored).
    public var rows: Int
    /// Bytes of its entries, keys and values, with its aggregates' per-target state (0 when not stored).
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
            let (build, drop, orphans) = try self.storedViewsToBuild(in: txn)
            return !build.isEmpty || !drop.isEmpty || !orphans.isEmpty
        }
        guard needed else { return }
        try perform { txn in
            let (build, drop, orphans) = try self.storedViewsToBuild(in: txn)
            try self.drop(storedViews: drop, aggregateState: orphans, in: txn)
            for view in build {
                try self.buildStoredView(view, progress: progress.map { p in { p(view.name, $0, $1) } }, in: txn)
            }
            if let db = self.viewsDB {
                let head = try self.head(in: txn)
                let views = self.storedViews(of: try self.schema(at: UInt64.max, in: txn))
                for key in StoredView.maintainedKeys(of: views) {
                    try txn.put(db, key: key, value: StoredView.maintainedValue(head, key: key))
                }
            }
        }
    }

    /// Drops the rows of the stored views the head's schema no longer has (a migration removed them, or changed them
    /// into views that are not stored), in the write that changes the schema.
    func dropStoredViewsNotKept(in txn: LMDBTransaction) throws {
        let (_, drop, orphans) = try storedViewsToBuild(in: txn)
        try self.drop(storedViews: drop, aggregateState: orphans, in: txn)
    }

    private func drop(storedViews drop: [[UInt8]], aggregateState orphans: [[UInt8]], in txn: LMDBTransaction) throws {
        for prefix in drop { try dropStoredView(prefix: prefix, in: txn) }
        for prefix in orphans { try dropViewEntries(under: StoredAggregates.statePrefixHead + prefix, in: txn) }
    }

    /// The stored views of the head's schema whose rows the store lacks, the prefixes of the views it holds that the
    /// schema does not store, and those of the views with aggregate state that the schema does not keep (left by a
    /// ViewLog that knew no aggregate state, and so did not drop it when it removed or changed a view).
    private func storedViewsToBuild(in txn: LMDBTransaction) throws -> (build: [StoredView], drop: [[UInt8]], orphans: [[UInt8]]) {
        guard let db = viewsDB else { return ([], [], []) }
        let views = storedViews(of: try schema(at: UInt64.max, in: txn))
        // Views kept at another head than the store's are stale (a write by code that keeps none, or none over key
        // paths): built again.
        let head = try self.head(in: txn)
        var build: [StoredView] = []
        for view in views {
            let current = try StoredView.maintainedHead(in: db, txn, key: view.maintainedKey) == head
            if try !current || view.state(in: db, txn) == .unbuilt { build.append(view) }
        }
        let known = Set(views.map(\.prefix))
        let drop = try storedViewPrefixes(in: txn).filter { !known.contains($0) }
        let orphans = try aggregateStatePrefixes(in: txn, kept: views)
        return (build, drop, orphans)
    }

    /// The prefixes of the views whose aggregate state (``StoredAggregates``) the `views` database holds but that
    /// `views` do not keep one for: one seek per view.
    func aggregateStatePrefixes(in txn: LMDBTransaction, kept views: [StoredView]) throws -> [[UInt8]] {
        let kept = Set(views.filter { $0.aggregates != nil }.map(\.prefix))
        return try viewPrefixes(under: StoredAggregates.statePrefixHead, in: txn).filter { !kept.contains($0) }
    }

    /// The prefixes of the views that have entries in the `views` database, in key order: one seek per view.
    func storedViewPrefixes(in txn: LMDBTransaction) throws -> [[UInt8]] {
        // The records under `00 00` (maintained records, aggregate state) read as one prefix of a name of no bytes.
        try viewPrefixes(under: [], in: txn).filter { $0 != StoredView.maintainedKey }
    }

    /// The view prefixes (`u16` n, n bytes of name) that follow `head` in the keys of the `views` database that start
    /// with it, in key order: one seek per prefix.
    private func viewPrefixes(under head: [UInt8], in txn: LMDBTransaction) throws -> [[UInt8]] {
        guard let db = viewsDB else { return [] }
        var prefixes: [[UInt8]] = []
        var start: LMDBTransaction.ScanStart = head.isEmpty ? .first : .atLeast(head)
        while true {  // bounded: each step moves past one prefix's entries
            var found: [UInt8]?
            try txn.scan(db, from: start) { e in
                guard e.key.hasPrefix(head) else { return .stop }
                let at = head.count
                let n = e.key.count >= at + 2 ? Int(e.key[at]) << 8 | Int(e.key[at + 1]) : 0
                found = Array(e.key[at..<min(e.key.count, at + 2 + n)])
                return .stop
            }
            guard let prefix = found else { return prefixes }
            prefixes.append(prefix)
            guard let next = Self.successor(of: head + prefix) else { return prefixes }
            start = .atLeast(next)
        }
    }

    /// The smallest key above every key that starts with `prefix`, or `nil` when there is none.
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
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

    /// Throws when a test injected a fault into the next look-up of a stored view (``storedViewFaults``).
    func injectedStoredViewFault() throws(StoreError) {
        let fail = storedViewFaults.withLock { n -> Bool in
            guard n > 0 else { return false }
            n -= 1
            return true
        }
        if fail { throw .corrupt(seq: nil, reason: "an injected fault in a read of a stored view") }
    }

    /// The stored view of the schema's view `name` when the store holds its rows for its definition, in `txn`.
    package func storedView(named name: String, schema: Schema, in txn: LMDBTransaction) throws -> StoredView? {
        try injectedStoredViewFault()
        guard let db = viewsDB, let view = StoredView(name: name, schema: schema),
              try StoredView.maintainedHead(in: db, txn, key: view.maintainedKey) == head(in: txn) else { return nil }
        return try view.state(in: db, txn) == .stored ? view : nil
    }

    /// The stored view of the schema's view `name` when the store holds its rows and `request`, without its window,
    /// is the view's own request, in `txn`.
    package func storedView(named name: String, schema: Schema, showing request: FetchRequest,
                    in txn: LMDBTransaction) throws -> StoredView? {
        var whole = request
        whole.limit = nil
        whole.offset = 0
        guard let view = try storedView(named: name, schema: schema, in: txn), view.plan.request == whole else { return nil }
        return view
    }

    /// ``storedView(named:schema:showing:in:)`` for a controller opened at `position` from the view's rows at the head,
    /// and the head in `txn`: `nil` unless the head is at or above `position` by at most `transactionsMax` transactions
    /// and the schema at the head is still `schema`.
    package func storedView(named name: String, schema: Schema, showing request: FetchRequest, near position: UInt64,
                    transactionsMax: UInt64 = .max, in txn: LMDBTransaction) throws -> (view: StoredView, head: UInt64)? {
        let head = try self.head(in: txn)
        guard head >= position, head - position <= transactionsMax, try self.schema(at: UInt64.max, in: txn) == schema,
              let view = try storedView(named: name, schema: schema, showing: request, in: txn) else { return nil }
        return (view, head)
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

    /// The ids of the rows of `view` from rank `offset` on, at most `limit` of them, in view order; rows of
    /// `skipping` are passed over (not counted).
    package func storedRowIDs(of view: StoredView, offset: Int = 0, limit: Int, skipping: Set<ObjectID> = [],
                      in txn: LMDBTransaction) throws -> [ObjectID] {
        var ids: [ObjectID] = []
        guard limit > 0 else { return ids }
        ids.reserveCapacity(min(limit, 65_536))
        try forEachStoredRow(of: view, from: offset, in: txn) { id in
            if !skipping.contains(id) { ids.append(id) }
            return ids.count < limit
        }
        return ids
    }

    /// Calls `body` with the key of every row of `view` (as ``RowOrder`` encodes it) and the offset of the id in it,
    /// in view order. Every entry read is checked against its checksum.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` for a damaged entry.
    package func forEachStoredRowKey(of view: StoredView, in txn: LMDBTransaction,
                             _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        guard let db = viewsDB else { return }
        try txn.scan(db, from: .after(view.prefix)) { e in
            guard e.key.hasPrefix(view.prefix) else { return .stop }
            let row = UnsafeRawBufferPointer(rebasing: e.key[view.prefix.count...])
            guard StoredView.isIntactRow(key: e.key, value: e.value), let idStart = view.idStart(row) else {
                throw StoreError.corrupt(seq: nil, reason: "a row of the stored view '\(view.name)' does not match its checksum: run 'viewlog verify'")
            }
            try body(row, idStart)
            return .next
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
                if let aggregates = view.aggregates {  // its targets' aggregate state
                    try txn.scan(db, prefix: aggregates.prefix) { e in
                        bytes += e.key.count + e.value.count
                        return .next
                    }
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
    package func forEachHeadObject(of entity: String, ids: [ObjectID], reading attributes: [Attribute], named what: String,
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
