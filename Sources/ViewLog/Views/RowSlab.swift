/// A row's place in a ``RowSlab``: a 4-byte handle that the order tree stores instead of the row's key.
struct RowSlot: CountedTreeElement, Hashable {
    var raw: UInt32
    var weight: Int { 1 }
}

/// Storage of the rows of a view: for every row its id and key values, in fixed-size chunks addressed by
/// ``RowSlot``, plus an open-addressing index from id to slot.
///
/// Memory per row beyond its key values: the id (24 bytes), one 4-byte slot in the index at a load of at most
/// 3/4, and the free list entry when a slot is recycled. Chunks never move, so growing the slab copies only
/// the small array of chunk references, never the rows.
final class RowSlab {
    /// Rows per chunk.
    static let chunkRows = 4096
    /// Key values per row.
    let width: Int
    private var idChunks: [[ObjectID]] = []
    private var keyChunks: [[Value]] = []
    private var free: [UInt32] = []
    private var slotCount = 0
    /// Open addressing, linear probing: slot raw values, `empty` where none.
    private var index: [UInt32]
    private static var empty: UInt32 { .max }
    /// Number of rows.
    private(set) var count = 0

    /// Makes an empty slab for rows with `width` key values.
    init(width: Int) {
        self.width = width
        self.index = Array(repeating: RowSlab.empty, count: 16)
    }

    // MARK: - Rows

    /// The id of the row in `slot`.
    @inline(__always)
    func id(_ slot: RowSlot) -> ObjectID {
        let s = Int(slot.raw)
        return idChunks[s / RowSlab.chunkRows][s % RowSlab.chunkRows]
    }

    /// Key value `i` of the row in `slot`.
    @inline(__always)
    func value(_ slot: RowSlot, _ i: Int) -> Value {
        let s = Int(slot.raw)
        return keyChunks[s / RowSlab.chunkRows][(s % RowSlab.chunkRows) * width + i]
    }

    /// The full key of the row in `slot`.
    func key(_ slot: RowSlot) -> RowKey {
        RowKey(values: (0..<width).map { value(slot, $0) }, id: id(slot))
    }

    /// The slot of the row with `id`, if it is stored.
    func slot(of id: ObjectID) -> RowSlot? {
        let mask = index.count - 1
        var i = id.hashValue & mask
        while index[i] != RowSlab.empty {
            if self.id(RowSlot(raw: index[i])) == id { return RowSlot(raw: index[i]) }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Stores a row that must not be stored yet; returns its slot.
    func add(_ key: RowKey) -> RowSlot {
        precondition(key.values.count == width, "RowSlab key of the wrong width")
        let raw: UInt32
        if let f = free.popLast() {
            raw = f
        } else {
            precondition(slotCount < Int(UInt32.max), "RowSlab is full")
            raw = UInt32(slotCount)
            if slotCount % RowSlab.chunkRows == 0 {
                idChunks.append(Array(repeating: .int(0), count: RowSlab.chunkRows))
                keyChunks.append(Array(repeating: .null, count: RowSlab.chunkRows * width))
            }
            slotCount += 1
        }
        let s = Int(raw), c = s / RowSlab.chunkRows, r = s % RowSlab.chunkRows
        idChunks[c][r] = key.id
        for i in 0..<width { keyChunks[c][r * width + i] = key.values[i] }
        if (count + 1) * 4 > index.count * 3 { growIndex() }
        insertIndex(raw, hash: key.id.hashValue)
        count += 1
        return RowSlot(raw: raw)
    }

    /// Forgets the row in `slot`; the slot is reused by a later ``add(_:)``.
    func remove(_ slot: RowSlot) {
        removeIndex(slot)
        let s = Int(slot.raw), c = s / RowSlab.chunkRows, r = s % RowSlab.chunkRows
        idChunks[c][r] = .int(0)
        for i in 0..<width { keyChunks[c][r * width + i] = .null }
        free.append(slot.raw)
        count -= 1
    }

    // MARK: - Index

    private func insertIndex(_ raw: UInt32, hash: Int) {
        let mask = index.count - 1
        var i = hash & mask
        while index[i] != RowSlab.empty { i = (i + 1) & mask }
        index[i] = raw
    }

    /// Backward-shift deletion keeps every probe chain unbroken without tombstones.
    private func removeIndex(_ slot: RowSlot) {
        let mask = index.count - 1
        var i = id(slot).hashValue & mask
        while index[i] != slot.raw {
            precondition(index[i] != RowSlab.empty, "RowSlab slot is not indexed")
            i = (i + 1) & mask
        }
        var hole = i
        var j = (i + 1) & mask
        while index[j] != RowSlab.empty {
            let home = id(RowSlot(raw: index[j])).hashValue & mask
            // Move j into the hole when its home is not cyclically in (hole, j].
            let distanceToJ = (j - home) & mask, distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToJ {
                index[hole] = index[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        index[hole] = RowSlab.empty
    }

    private func growIndex() {
        let old = index
        index = Array(repeating: RowSlab.empty, count: old.count * 2)
        for raw in old where raw != RowSlab.empty { insertIndex(raw, hash: id(RowSlot(raw: raw)).hashValue) }
    }

    /// Checks that every stored row is indexed under its id exactly once.
    func checkInvariants() {
        var indexed = 0
        for raw in index where raw != RowSlab.empty {
            indexed += 1
            precondition(slot(of: id(RowSlot(raw: raw)))?.raw == raw, "RowSlab index does not find a row")
        }
        precondition(indexed == count, "RowSlab index count differs from row count")
        precondition(count + free.count == slotCount, "RowSlab slots leak")
    }
}
