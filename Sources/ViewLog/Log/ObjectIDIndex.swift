/// Row numbers by object id, for a fold that touches an object per change (``SlotRows``): open addressing with
/// linear probing over a power-of-two table of row numbers, the ids themselves kept by the caller.
///
/// A `[ObjectID: Int]` costs a seeded SipHash per lookup, about a fifth of a replay's time when measured. An int
/// id is hashed here by one multiply-xorshift, a string id by ``RowSlab/hash(_:)`` of its UTF-8 (equality is
/// ``ObjectID``'s, by code point, so both agree). Both are mixed with a per-process random seed, so the layout
/// of the table cannot be chosen by whoever wrote the ids.
struct ObjectIDIndex {
    /// Row numbers, `-1` where empty; the count is a power of two, at most half full.
    private var table: [Int32]
    private(set) var count = 0

    private static let seed = UInt64.random(in: .min ... .max)

    /// An index with room for `capacity` ids before it grows.
    init(capacity: Int = 0) {
        var size = 16
        while size < 2 * capacity { size *= 2 }  // bounded: doubles up to twice the capacity
        table = Array(repeating: -1, count: size)
    }

    @inline(__always)
    static func hash(_ id: ObjectID) -> Int {
        switch id {
        case .int(let v):
            var h = (UInt64(bitPattern: v) ^ seed) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 32
            return Int(truncatingIfNeeded: h)
        case .string(let s):
            var s = s
            return s.withUTF8 { RowSlab.hash(UnsafeRawBufferPointer($0)) } ^ Int(truncatingIfNeeded: seed)
        }
    }

    /// The row of `id`, whose ids are `ids` (row `r` holds `ids[r]`).
    @inline(__always)
    func row(of id: ObjectID, in ids: [ObjectID]) -> Int? {
        let mask = table.count - 1
        var i = Self.hash(id) & mask
        while true {  // bounded: the table is at most half full, so an empty slot ends the probe
            let r = table[i]
            if r < 0 { return nil }
            if ids[Int(r)] == id { return Int(r) }
            i = (i + 1) & mask
        }
    }

    /// Records that `id` (not yet in the index) is at `row`; `ids` holds every indexed id by row.
    mutating func insert(_ id: ObjectID, row: Int, in ids: [ObjectID]) {
        precondition(row < Int(Int32.max), "more rows than an index holds")
        if 2 * (count + 1) > table.count { grow(ids) }
        place(Int32(row), hash: Self.hash(id))
        count += 1
    }

    private mutating func place(_ row: Int32, hash: Int) {
        let mask = table.count - 1
        var i = hash & mask
        while table[i] >= 0 { i = (i + 1) & mask }  // bounded: at most half full
        table[i] = row
    }

    private mutating func grow(_ ids: [ObjectID]) {
        let old = table
        table = Array(repeating: -1, count: old.count * 2)
        for r in old where r >= 0 { place(r, hash: Self.hash(ids[Int(r)])) }
    }
}
