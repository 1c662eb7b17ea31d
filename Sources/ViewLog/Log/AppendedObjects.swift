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
        let key: Range<Int>
        /// The values the write leaves it (`nil`: absent).
        var values: ObjectValues?
        /// The seq of the transaction that last changed it.
        var seq: UInt64 = 0
        /// When that change is an insert: where its object values lie in the write's log entries (the bytes its
        /// row copies); empty otherwise.
        var insertedValues: Range<Int> = 0..<0
        /// When the write's first change of the object is an insert: that insert's transaction and change index
        /// among its request's changes. The store was not read for it, so the object's absence before the write
        /// is still to be checked.
        var assumedAbsent: (transaction: Int, change: Int)?

        init(key: Range<Int>) { self.key = key }
    }

    private(set) var objects: [Object] = []
    /// The objects' keys, one after another.
    private var keys: ByteWriter
    /// Open addressing with linear probing over the keys' bytes: `slot + 1`, `0` where empty. Sized once for
    /// `capacity` objects at most half full, so a probe always ends at an empty entry.
    private var table: [Int]
    /// Objects this write was sized for.
    let capacity: Int

    /// Room for `capacity` objects (at most one per change: sized once, never grown).
    init(capacity: Int) {
        precondition(capacity >= 0, "a negative capacity")
        self.capacity = capacity
        objects.reserveCapacity(capacity)
        keys = ByteWriter(capacity: capacity * 16)
        var size = 16
        while size < 2 * capacity { size *= 2 }  // bounded: doubles up to twice the capacity
        table = Array(repeating: 0, count: size)
    }

    var count: Int { objects.count }

    /// The slot of `key`, and whether the write touches it for the first time (a new object, with no values yet).
    /// - Precondition: at most `capacity` objects in all.
    mutating func slot(of key: ObjectKey) -> (slot: Int, isNew: Bool) {
        let start = keys.count
        ObjectRecordCodec.writeKey(key, into: &keys)
        let end = keys.count
        let mask = table.count - 1
        let (found, entry) = keys.withBytes(0..<end) { all -> (Int?, Int) in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
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
        if let found {
            keys.truncate(to: start)
            return (found, false)
        }
        precondition(objects.count < capacity, "more objects than the append was sized for")
        table[entry] = objects.count + 1
        objects.append(Object(key: start..<end))
        return (objects.count - 1, true)
    }

    subscript(slot: Int) -> Object {
        get { objects[slot] }
        _modify { yield &objects[slot] }
    }

    /// Calls `body` with the LMDB key of the object at `slot` (valid only during the call).
    func withKey<R>(of slot: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try keys.withBytes(objects[slot].key, body)
    }

    /// The slots in key order: sequential B-tree access is much faster than random. A write that touches objects
    /// in key order already (a bulk load of ascending ids) is not sorted.
    func keyOrder() -> [Int] {
        var order = Array(objects.indices)
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
