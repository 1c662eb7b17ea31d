@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// What one append does to the stored views (`views`, ``StoredView``, DESIGN §11): for every object the write
/// touched of a stored view's entity, its row key before the write and after it — a delete and a put when they
/// differ, nothing when they are equal. Views the store has not built yet (added by the write's schema change, or a
/// store made before stored views) are built at the end of the write from the objects as it leaves them.
///
/// Inactive (nothing read, nothing allocated) for a schema without stored views.
struct StoredViewWrite {
    /// The stored views built for their definition: kept up to date row by row.
    private let maintained: [StoredView]
    /// The stored views without their rows yet: built whole at the end of the write.
    private let unbuilt: [StoredView]
    private let db: LMDBDatabase?
    /// Whether the schema has stored views (then every write records the head they are kept at).
    private let isActive: Bool
    /// The maintained records of the kinds of stored views the schema has (flat, over to-one paths, over to-many
    /// inverses): every write records its head in each.
    private let maintainedKeys: [[UInt8]]

    /// Reads which of `schema`'s stored views the store holds (their headers) in `txn`, for a write from `head`.
    /// Views kept at another head (a write by code that keeps none came in between) are stale: all are built again.
    init(schema: Schema, store: LogStore, head: UInt64, in txn: LMDBTransaction) throws {
        let db = store.viewsDB
        self.db = db
        let views = store.storedViews(of: schema)
        isActive = db != nil && !views.isEmpty
        maintainedKeys = isActive ? StoredView.maintainedKeys(of: views) : []
        guard let db, isActive else {
            maintained = []
            unbuilt = []
            return
        }
        var isCurrent: [[UInt8]: Bool] = [:]
        for key in maintainedKeys { isCurrent[key] = try StoredView.maintainedHead(in: db, txn, key: key) == head }
        var maintained: [StoredView] = [], unbuilt: [StoredView] = []
        for view in views {
            let current = isCurrent[view.maintainedKey] ?? false
            switch try view.state(in: db, txn) {
            case .stored where current: maintained.append(view)
            case .stored, .unbuilt: unbuilt.append(view)
            case .unstored where current: break
            case .unstored: unbuilt.append(view)
            }
        }
        self.maintained = maintained
        self.unbuilt = unbuilt
    }

    /// Updates the maintained views for `objects` (written already), then builds the unbuilt ones.
    /// `progress` is called with (view, objects read, objects of its entity) while an unbuilt view is built.
    /// Then records `head`, the head the write leaves, as the one the views are kept at.
    func write(_ objects: borrowing AppendedObjects, store: LogStore, head: UInt64,
               progress: ((String, Int, Int) -> Void)? = nil, in txn: LMDBTransaction) throws {
        guard let db, isActive else { return }
        if maintained.contains(where: \.isFlat) { try update(objects, store: store, db: db, in: txn) }
        let overPaths = maintained.filter { !$0.isFlat }
        if !overPaths.isEmpty { try updateOverPaths(overPaths, objects, store: store, db: db, in: txn) }
        for view in unbuilt {
            try store.buildStoredView(view, progress: progress.map { p in { p(view.name, $0, $1) } }, in: txn)
        }
        for key in maintainedKeys { try txn.put(db, key: key, value: StoredView.maintainedValue(head, key: key)) }
    }

    /// The maintained views of one entity, updated together: the objects of the entity the write touched are found
    /// once, and each object's values are read once into slots (``FetchedValues``) for all of them — not looked up
    /// by name in its dictionary by every view, for its predicate and again for its key.
    private struct EntityViews {
        let prefix: [UInt8]
        var views: [ViewKeys] = []
        /// The attributes any of the views reads, in the entity's order: the slots of the values read.
        package var attributes: [Attribute] = []
    }

    /// What makes one maintained view's row keys, by reference: a copy of a ``StoredView`` per object retains
    /// every array of its definition.
    private final class ViewKeys {
        /// The view's index in ``StoredViewWrite/maintained``.
        package let index: Int
        let prefix: [UInt8]
        let predicate: CompiledPredicate
        package let order: RowOrder
        /// For each key value of the order, its slot in the values read (``EntityViews/attributes``); `-1`: the id.
        var slots: [Int] = []

        init(index: Int, view: StoredView) {
            self.index = index
            prefix = view.prefix
            predicate = view.plan.predicate
            order = view.plan.order
        }

        /// ``StoredView/appendKey(id:values:to:)`` from `values` read into the slots of the view's entity.
        @inline(__always)
        func appendKey(id: ObjectID, values: FetchedValues, to out: inout ByteWriter) -> Bool {
            guard predicate.evaluate(values, id: id) else { return false }
            prefix.withUnsafeBytes { out.raw($0) }
            _ = order.encode(id: id, into: &out) { i in
                let slot = slots[i]
                return slot < 0 ? id.value : values.slots[slot]
            }
            return true
        }
    }

    /// A row key to delete or put: where it is in the write's key buffer, and its first 8 bytes after the view's
    /// prefix (big-endian, zero-padded), which order most pairs of keys without reading them.
    struct SortedKey {
        let head: UInt64
        let range: Range<Int>
    }

    private func update(_ objects: borrowing AppendedObjects, store: LogStore, db: LMDBDatabase, in txn: LMDBTransaction) throws {
        var groups: [EntityViews] = []
        for (v, view) in maintained.enumerated() where view.isFlat {  // those over key paths: updateOverPaths
            let prefix = ObjectRecordCodec.entityPrefix(view.entity.name)
            let g = groups.firstIndex { $0.prefix == prefix } ?? {
                groups.append(EntityViews(prefix: prefix))
                return groups.count - 1
            }()
            groups[g].views.append(ViewKeys(index: v, view: view))
            let names = Set(groups[g].attributes.map(\.name)).union(view.plan.attributesRead(of: view.entity).map(\.name))
            groups[g].attributes = view.entity.attributes.filter { names.contains($0.name) }
        }
        for group in groups {
            for keys in group.views {
                // An order's key value is an attribute read, or the id.
                keys.slots = keys.order.keyPaths.map { path in group.attributes.firstIndex { $0.name == path } ?? -1 }
            }
        }
        var keys = ByteWriter(capacity: 48 * objects.count * maintained.count)
        var removed = [[SortedKey]](repeating: [], count: maintained.count)
        var added = [[SortedKey]](repeating: [], count: maintained.count)
        for group in groups {
            let before = FetchedValues(attributes: group.attributes), after = FetchedValues(attributes: group.attributes)
            for slot in 0..<objects.count {  // bounded: the objects the write touched
                let id: ObjectID? = objects.withKey(of: slot) { k in
                    guard k.count > group.prefix.count, k.starts(with: group.prefix) else { return nil }
                    return try? ObjectRecordCodec.decodeID(k, prefixCount: group.prefix.count)
                }
                guard let id else { continue }
                let had = Self.read(objects[slot].before, into: before)
                let has = Self.read(objects[slot].values, into: after)
                for view in group.views {
                    let v = view.index
                    let oldStart = keys.count
                    let wasRow = had && view.appendKey(id: id, values: before, to: &keys)
                    let newStart = keys.count
                    let isRow = has && view.appendKey(id: id, values: after, to: &keys)
                    let old = oldStart..<newStart, new = newStart..<keys.count
                    if wasRow, isRow, keys.withBytes(0..<keys.count, { compareBytes(UnsafeRawBufferPointer(rebasing: $0[old]), UnsafeRawBufferPointer(rebasing: $0[new])) }) == 0 {
                        keys.truncate(to: oldStart)  // the row stays where it is
                        continue
                    }
                    let skip = view.prefix.count
                    if wasRow { removed[v].append(keys.withBytes(old) { Self.sortedKey($0, start: old.lowerBound, skipping: skip) }) }
                    if isRow { added[v].append(keys.withBytes(new) { Self.sortedKey($0, start: new.lowerBound, skipping: skip) }) }
                }
            }
        }
        for v in maintained.indices where added[v].contains(where: { $0.range.count > Limits.storedViewKeyBytesMax }) {
            // A row LMDB cannot store: the view is no longer stored (read in memory from now on).
            removed[v] = []
            added[v] = []
            try store.markUnstored(maintained[v], in: txn)
        }
        try keys.withBytes(0..<keys.count) { all in
            for v in maintained.indices {
                try Self.writeRows(removing: &removed[v], adding: &added[v], keys: UnsafeRawBufferPointer(all),
                                   of: maintained[v], db: db, in: txn)
            }
        }
    }

    /// Deletes the rows `removed` of `view` and puts the rows `added`, whose keys lie in `all`, each in key order:
    /// each delete and put finds its page from the last one's when it can.
    static func writeRows(removing removed: inout [SortedKey], adding added: inout [SortedKey], keys all: UnsafeRawBufferPointer,
                          of view: StoredView, db: LMDBDatabase, in txn: LMDBTransaction) throws {
        func precedes(_ a: SortedKey, _ b: SortedKey) -> Bool {
            if a.head != b.head { return a.head < b.head }
            return compareBytes(UnsafeRawBufferPointer(rebasing: all[a.range]), UnsafeRawBufferPointer(rebasing: all[b.range])) < 0
        }
        func sortedByKey(_ keys: inout [SortedKey]) {
            // Often in order already (a view in id order, rows appended at its end): then not sorted again.
            if keys.indices.dropFirst().contains(where: { !precedes(keys[$0 - 1], keys[$0]) }) { keys.sort(by: precedes) }
        }
        if !removed.isEmpty {
            sortedByKey(&removed)
            for k in removed {
                guard try txn.delete(db, key: Array(all[k.range])) else {
                    throw StoreError.corrupt(seq: nil, reason: "stored view '\(view.name)' lacks a row its object had before this write: run 'viewlog verify'")
                }
            }
        }
        if !added.isEmpty {
            sortedByKey(&added)
            try txn.withSequentialPuts(db) { puts in
                for k in added {
                    let key = UnsafeRawBufferPointer(rebasing: all[k.range])
                    try puts.put(key: key, reserving: StoredView.rowValueBytes) { out in StoredView.writeRowValue(of: key, into: out) }
                }
            }
        }
    }

    /// Reads `values` (`nil`: the object is absent) into `fetched`'s slots; `false` when absent. The dictionary is
    /// walked, not searched: its few entries are matched with the few attributes read by comparing names, which
    /// costs less than hashing each name.
    private static func read(_ values: ObjectValues?, into fetched: FetchedValues) -> Bool {
        guard let values else { return false }
        let attributes = fetched.attributes
        for i in attributes.indices { fetched.slots[i] = .null }
        for (name, value) in values {
            var i = 0
            while i < attributes.count {  // bounded by the attributes read
                if attributes[i].name == name {
                    fetched.slots[i] = value
                    break
                }
                i += 1
            }
        }
        return true
    }

    static func sortedKey(_ key: UnsafeRawBufferPointer, start: Int, skipping prefix: Int) -> SortedKey {
        var head: UInt64 = 0
        for i in 0..<8 { head = head << 8 | UInt64(prefix + i < key.count ? key[prefix + i] : 0) }
        return SortedKey(head: head, range: start..<(start + key.count))
    }
}

extension LogStore {
    /// Builds the rows of `view` from the objects at the head as `txn` sees them, replacing what the store held
    /// under its prefix, and writes its header. `progress` is called with (objects read, objects of the entity)
    /// every ``storedViewProgressObjects`` objects.
    func buildStoredView(_ view: StoredView, progress: ((Int, Int) -> Void)? = nil, in txn: LMDBTransaction) throws {
        guard let db = viewsDB else { return }
        try dropStoredView(prefix: view.prefix, in: txn)
        if let aggregates = view.aggregates {
            let entries = try aggregates.recomputedEntries(store: self, in: txn)
            guard !entries.contains(where: { $0.key.count > Limits.storedViewKeyBytesMax }) else { return try markUnstored(view, in: txn) }
            for (key, value) in entries { try txn.put(db, key: key, value: value) }
        }
        var keys = ByteWriter(capacity: 4096)
        let total = progress == nil ? 0 : try countObjects(of: view.entity.name, in: txn)
        var rows: [Range<Int>] = []
        try storedViewRowKeys(of: view, into: &keys, rows: &rows, progress: progress, total: total, in: txn)
        guard !rows.contains(where: { $0.count > Limits.storedViewKeyBytesMax }) else { return try markUnstored(view, in: txn) }
        try view.prefix.withUnsafeBytes { k in
            try view.headerValue.withUnsafeBytes { v in try txn.put(db, key: k, value: v) }
        }
        try keys.withBytes(0..<keys.count) { all in
            func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
                compareBytes(UnsafeRawBufferPointer(rebasing: all[a]), UnsafeRawBufferPointer(rebasing: all[b])) < 0
            }
            // Sorted only when the order is not the objects' (a view in id order is already).
            if rows.indices.dropFirst().contains(where: { !precedes(rows[$0 - 1], rows[$0]) }) { rows.sort(by: precedes) }
            try txn.withSequentialPuts(db) { puts in
                for r in rows {
                    let key = UnsafeRawBufferPointer(rebasing: all[r])
                    try puts.put(key: key, reserving: StoredView.rowValueBytes) { out in StoredView.writeRowValue(of: key, into: out) }
                }
            }
        }
        progress?(total, total)
    }

    /// Drops the rows of `view` and marks it as not stored: one of its rows has a key longer than LMDB's limit.
    func markUnstored(_ view: StoredView, in txn: LMDBTransaction) throws {
        guard let db = viewsDB else { return }
        try dropStoredView(prefix: view.prefix, in: txn)
        try view.prefix.withUnsafeBytes { k in
            try view.unstoredHeaderValue.withUnsafeBytes { v in try txn.put(db, key: k, value: v) }
        }
    }

    /// Objects read between two calls of a stored view's build progress.
    static let storedViewProgressObjects = 65_536

    /// Removes every entry under `prefix` (a view's header and rows) and the view's aggregate state.
    func dropStoredView(prefix: [UInt8], in txn: LMDBTransaction) throws {
        try dropViewEntries(under: prefix, in: txn)
        try dropViewEntries(under: StoredAggregates.statePrefixHead + prefix, in: txn)
    }

    /// Removes every entry of the `views` database under `prefix`.
    func dropViewEntries(under prefix: [UInt8], in txn: LMDBTransaction) throws {
        guard let db = viewsDB else { return }
        while true {  // bounded: each pass removes up to a chunk of the entries, and nothing adds any
            var keys: [[UInt8]] = []
            try txn.scan(db, prefix: prefix) { e in
                keys.append(Array(e.key))
                return keys.count < Self.upgradeChunkRows ? .next : .stop
            }
            guard !keys.isEmpty else { return }
            for k in keys { _ = try txn.delete(db, key: k) }
        }
    }

    /// The number of object rows of `entity` at the head.
    private func countObjects(of entity: String, in txn: LMDBTransaction) throws -> Int {
        try txn.scan(objectsDB, prefix: ObjectRecordCodec.entityPrefix(entity)) { _ in .next }
    }
}
