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
    /// Whether some are over key paths (then every write records the head those are kept at too).
    private let hasPathViews: Bool

    /// Reads which of `schema`'s stored views the store holds (their headers) in `txn`, for a write from `head`.
    /// Views kept at another head (a write by code that keeps none came in between) are stale: all are built again.
    init(schema: Schema, store: LogStore, head: UInt64, in txn: LMDBTransaction) throws {
        let db = store.viewsDB
        self.db = db
        let views = store.storedViews(of: schema)
        isActive = db != nil && !views.isEmpty
        hasPathViews = views.contains { !$0.paths.isEmpty }
        guard let db, isActive else {
            maintained = []
            unbuilt = []
            return
        }
        let flatCurrent = try StoredView.maintainedHead(in: db, txn) == head
        let pathsCurrent = try hasPathViews && StoredView.maintainedHead(in: db, txn, key: StoredView.pathsMaintainedKey) == head
        var maintained: [StoredView] = [], unbuilt: [StoredView] = []
        for view in views {
            let current = view.paths.isEmpty ? flatCurrent : pathsCurrent
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
        if maintained.contains(where: { $0.paths.isEmpty }) { try update(objects, store: store, db: db, in: txn) }
        let overPaths = maintained.filter { !$0.paths.isEmpty }
        if !overPaths.isEmpty { try updateOverPaths(overPaths, objects, store: store, db: db, in: txn) }
        for view in unbuilt {
            try store.buildStoredView(view, progress: progress.map { p in { p(view.name, $0, $1) } }, in: txn)
        }
        try txn.put(db, key: StoredView.maintainedKey, value: StoredView.maintainedValue(head))
        if hasPathViews {
            let key = StoredView.pathsMaintainedKey
            try txn.put(db, key: key, value: StoredView.maintainedValue(head, key: key))
        }
    }

    private func update(_ objects: borrowing AppendedObjects, store: LogStore, db: LMDBDatabase, in txn: LMDBTransaction) throws {
        var keys = ByteWriter(capacity: 64 * objects.count * maintained.count)
        var removed: [Range<Int>] = [], added: [Range<Int>] = []
        for view in maintained where view.paths.isEmpty {
            let (removedBefore, addedBefore) = (removed.count, added.count)
            let entityPrefix = ObjectRecordCodec.entityPrefix(view.entity.name)
            for slot in 0..<objects.count {  // bounded: the objects the write touched
                let id: ObjectID? = objects.withKey(of: slot) { k in
                    guard k.count > entityPrefix.count, k.starts(with: entityPrefix) else { return nil }
                    return try? ObjectRecordCodec.decodeID(k, prefixCount: entityPrefix.count)
                }
                guard let id else { continue }
                let oldStart = keys.count
                let wasRow = objects[slot].before.map { view.appendKey(id: id, values: $0, to: &keys) } ?? false
                let newStart = keys.count
                let isRow = objects[slot].values.map { view.appendKey(id: id, values: $0, to: &keys) } ?? false
                let old = oldStart..<newStart, new = newStart..<keys.count
                if wasRow, isRow, keys.withBytes(0..<keys.count, { compareBytes(UnsafeRawBufferPointer(rebasing: $0[old]), UnsafeRawBufferPointer(rebasing: $0[new])) }) == 0 {
                    keys.truncate(to: oldStart)  // the row stays where it is
                    continue
                }
                if wasRow { removed.append(old) }
                if isRow { added.append(new) }
            }
            if added[addedBefore...].contains(where: { $0.count > Limits.storedViewKeyBytesMax }) {
                // A row LMDB cannot store: the view is no longer stored (read in memory from now on).
                removed.removeSubrange(removedBefore...)
                added.removeSubrange(addedBefore...)
                try store.markUnstored(view, in: txn)
            }
        }
        try keys.withBytes(0..<keys.count) { all in
            func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
                compareBytes(UnsafeRawBufferPointer(rebasing: all[a]), UnsafeRawBufferPointer(rebasing: all[b])) < 0
            }
            // In key order: each put finds its page from the last one's when it can.
            for r in removed.sorted(by: precedes) {
                guard try txn.delete(db, key: Array(all[r])) else {
                    throw StoreError.corrupt(seq: nil, reason: "stored view '\(StoredView.name(in: UnsafeRawBufferPointer(rebasing: all[r])) ?? "?")' lacks a row its object had before this write: run 'viewlog verify'")
                }
            }
            try txn.withSequentialPuts(db) { puts in
                for r in added.sorted(by: precedes) {
                    let key = UnsafeRawBufferPointer(rebasing: all[r])
                    let value = StoredView.rowValue(of: key)
                    try puts.put(key: key, reserving: value.count) { out in out.copyBytes(from: value) }
                }
            }
        }
    }
}

extension LogStore {
    /// Builds the rows of `view` from the objects at the head as `txn` sees them, replacing what the store held
    /// under its prefix, and writes its header. `progress` is called with (objects read, objects of the entity)
    /// every ``storedViewProgressObjects`` objects.
    func buildStoredView(_ view: StoredView, progress: ((Int, Int) -> Void)? = nil, in txn: LMDBTransaction) throws {
        guard let db = viewsDB else { return }
        try dropStoredView(prefix: view.prefix, in: txn)
        var keys = ByteWriter(capacity: 4096)
        var rows: [Range<Int>] = []
        let total = progress == nil ? 0 : try countObjects(of: view.entity.name, in: txn)
        var tooLong = false
        try forEachStoredViewRow(of: view, progress: progress, total: total, in: txn) { id, values in
            let start = keys.count
            if view.appendKey(id: id, values: values, to: &keys) { rows.append(start..<keys.count) }
            tooLong = tooLong || keys.count - start > Limits.storedViewKeyBytesMax
        }
        guard !tooLong else { return try markUnstored(view, in: txn) }
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
                    let value = StoredView.rowValue(of: key)
                    try puts.put(key: key, reserving: value.count) { out in out.copyBytes(from: value) }
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

    /// Removes every entry under `prefix` (a view's header and rows).
    func dropStoredView(prefix: [UInt8], in txn: LMDBTransaction) throws {
        guard let db = viewsDB else { return }
        while true {  // bounded: each pass removes up to a chunk of the view's entries, and nothing adds any
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
