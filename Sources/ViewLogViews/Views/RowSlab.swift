@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
import CPrefetch
/// A row as the order tree holds it: the first 12 bytes of its key (``RowKey``) inline, as a big-endian word
/// and half-word padded with zeros, and its place in a ``RowSlab`` — 16 bytes, so that a node's elements are
/// few cache lines. Two rows whose first 12 bytes differ compare inside the tree's node; only a tie reads the
/// rest of the key from the slab.
struct RowSlot: CountedTreeElement, Hashable {
    var prefix0: UInt64
    var prefix1: UInt32
    /// The row's slot in the slab.
    var raw: UInt32
    var weight: Int { 1 }
    /// The key's first 8 bytes: keys that differ there compare as these words do.
    var orderHint: UInt64 { prefix0 }

    /// The tree element of the row in slot `raw` with key `key`.
    @inline(__always)
    init(raw: UInt32, key: UnsafeRawBufferPointer) {
        self.raw = raw
        (prefix0, prefix1) = RowSlot.prefix(key)
    }

    /// The first 12 bytes of `key` as a big-endian word and half-word, zero-padded.
    @inline(__always)
    static func prefix(_ key: UnsafeRawBufferPointer) -> (UInt64, UInt32) {
        if key.count >= 12 {
            return (UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)),
                    UInt32(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        }
        var words: (UInt64, UInt32) = (0, 0)
        withUnsafeMutableBytes(of: &words) { w in
            for i in 0..<key.count { w[i] = key[i] }
        }
        return (UInt64(bigEndian: words.0), UInt32(bigEndian: words.1))
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
    // Its storage is unchecked for exclusivity at run time, as the tree's (``CountedBTree``).
    /// Rows per chunk.
    static let chunkRows = 4096
    /// Marks a slot whose key is kept in ``overflow``.
    private static let overflowLength = UInt16.max
    /// Key bytes kept in a slot.
    let inlineBytes: Int
    /// Bytes per slot: the header, then the inline key.
    private let slotBytes: Int
    /// Chunk addresses (`chunkCapacity` of them allocated, one per `chunkRows` slots in use). Raw storage: a
    /// lookup reads it without the exclusivity check and retain of an array held by a class.
    @exclusivity(unchecked) private var chunks: UnsafeMutablePointer<UnsafeMutableRawPointer>
    @exclusivity(unchecked) private var chunkCapacity = 0
    @exclusivity(unchecked) private var overflow: [UInt32: RowKey] = [:]
    @exclusivity(unchecked) private var free: [UInt32] = []
    @exclusivity(unchecked) private var slotCount = 0
    /// Open addressing, linear probing: slot numbers, `empty` where none; `indexSize` (a power of two) entries.
    @exclusivity(unchecked) private var index: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var indexSize: Int
    private static var empty: UInt32 { .max }
    /// Number of rows.
    @exclusivity(unchecked) private(set) var count = 0

    /// Makes an empty slab keeping up to `inlineKeyBytes` of each key inline.
    init(inlineKeyBytes: Int) {
        self.inlineBytes = min(max(inlineKeyBytes, 16), Int(UInt16.max) - 1)
        self.slotBytes = (4 + inlineBytes + 3) & ~3
        self.chunks = .allocate(capacity: 0)
        self.indexSize = 16
        self.index = .allocate(capacity: 16)
        index.initialize(repeating: RowSlab.empty, count: 16)
    }

    deinit {
        for c in 0..<(slotCount + RowSlab.chunkRows - 1) / RowSlab.chunkRows { chunks[c].deallocate() }
        chunks.deallocate()
        index.deallocate()
    }

    // MARK: - Rows

    /// The slot's memory; traps on a slot that was never allocated (a wrong slot would read or write outside
    /// the chunks).
    @inline(__always)
    private func address(_ raw: UInt32) -> UnsafeMutableRawPointer {
        let s = Int(raw)
        precondition(s < slotCount, "RowSlab: slot out of range")
        return chunks[s / RowSlab.chunkRows] + (s % RowSlab.chunkRows) * slotBytes
    }

    /// Calls `body` with the key bytes of the row in slot `raw` and where its id starts.
    @inline(__always)
    package func withKey<R>(_ raw: UInt32, _ body: (UnsafeRawBufferPointer, Int) -> R) -> R {
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
    package func key(_ raw: UInt32) -> RowKey { withKey(raw) { RowKey(bytes: Array($0), idStart: $1) } }

    /// The id of the row in slot `raw`.
    package func id(_ raw: UInt32) -> ObjectID { withKey(raw) { KeyEncoding.id($0, at: $1) } }

    /// Whether the row in slot `raw` has the id whose bytes are `idBytes`.
    @inline(__always)
    private func hasID(_ raw: UInt32, _ idBytes: UnsafeRawBufferPointer) -> Bool {
        withKey(raw) { key, idStart in compareBytes(UnsafeRawBufferPointer(rebasing: key[idStart...]), idBytes) == 0 }
    }

    /// The index position holding the row whose id encodes as `idBytes`, or the empty position where it
    /// would go: one probe serves both a lookup and an insertion.
    @inline(__always)
    private func probe(_ idBytes: UnsafeRawBufferPointer) -> (position: Int, found: Bool) {
        let mask = indexSize - 1
        var i = IDHash.hash(idBytes) & mask
        while true {
            let raw = index[i]
            if raw == RowSlab.empty { return (i, false) }
            if hasID(raw, idBytes) { return (i, true) }
            i = (i + 1) & mask
        }
    }

    /// The slot of the row whose id encodes as `idBytes`, if it is stored.
    func find(idBytes: UnsafeRawBufferPointer) -> UInt32? {
        let p = probe(idBytes)
        return p.found ? index[p.position] : nil
    }

    /// Stores a row with key `key`, its id starting at `idStart`; returns its slot. Traps when a row with that
    /// id is stored (found by the same probe that finds the row's place in the index).
    func add(_ key: UnsafeRawBufferPointer, idStart: Int) -> UInt32 {
        if (count + 1) * 4 > indexSize * 3 { rehash(indexSize * 2) }
        let idBytes = UnsafeRawBufferPointer(rebasing: key[idStart...])
        let place = probe(idBytes)
        precondition(!place.found, "RowSlab: id \(KeyEncoding.id(key, at: idStart)) is already stored")
        let raw = store(key, idStart: idStart)
        index[place.position] = raw
        return raw
    }

    /// Stores a row as ``add(_:idStart:)`` does but leaves its id out of the index: a bulk load stores every row
    /// first, then indexes them in one pass with ``index(_:)``, sized once (growing the index as rows arrived
    /// rehashed it about log₂ n times, 5 % of an initial fetch).
    func addUnindexed(_ key: UnsafeRawBufferPointer, idStart: Int) -> UInt32 {
        store(key, idStart: idStart)
    }

    /// Indexes rows stored by ``addUnindexed(_:idStart:)``. Traps on an id stored twice, as ``add(_:idStart:)``.
    ///
    /// Each row's place in the index is a cache miss (the index of a million rows is megabytes, its places random):
    /// the hashes are computed ``indexAhead`` rows ahead and their index lines prefetched, so the misses overlap
    /// instead of queueing (the index was half the cost of a controller made from a stored view's keys).
    package func index(_ raws: some Collection<UInt32>) {
        reserve(count)
        let mask = indexSize - 1
        var rows = raws.makeIterator()
        withUnsafeTemporaryAllocation(of: (raw: UInt32, hash: Int).self, capacity: RowSlab.indexAhead) { ring in
            var head = 0, queued = 0
            func enqueue(_ raw: UInt32) {
                let hash = idHash(raw)
                viewlog_prefetch(index + (hash & mask))
                ring[(head + queued) % RowSlab.indexAhead] = (raw, hash)
                queued += 1
            }
            while queued < RowSlab.indexAhead, let raw = rows.next() { enqueue(raw) }
            while queued > 0 {  // bounded: one row leaves the ring per pass, and at most one enters
                let (raw, hash) = ring[head]
                head = (head + 1) % RowSlab.indexAhead
                queued -= 1
                if let next = rows.next() { enqueue(next) }
                var i = hash & mask
                while index[i] != RowSlab.empty {  // bounded: the index is at most 3/4 full
                    precondition(!withKey(raw, { key, idStart in hasID(index[i], UnsafeRawBufferPointer(rebasing: key[idStart...])) }),
                                 "RowSlab: id \(id(raw)) is already stored")
                    i = (i + 1) & mask
                }
                index[i] = raw
            }
        }
    }

    /// Rows whose index places ``index(_:)`` prefetches ahead of the one it places.
    private static let indexAhead = 16

    /// Takes a free slot (or a new one) for `key`, writes it, counts it; the index is the caller's.
    private func store(_ key: UnsafeRawBufferPointer, idStart: Int) -> UInt32 {
        let raw: UInt32
        if let f = free.popLast() {
            raw = f
        } else {
            precondition(slotCount < Int(UInt32.max), "RowSlab is full")
            raw = UInt32(slotCount)
            if slotCount % RowSlab.chunkRows == 0 { appendChunk() }
            slotCount += 1
        }
        write(key, idStart: idStart, to: raw)
        count += 1
        return raw
    }

    /// Replaces the key of the row in slot `raw` by `key`, which must have the same id (so the index, keyed by
    /// id, stays as it is).
    func replaceKey(_ raw: UInt32, with key: UnsafeRawBufferPointer, idStart: Int) {
        precondition(hasID(raw, UnsafeRawBufferPointer(rebasing: key[idStart...])),
                     "RowSlab.replaceKey needs a key with the row's id")
        let p = address(raw)
        if p.loadUnaligned(as: UInt16.self) == RowSlab.overflowLength { overflow[raw] = nil }
        write(key, idStart: idStart, to: raw)
    }

    /// Writes a key into slot `raw` (inline, or apart when it is longer than the inline size).
    @inline(__always)
    private func write(_ key: UnsafeRawBufferPointer, idStart: Int, to raw: UInt32) {
        let p = address(raw)
        if key.count <= inlineBytes {
            p.storeBytes(of: UInt16(key.count), as: UInt16.self)
            p.storeBytes(of: UInt16(idStart), toByteOffset: 2, as: UInt16.self)
            if let base = key.baseAddress { (p + 4).copyMemory(from: base, byteCount: key.count) }
        } else {
            p.storeBytes(of: RowSlab.overflowLength, as: UInt16.self)
            overflow[raw] = RowKey(bytes: Array(key), idStart: idStart)
        }
    }

    private func appendChunk() {
        let c = slotCount / RowSlab.chunkRows
        if c == chunkCapacity {
            let grown = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: max(4, chunkCapacity * 2))
            grown.moveInitialize(from: chunks, count: c)
            chunks.deallocate()
            chunks = grown
            chunkCapacity = max(4, chunkCapacity * 2)
        }
        (chunks + c).initialize(to: .allocate(byteCount: RowSlab.chunkRows * slotBytes, alignment: 8))
    }

    /// Forgets the row in slot `raw`; the slot is reused by a later ``add(_:idStart:)``.
    package func remove(_ raw: UInt32) {
        removeIndex(raw)
        let p = address(raw)
        if p.loadUnaligned(as: UInt16.self) == RowSlab.overflowLength { overflow[raw] = nil }
        p.storeBytes(of: 0, as: UInt16.self)
        free.append(raw)
        count -= 1
    }

    // MARK: - Index

    private func idHash(_ raw: UInt32) -> Int {
        withKey(raw) { key, idStart in IDHash.hash(UnsafeRawBufferPointer(rebasing: key[idStart...])) }
    }

    /// Backward-shift deletion keeps every probe chain unbroken without tombstones.
    private func removeIndex(_ raw: UInt32) {
        let mask = indexSize - 1
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
    package func reserve(_ rows: Int) {
        var size = indexSize
        while rows * 4 > size * 3 { size *= 2 }
        if size > indexSize { rehash(size) }
    }

    private func rehash(_ size: Int) {
        let old = index, oldSize = indexSize
        index = .allocate(capacity: size)
        index.initialize(repeating: RowSlab.empty, count: size)
        indexSize = size
        let mask = size - 1
        for k in 0..<oldSize where old[k] != RowSlab.empty {
            var i = idHash(old[k]) & mask
            while index[i] != RowSlab.empty { i = (i + 1) & mask }
            index[i] = old[k]
        }
        old.deallocate()
    }

    /// Checks that every stored row is indexed under its id exactly once.
    package func checkInvariants() {
        var indexed = 0
        for k in 0..<indexSize where index[k] != RowSlab.empty {
            let raw = index[k]
            indexed += 1
            let found = withKey(raw) { key, idStart in find(idBytes: UnsafeRawBufferPointer(rebasing: key[idStart...])) }
            precondition(found == raw, "RowSlab index does not find a row")
        }
        precondition(indexed == count, "RowSlab index count differs from row count")
        precondition(count + free.count == slotCount, "RowSlab slots leak")
    }
}
