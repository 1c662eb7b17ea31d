import RawLMDB
@_spi(Engine) import ViewLog

/// The rows of ``StoredViewWorkload/views`` as ViewLog stores them in its `views` database (schema/log-format.md,
/// "Stored views"): the view's prefix (`u16be` name length, name), then the row key — section value, sort values
/// with their directions, id — in ViewLog's order-preserving encoding (`Sources/ViewLog/Views/KeyEncoding.swift`),
/// byte for byte. The raw-LMDB peer puts these keys, so its B-tree holds what ViewLog's holds.
public enum RawViewKeys {
    /// The key of item `id` (values of `AppendPlan`: `Workload.values(id, score: id % 1000)`) in each of the views,
    /// in the order of ``StoredViewWorkload/views``.
    public static func keys(id: Int) -> [[UInt8]] {
        let score = Int64(id % 1000), name = Workload.name(id)
        var byScore = prefix("byScore")
        number(score, ascending: true, into: &byScore)
        intID(Int64(id), into: &byScore)
        var activeByName = prefix("activeByName")
        string(name, ascending: true, into: &activeByName)
        intID(Int64(id), into: &activeByName)
        var sections = prefix("sections")
        bool(true, ascending: true, into: &sections)
        number(score, ascending: false, into: &sections)
        string(name, ascending: true, into: &sections)
        intID(Int64(id), into: &sections)
        return [byScore, activeByName, sections]
    }

    static func prefix(_ name: String) -> [UInt8] {
        let n = Array(name.utf8)
        return [UInt8(n.count >> 8), UInt8(n.count & 0xFF)] + n
    }

    static func complement(_ out: inout [UInt8], from start: Int, if descending: Bool) {
        guard descending else { return }
        for i in start..<out.count { out[i] = ~out[i] }
    }

    static func bigEndian(_ x: UInt64, into out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: x >> UInt64(shift))) }
    }

    /// An int: zero tag; or sign tag, 2-byte biased binary exponent, the bits after the leading one left-aligned.
    static func number(_ i: Int64, ascending: Bool, into out: inout [UInt8]) {
        let start = out.count
        if i == 0 {
            out.append(0x32)
        } else {
            let negative = i < 0, mantissa = i.magnitude
            let lead = mantissa.leadingZeroBitCount
            let e = UInt16(63 - lead + 0x8000)
            let fraction = mantissa << UInt64(lead + 1)  // 0 when the shift is 64
            let flip: UInt8 = negative ? 0xFF : 0
            out.append(negative ? 0x31 : 0x33)
            out.append(UInt8(e >> 8) ^ flip)
            out.append(UInt8(e & 0xFF) ^ flip)
            bigEndian(negative ? ~fraction : fraction, into: &out)
        }
        complement(&out, from: start, if: !ascending)
    }

    /// A string: tag, UTF-8 with `00` escaped as `00 FF`, terminator `00 01`.
    static func string(_ s: String, ascending: Bool, into out: inout [UInt8]) {
        let start = out.count
        out.append(0x40)
        for b in s.utf8 {
            out.append(b)
            if b == 0 { out.append(0xFF) }
        }
        out += [0, 1]
        complement(&out, from: start, if: !ascending)
    }

    static func bool(_ b: Bool, ascending: Bool, into out: inout [UInt8]) {
        let start = out.count
        out += [0x20, b ? 1 : 0]
        complement(&out, from: start, if: !ascending)
    }

    /// An int id: `01`, then the sign-flipped big-endian int64.
    static func intID(_ i: Int64, into out: inout [UInt8]) {
        out.append(0x01)
        bigEndian(UInt64(bitPattern: i) ^ (1 << 63), into: &out)
    }
}

/// The stored-view rows of one raw write, flattened for ``RawStore/write(_:viewKeys:)``.
public struct RawViewRows {
    public var keys: [UInt8] = []
    public var keyBytes: [UInt32] = []

    /// The rows of items `ids` in the first `views` of ``StoredViewWorkload/views``: sorted byte-wise (ViewLog sorts
    /// each view's keys before it puts them), or view after view in id order (the order of the inserts).
    public init(ids: Range<Int>, views: Int, sorted: Bool) {
        guard views > 0 else { return }
        var rows: [[UInt8]] = []
        rows.reserveCapacity(ids.count * views)
        let perID = ids.map { RawViewKeys.keys(id: $0).prefix(views) }
        for v in 0..<views { for k in perID { rows.append(k[k.startIndex + v]) } }
        if sorted { rows.sort { $0.lexicographicallyPrecedes($1) } }
        for r in rows {
            keys += r
            keyBytes.append(UInt32(r.count))
        }
    }
}

extension RawStore {
    /// Does the puts of `w` and the stored-view rows `rows` in one LMDB write.
    public func write(_ w: RawWrite, viewKeys rows: RawViewRows) {
        let rc = w.logValueBytes.withUnsafeBufferPointer { lv in
            w.objectKeys.withUnsafeBufferPointer { k in
                w.objectKeyBytes.withUnsafeBufferPointer { kb in
                    w.objectValueBytes.withUnsafeBufferPointer { vb in
                        rows.keys.withUnsafeBufferPointer { ik in
                            rows.keyBytes.withUnsafeBufferPointer { ikb in
                                rawlmdb_append_indexed(handle, w.firstSeq, lv.count, lv.baseAddress, kb.count, k.baseAddress,
                                                       kb.baseAddress, vb.baseAddress, ikb.count, ik.baseAddress,
                                                       ikb.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        precondition(rc == 0, "rawlmdb_append_indexed: \(rc)")
    }

    /// The pages the last write freed: the old copies of the pages it rewrote.
    public var lastWriteFreedPages: Int {
        var freed = 0
        let rc = rawlmdb_last_txn_freed_pages(handle, &freed)
        precondition(rc == 0, "rawlmdb_last_txn_freed_pages: \(rc)")
        return freed
    }

    /// The `views` database's entries, leaf and branch pages.
    public var viewsStat: (entries: Int, leafPages: Int, branchPages: Int) {
        var entries = 0, leaves = 0, branches = 0, depth = 0
        let rc = rawlmdb_views_stat(handle, &entries, &leaves, &branches, &depth)
        precondition(rc == 0, "rawlmdb_views_stat: \(rc)")
        return (entries, leaves, branches)
    }
}

/// The raw-LMDB peer of ``measureAppendWithStoredViews(root:writes:rounds:durable:)``: in C, in one durable LMDB
/// write each, the puts of ``AppendPlan``'s 10,000-insert write (log entry, object rows, meta head) and the rows
/// of 0, 1 and 3 stored views with ViewLog's keys, into one `views` database (``RawViewRows``), through one cursor
/// — and nothing else: no encoding, no reads, the keys made and `sorted` (or not) before the clock starts. Three
/// environments take turns as the stores do. Returns nanoseconds per write for each view count.
public func measureRawLMDBAppendWithIndexes(root: String, writes: Int, rounds: Int = 5, sorted: Bool = true,
                                            durable: Bool = true) -> [Int: [Double]] {
    let counts = [0, 1, 3]
    let tag = sorted ? "sorted" : "unsorted"
    let stores = counts.map { RawStore(path: scratchPath(root, "raw-indexed-\(tag)-\($0)"), durable: durable) }
    let plan = AppendPlan(shape: .batch, writes: writes * rounds + 1, firstID: 1, firstSeq: 1)
    let perWrite = AppendShape.batch.changesPerWrite
    // Every write's rows, made before any is timed.
    let rows = counts.map { n in
        (0..<plan.raw.count).map { i in RawViewRows(ids: (1 + i * perWrite)..<(1 + (i + 1) * perWrite), views: n, sorted: sorted) }
    }
    for (k, s) in stores.enumerated() { s.write(plan.raw[0], viewKeys: rows[k][0]) }
    var out: [Int: [Double]] = [:]
    for i in 1..<plan.raw.count {
        for (k, s) in stores.enumerated() {
            let w = plan.raw[i], r = rows[k][i]
            out[counts[k], default: []].append(time { s.write(w, viewKeys: r) })
        }
    }
    for n in counts { removeTree(root + "/raw-indexed-\(tag)-\(n)") }
    return out
}

/// Pages one 10,000-insert write rewrites, from LMDB's free list, in the raw peer with 0, 1 and 3 views.
public struct RawIndexPages: Sendable, Codable {
    /// Views in the store.
    public var views: Int
    /// Median over the writes of the pages the write freed (old copies of rewritten pages, all databases).
    public var freedPerWrite: Double
    /// The pages the last write freed.
    public var freedLastWrite: Int
    /// Leaf and branch pages the `views` database gained per write (splits), mean over the writes.
    public var newViewPagesPerWrite: Double
    /// The `views` database after the writes.
    public var entries: Int, leafPages: Int, branchPages: Int
}

/// What the raw peer's writes do to LMDB's pages, and the same numbers read from ViewLog stores that took the same
/// writes (closed first: one environment per file per process): `writes` 10,000-insert writes (sorted rows, no
/// flush: pages are the same either way) into 0, 1 and 3 views. The ViewLog side has only its last write's pages
/// (its `freedPerWrite` is that too) and no splits count; its entries include one header per view.
public func measureRawLMDBIndexPages(root: String, writes: Int) -> (raw: [RawIndexPages], viewlog: [RawIndexPages]) {
    let counts = [0, 1, 3]
    let plan = AppendPlan(shape: .batch, writes: writes, firstID: 1, firstSeq: 1)
    let perWrite = AppendShape.batch.changesPerWrite
    var raw: [RawIndexPages] = [], viewlog: [RawIndexPages] = []
    for n in counts {
        let path = scratchPath(root, "raw-pages-\(n)")
        do {
            let store = RawStore(path: path, durable: false)
            var freed: [Double] = []
            var before = store.viewsStat
            var grown = 0
            for i in 0..<plan.raw.count {
                store.write(plan.raw[i], viewKeys: RawViewRows(ids: (1 + i * perWrite)..<(1 + (i + 1) * perWrite), views: n, sorted: true))
                let after = store.viewsStat
                // The first write makes the trees: only the later ones rewrite pages.
                if i > 0 {
                    freed.append(Double(store.lastWriteFreedPages))
                    grown += after.leafPages + after.branchPages - before.leafPages - before.branchPages
                }
                before = after
            }
            let last = Int(freed.last ?? 0)
            freed.sort()
            raw.append(RawIndexPages(views: n, freedPerWrite: freed.isEmpty ? 0 : freed[freed.count / 2], freedLastWrite: last,
                                     newViewPagesPerWrite: Double(grown) / Double(max(1, plan.raw.count - 1)),
                                     entries: before.entries, leafPages: before.leafPages, branchPages: before.branchPages))
        }
        removeTree(path)
        let vpath = scratchPath(root, "viewlog-pages-\(n)")
        do {
            let store: LogStore
            do {
                store = try LogStore.create(at: vpath, schema: StoredViewWorkload.schema(views: n),
                                            options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
                for r in plan.requests { try store.append(r) }
            } catch { fatalError("ViewLog pages: \(error)") }
            _ = store
        }
        var entries = 0, leaves = 0, branches = 0, freed = 0
        let rc = rawlmdb_dir_db_stat(vpath, "views", &entries, &leaves, &branches, &freed)
        if rc == 0 {
            viewlog.append(RawIndexPages(views: n, freedPerWrite: Double(freed), freedLastWrite: freed, newViewPagesPerWrite: 0,
                                         entries: entries, leafPages: leaves, branchPages: branches))
        }
        removeTree(vpath)
    }
    return (raw, viewlog)
}
