/// A row as the order tree holds it: the first 16 bytes of its key (``RowKey``) inline, as two big-endian
/// words padded with zeros, and its place in a ``RowSlab``. Two rows whose first 16 bytes differ compare
/// inside the tree's node; only a tie reads the rest of the key from the slab.
struct RowSlot: CountedTreeElement, Hashable {
    var prefix0: UInt64
    var prefix1: UInt64
    /// The row's slot in the slab.
    var raw: UInt32
    var weight: Int { 1 }

    /// The tree element of the row in slot `raw` with key `key`.
    @inline(__always)
    init(raw: UInt32, key: UnsafeRawBufferPointer) {
        self.raw = raw
        (prefix0, prefix1) = RowSlot.prefix(key)
    }

    /// The first 16 bytes of `key` as two big-endian words, zero-padded.
    @inline(__always)
    static func prefix(_ key: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        if key.count >= 16 {
            return (UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)),
                    UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { w in
            for i in 0..<key.count { w[i] = key[i] }
        }
        return (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
    }
}

/// Storage of the rows of a view: every row's key bytes (which end with its id), in fixed-size slots of
/// fixed-size chunks addressed by a 4-byte slot number, plus an open-addressing index from id bytes to slot.
///
/// A slot holds a 2-byte length, the 2-byte offset of the id in the key, and the key inline when it fits the
/// view's inline size (every key of a view without strings does); a longer key is kept apart. Chunks never
/// move: growing the slab copies only the small array of chunk addresses, never the rows. Ids are found by
/// their bytes, so two ids are the same row only when their code points are.
final class RowSlab {
    /// Rows per chunk.
    static let chunkRows = 4096
    /// Marks a slot whose key is kept in ``overflow``.
    private static let overflowLength = UInt16.max
    /// Key bytes kept in a slot.
    let inlineBytes: Int
    /// Bytes per slot: the header, then the inline key.
    private let slotBytes: Int
    private var chunks: [UnsafeMutableRawPointer] = []
    private var overflow: [UInt32: RowKey] = [:]
    private var free: [UInt32] = []
    private var slotCount = 0
    /// Open addressing, linear probing: slot numbers, `empty` where none.
    private var index: [UInt32]
    private static var empty: UInt32 { .max }
    /// Number of rows.
    private(set) var count = 0

    /// Makes an empty slab keeping up to `inlineKeyBytes` of each key inline.
    init(inlineKeyBytes: Int) {
        self.inlineBytes = min(max(inlineKeyBytes, 16), Int(UInt16.max) - 1)
        self.slotBytes = (4 + inlineBytes + 3) & ~3
        self.index = Array(repeating: RowSlab.empty, count: 16)
    }

    deinit {
        for c in chunks { c.deallocate() }
    }

    // MARK: - Rows

    @inline(__always)
    private func address(_ raw: UInt32) -> UnsafeMutableRawPointer {
        let s = Int(raw)
        return chunks[s / RowSlab.chunkRows] + (s % RowSlab.chunkRows) * slotBytes
    }

    /// Calls `body` with the key bytes of the row in slot `raw` and where its id starts.
    @inline(__always)
    func withKey<R>(_ raw: UInt32, _ body: (UnsafeRawBufferPointer, Int) -> R) -> R {
        let p = address(raw)
        let length = p.loadUnaligned(as: UInt16.self)
        if length == RowSlab.overflowLength {
            guard let key = overflow[raw] else { preconditionFailure("RowSlab: overflow key missing") }
            return key.bytes.withUnsafeBytes { body($0, key.idStart) }
        }
        let idStart = Int(p.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        return body(UnsafeRawBufferPointer(start: p + 4, count: Int(length)), idStart)
    }

    /// The key of the row in slot `raw`.
    func key(_ raw: UInt32) -> RowKey { withKey(raw) { RowKey(bytes: Array($0), idStart: $1) } }

    /// The id of the row in slot `raw`.
    func id(_ raw: UInt32) -> ObjectID { withKey(raw) { KeyEncoding.id($0, at: $1) } }

    /// The slot of the row whose id encodes as `idBytes`, if it is stored.
    func find(idBytes: UnsafeRawBufferPointer) -> UInt32? {
        let mask = index.count - 1
        var i = RowSlab.hash(idBytes) & mask
        while index[i] != RowSlab.empty {
            let raw = index[i]
            if withKey(raw, { key, idStart in compareBytes(UnsafeRawBufferPointer(rebasing: key[idStart...]), idBytes) == 0 }) {
                return raw
            }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Stores a row (whose id must not be stored yet) with key `key`, its id starting at `idStart`; returns its
    /// slot.
    func add(_ key: UnsafeRawBufferPointer, idStart: Int) -> UInt32 {
        let raw: UInt32
        if let f = free.popLast() {
            raw = f
        } else {
            precondition(slotCount < Int(UInt32.max), "RowSlab is full")
            raw = UInt32(slotCount)
            if slotCount % RowSlab.chunkRows == 0 {
                chunks.append(.allocate(byteCount: RowSlab.chunkRows * slotBytes, alignment: 8))
            }
            slotCount += 1
        }
        let p = address(raw)
        if key.count <= inlineBytes {
            p.storeBytes(of: UInt16(key.count), as: UInt16.self)
            p.storeBytes(of: UInt16(idStart), toByteOffset: 2, as: UInt16.self)
            if let base = key.baseAddress { (p + 4).copyMemory(from: base, byteCount: key.count) }
        } else {
            p.storeBytes(of: RowSlab.overflowLength, as: UInt16.self)
            overflow[raw] = RowKey(bytes: Array(key), idStart: idStart)
        }
        if (count + 1) * 4 > index.count * 3 { growIndex() }
        insertIndex(raw, hash: RowSlab.hash(UnsafeRawBufferPointer(rebasing: key[idStart...])))
        count += 1
        return raw
    }

    /// Forgets the row in slot `raw`; the slot is reused by a later ``add(_:idStart:)``.
    func remove(_ raw: UInt32) {
        removeIndex(raw)
        let p = address(raw)
        if p.loadUnaligned(as: UInt16.self) == RowSlab.overflowLength { overflow[raw] = nil }
        p.storeBytes(of: 0, as: UInt16.self)
        free.append(raw)
        count -= 1
    }

    // MARK: - Index

    /// A hash of an id's bytes (8 bytes at a time, multiply and fold).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        while i < bytes.count {
            tail = tail << 8 | UInt64(bytes[i])
            i += 1
        }
        h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 32
        return Int(truncatingIfNeeded: h)
    }

    private func idHash(_ raw: UInt32) -> Int {
        withKey(raw) { key, idStart in RowSlab.hash(UnsafeRawBufferPointer(rebasing: key[idStart...])) }
    }

    private func insertIndex(_ raw: UInt32, hash: Int) {
        let mask = index.count - 1
        var i = hash & mask
        while index[i] != RowSlab.empty { i = (i + 1) & mask }
        index[i] = raw
    }

    /// Backward-shift deletion keeps every probe chain unbroken without tombstones.
    private func removeIndex(_ raw: UInt32) {
        let mask = index.count - 1
        var i = idHash(raw) & mask
        while index[i] != raw {
            precondition(index[i] != RowSlab.empty, "RowSlab slot is not indexed")
            i = (i + 1) & mask
        }
        var hole = i
        var j = (i + 1) & mask
        while index[j] != RowSlab.empty {
            let home = idHash(index[j]) & mask
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

    /// Makes room for at least `rows` rows in the index at once (a bulk load), so that it does not rehash as it
    /// doubles.
    func reserve(_ rows: Int) {
        var size = index.count
        while rows * 4 > size * 3 { size *= 2 }
        if size > index.count { rehash(size) }
    }

    private func growIndex() { rehash(index.count * 2) }

    private func rehash(_ size: Int) {
        let old = index
        index = Array(repeating: RowSlab.empty, count: size)
        for raw in old where raw != RowSlab.empty { insertIndex(raw, hash: idHash(raw)) }
    }

    /// Checks that every stored row is indexed under its id exactly once.
    func checkInvariants() {
        var indexed = 0
        for raw in index where raw != RowSlab.empty {
            indexed += 1
            let found = withKey(raw) { key, idStart in find(idBytes: UnsafeRawBufferPointer(rebasing: key[idStart...])) }
            precondition(found == raw, "RowSlab index does not find a row")
        }
        precondition(indexed == count, "RowSlab index count differs from row count")
        precondition(count + free.count == slotCount, "RowSlab slots leak")
    }
}
