@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import CPrefetch

/// Row numbers by object id, for a fold that touches an object per change (``SlotRows``): open addressing with
/// linear probing over a power-of-two table; the caller keeps the ids by row, which confirm a string id.
///
/// A `[ObjectID: Int]` costs a seeded SipHash per lookup, about a fifth of a replay's time when measured. An int
/// id is hashed here by one seeded finalizer (two multiplies), a string id by ``IDHash/hash(_:seed:)`` of its UTF-8 (equality is
/// ``ObjectID``'s, by code point, so both agree). Both are mixed with a per-process random seed, so the layout
/// of the table cannot be chosen by whoever wrote the ids.
///
/// While the ids are ints that come in ascending order from the first and fill their range densely (a store's
/// own counters: 1, 2, 3 …), the rows are found in an array indexed by `id - first`, four bytes per id: no hash,
/// and a table a tenth the size, so a fold's look-up per change stays in cache. The first id that does not fit
/// (a string, one below the first, or one that would leave the array less than a quarter used) moves every entry
/// to the hash table, for good.
package struct ObjectIDIndex {
    /// Dense mode: `row + 1` of the int id `denseBase + i` at `i`, `0` where none. Empty once hashed.
    private var dense: [Int32] = []
    private var denseBase: Int64 = 0
    private var isDense = true
    /// Hash mode: two words per slot: the key (an int id itself, a string id's hash), then
    /// `(row + 1) << 1 | isInt`, `0` where empty. An int id is found without reading the ids (one cache miss less per
    /// change); a string id is confirmed against them. The slot count is a power of two, at most half used.
    private var table: [Int64] = []
    private(set) var count = 0
    /// The ids the index was made for (the hash table's size when it starts hashed).
    private let capacity: Int

    /// An index with room for `capacity` ids before it grows.
    package init(capacity: Int = 0) {
        self.capacity = capacity
        dense.reserveCapacity(capacity)
    }

    /// The most ids a dense array may span for `count` ids: a quarter used at least (plus slack for small ones).
    private static func denseSpanMax(_ count: Int) -> Int { 4 * count + 1024 }

    /// Leaves dense mode: enters every dense entry in a new hash table.
    private mutating func startHashing() {
        precondition(isDense, "already hashed")
        isDense = false
        var slots = 16
        while slots < 2 * max(capacity, count + 1) { slots *= 2 }  // bounded: doubles up to twice the ids
        table = Array(repeating: 0, count: 2 * slots)
        for (i, entry) in dense.enumerated() where entry != 0 {  // bounded: the dense span
            let id = denseBase + Int64(i)
            place(key: id, entry: Int64(entry) << 1 | 1, hash: Self.hash(.int(id)))
        }
        dense = []
    }

    private var slotMask: Int { table.count / 2 - 1 }

    @inline(__always)
    static func hash(_ id: ObjectID) -> Int {
        switch id {
        case .int(let v):
            return IDHash.mix(UInt64(bitPattern: v))
        case .string(let s):
            var s = s
            return s.withUTF8 { IDHash.hash(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The key word and the int flag of `id` given its hash.
    @inline(__always)
    private static func key(_ id: ObjectID, hash: Int) -> (Int64, Int64) {
        if case .int(let v) = id { return (v, 1) }
        return (Int64(hash), 0)
    }

    /// In dense mode, where `id`'s entry is in `dense`, or `nil` when it falls outside (a string id, or an int
    /// below the first or past the array).
    @inline(__always)
    private func denseOffset(of id: ObjectID) -> Int? {
        guard case .int(let v) = id, v >= denseBase else { return nil }
        let (offset, overflow) = v.subtractingReportingOverflow(denseBase)
        guard !overflow, offset < Int64(dense.count) else { return nil }
        return Int(offset)
    }

    /// The row of `id`, whose ids are `ids` (row `r` holds `ids[r]`).
    @inline(__always)
    package func row(of id: ObjectID, in ids: [ObjectID]) -> Int? {
        if isDense {
            guard let offset = denseOffset(of: id) else { return nil }
            let entry = dense[offset]
            return entry == 0 ? nil : Int(entry) - 1
        }
        let mask = slotMask
        let h = Self.hash(id)
        let (key, isInt) = Self.key(id, hash: h)
        var i = h & mask
        while true {  // bounded: the table is at most half full, so an empty slot ends the probe
            let entry = table[2 * i + 1]
            if entry == 0 { return nil }
            if table[2 * i] == key, entry & 1 == isInt {
                let r = Int(entry >> 1) - 1
                if isInt == 1 || ids[r] == id { return r }
            }
            i = (i + 1) & mask
        }
    }

    /// Asks the CPU to bring in the entry `row(of:in:)` reads first for `id`, without waiting for it: a caller
    /// that looks up a batch of ids prefetches them all first, so their cache misses overlap.
    @inline(__always)
    package func prefetch(_ id: ObjectID) {
        if isDense {
            guard let offset = denseOffset(of: id) else { return }
            dense.withUnsafeBufferPointer { viewlog_prefetch($0.baseAddress! + offset) }
            return
        }
        guard !table.isEmpty else { return }
        let i = Self.hash(id) & slotMask
        table.withUnsafeBufferPointer { viewlog_prefetch($0.baseAddress! + 2 * i) }
    }

    /// Records that `id` (not yet in the index) is at `row`.
    package mutating func insert(_ id: ObjectID, row: Int) {
        precondition(row >= 0 && row < Int(Int32.max), "more rows than an index holds")
        if isDense {
            if case .int(let v) = id {
                if count == 0 { denseBase = v }
                let (offset, overflow) = v.subtractingReportingOverflow(denseBase)
                if !overflow, offset >= 0, offset < Int64(Self.denseSpanMax(count + 1)) {
                    let i = Int(offset)
                    if i >= dense.count {
                        // Grown by half at least (zeros: no row), not by one per ascending id: one `append` per
                        // insert was a tenth of loading a checkpoint's rows. Within the span allowed for count + 1.
                        let grown = min(max(i + 1, dense.count + dense.count / 2, 64), Self.denseSpanMax(count + 1))
                        dense.append(contentsOf: repeatElement(0, count: grown - dense.count))
                    }
                    precondition(dense[i] == 0, "an id already in the index")
                    dense[i] = Int32(row + 1)
                    count += 1
                    return
                }
            }
            startHashing()
        }
        if 2 * (count + 1) > table.count / 2 { grow() }
        let h = Self.hash(id)
        let (key, isInt) = Self.key(id, hash: h)
        place(key: key, entry: Int64(row + 1) << 1 | isInt, hash: h)
        count += 1
    }

    private mutating func place(key: Int64, entry: Int64, hash: Int) {
        let mask = slotMask
        var i = hash & mask
        while table[2 * i + 1] != 0 { i = (i + 1) & mask }  // bounded: at most half full
        table[2 * i] = key
        table[2 * i + 1] = entry
    }

    /// Doubles the table, placing every entry again from its key (a string id's key is its hash).
    private mutating func grow() {
        let old = table
        table = Array(repeating: 0, count: old.count * 2)
        for i in stride(from: 0, to: old.count, by: 2) where old[i + 1] != 0 {
            let key = old[i], isInt = old[i + 1] & 1
            let h = isInt == 1 ? Self.hash(.int(key)) : Int(key)
            place(key: key, entry: old[i + 1], hash: h)
        }
    }
}
