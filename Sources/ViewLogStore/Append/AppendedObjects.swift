@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The objects one append touches, in the order it first touches them: for each, its LMDB key, the state the
/// write leaves it in and the change that left it — what the append writes to the `objects` database once its
/// log entries are written.
///
/// The keys live in one buffer (no array per object) and are found by their bytes through an open-addressing
/// table (no SipHash of an `ObjectKey` per change). An object whose first change in the write is an insert is not
/// read from the store: its absence is checked when its row is written (`MDB_NOOVERWRITE`), so a bulk load does
/// one B-tree search per object, not two.
struct AppendedObjects: ~Copyable {
    struct Object {
        /// Where its LMDB key (``ObjectRecordCodec/key(_:)``) lies in the key buffer.
        package let key: Range<Int>
        /// The values the write leaves it (`nil`: absent).
        var values: ObjectValues?
        /// The values it had before the write (`nil`: absent, or an insert whose absence is still to be checked),
        /// set when the write first touches it: the stored views (``StoredViewWrite``) move its row from the key of
        /// these values to the key of ``values``.
        package var before: ObjectValues?
        /// The seq of the transaction that last changed it.
        package var seq: UInt64 = 0
        /// When that change is an insert: where its object values lie in the write's log entries (the bytes its
        /// row copies); empty otherwise.
        var insertedValues: Range<Int> = 0..<0
        /// When the write's first change of the object is an insert: that insert's transaction and change index
        /// among its request's changes. The store was not read for it, so the object's absence before the write
        /// is still to be checked.
        var assumedAbsent: (transaction: Int, change: Int)?

        init(key: Range<Int>) { self.key = key }

        /// Records that transaction `seq` left the object with `values` (`nil`: absent), `inserted` being where the
        /// values of that change lie in the log entries when it is an insert (empty otherwise).
        mutating func changed(to values: ObjectValues?, at seq: UInt64, inserted: Range<Int>) {
            self.values = values
            self.seq = seq
            insertedValues = inserted
        }
    }

    private(set) var objects: [Object] = []
    /// The objects' keys, one after another.
    private var keys: ByteWriter
    /// Open addressing with linear probing over the keys' bytes: `slot + 1`, `0` where empty. Made (sized for
    /// `capacity` objects at most half full, so a probe always ends at an empty entry) only once a key comes that
    /// is not above the keys before it; empty until then.
    private var table: [Int] = []
    /// Whether every key so far is above the one before it. Then a key above the last one is new without a look-up
    /// (as LMDB's `MDB_APPEND` trusts order): a bulk load of ascending ids probes no table, and needs no sort.
    private var ascending = true
    /// Objects this write was sized for.
    private(set) var capacity: Int

    /// Room for `capacity` objects (at most one per change: sized once, never grown).
    init(capacity: Int) {
        precondition(capacity >= 0, "a negative capacity")
        self.capacity = capacity
        objects.reserveCapacity(capacity)
        keys = ByteWriter(capacity: capacity * 16)
    }

    package var count: Int { objects.count }

    /// Room for one more object than there is: a write whose delete rules touch objects its requests do not name
    /// grows, doubling (the table, if made, is made again at its new size).
    mutating func reserveOneMore() {
        guard objects.count >= capacity else { return }
        capacity = max(16, capacity * 2)
        objects.reserveCapacity(capacity)
        if !table.isEmpty { makeTable() }
    }

    /// The slot of `key`, and whether the write touches it for the first time (a new object, with no values yet).
    /// - Precondition: at most `capacity` objects in all.
    package mutating func slot(of key: ObjectKey) -> (slot: Int, isNew: Bool) {
        let start = keys.count
        ObjectRecordCodec.writeKey(key, into: &keys)
        let end = keys.count
        if ascending {
            let order = objects.last.map { last in
                keys.withBytes(0..<end) { all in
                    ByteReader.compare(UnsafeRawBufferPointer(rebasing: all[start..<end]),
                                       UnsafeRawBufferPointer(rebasing: all[last.key]))
                }
            } ?? 1
            if order > 0 { return (add(start..<end, at: nil), true) }
            if order == 0 {
                keys.truncate(to: start)
                return (objects.count - 1, false)
            }
            ascending = false
            makeTable()
        }
        let mask = table.count - 1
        let (found, entry) = keys.withBytes(0..<end) { all -> (Int?, Int) in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            return probe(bytes, in: all, mask: mask)
        }
        if let found {
            keys.truncate(to: start)
            return (found, false)
        }
        return (add(start..<end, at: entry), true)
    }

    /// Appends the object whose key lies at `key`, entered in the table at `entry` (`nil` while ascending).
    private mutating func add(_ key: Range<Int>, at entry: Int?) -> Int {
        precondition(objects.count < capacity, "more objects than the append was sized for")
        if let entry { table[entry] = objects.count + 1 }
        objects.append(Object(key: key))
        return objects.count - 1
    }

    /// The slot holding `bytes` and its table entry, or `nil` and the empty entry where it would go.
    private func probe(_ bytes: UnsafeRawBufferPointer, in all: UnsafeRawBufferPointer, mask: Int) -> (Int?, Int) {
        var i = IDHash.hash(bytes) & mask
        while table[i] != 0 {  // bounded: the table is at most half full
            let slot = table[i] - 1
            let other = objects[slot].key
            if other.count == bytes.count, ByteReader.compare(UnsafeRawBufferPointer(rebasing: all[other]), bytes) == 0 {
                return (slot, i)
            }
            i = (i + 1) & mask
        }
        return (nil, i)
    }

    /// Makes the table and enters the objects so far (distinct keys: each probe ends at an empty entry).
    private mutating func makeTable() {
        var size = 16
        while size < 2 * capacity { size *= 2 }  // bounded: doubles up to twice the capacity
        table = Array(repeating: 0, count: size)
        let mask = size - 1
        keys.withBytes(0..<keys.count) { all in
            for slot in objects.indices {  // bounded: the objects so far
                let (found, entry) = probe(UnsafeRawBufferPointer(rebasing: all[objects[slot].key]), in: all, mask: mask)
                precondition(found == nil, "a key twice among ascending keys")
                table[entry] = slot + 1
            }
        }
    }

    subscript(slot: Int) -> Object {
        _read { yield objects[slot] }  // a field read in place, without copying the object's values
        _modify { yield &objects[slot] }
    }

    /// Calls `body` with the LMDB key of the object at `slot` (valid only during the call).
    package func withKey<R>(of slot: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try keys.withBytes(objects[slot].key, body)
    }

    /// The slots in key order: sequential B-tree access is much faster than random. A write that touches objects
    /// in key order already (a bulk load of ascending ids) is not sorted.
    func keyOrder() -> [Int] {
        var order = Array(objects.indices)
        guard !ascending else { return order }
        keys.withBytes(0..<keys.count) { all in
            func precedes(_ a: Int, _ b: Int) -> Bool {
                ByteReader.compare(UnsafeRawBufferPointer(rebasing: all[objects[a].key]),
                                   UnsafeRawBufferPointer(rebasing: all[objects[b].key])) < 0
            }
            if order.indices.dropFirst().contains(where: { !precedes(order[$0 - 1], order[$0]) }) {
                order.sort(by: precedes)
            }
        }
        return order
    }
}
