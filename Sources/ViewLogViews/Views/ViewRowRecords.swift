@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
import CPrefetch

/// The values of a view's rows as the fetch read them: at the head each row's values in their stored encoding
/// (object values, `schema/log-format.md`), copied from the object row; at an older position the values the fold
/// computed, in the entity's attribute order. Found by id.
///
/// A caller that prints a view (the CLI's `query`) needs every attribute of its rows, where the controller reads
/// only its predicate, section and sort attributes. Keeping the rows' bytes from the same scan costs a copy; making
/// an `ObjectValues` dictionary of every object of the entity, then a map of the rows' values, cost more than the
/// scan itself. Values are decoded when asked for, or written as JSON straight from the bytes.
@_spi(Engine) public struct ViewRowRecords: Sendable {
    /// The entity: its attributes are the canonical form every row is read in.
    public let entity: EntityDescription
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// Rows kept as values (``append(_:slots:)``): one per attribute of the entity, row after row.
    private var cells: [Value] = []
    private var keptAsValues = false
    private var ids: [ObjectID] = []
    private var index = ObjectIDIndex()

    /// The JSON keys of the entity's attributes, written once.
    private let keys: JSONWriter.MemberKeys
    /// The entity's attribute names as bytes, matched against the stored rows' names.
    private let names: AttributeNames

    package init(entity: EntityDescription) {
        self.entity = entity
        keys = JSONWriter.MemberKeys(entity.attributes.map(\.name))
        names = AttributeNames(entity.attributes)
    }

    /// Makes room for `rows` rows of `bytes` bytes in all, so that keeping them copies nothing to grow.
    package mutating func reserve(rows: Int, bytes count: Int) {
        bytes.reserveCapacity(count)
        ends.reserveCapacity(rows)
        ids.reserveCapacity(rows)
    }

    /// The number of rows kept.
    public var count: Int { ids.count }

    /// Keeps the values of `id` (checked object-values bytes, each id once).
    package mutating func append(_ id: ObjectID, values: UnsafeRawBufferPointer) {
        precondition(!keptAsValues, "ViewRowRecords keeps rows one way")
        keep(id)
        bytes.append(contentsOf: values)
        ends.append(bytes.count)
    }

    /// Keeps the values of `id`: one per attribute of the entity, in its order (each id once).
    package mutating func append(_ id: ObjectID, slots: [Value]) {
        precondition(ends.isEmpty && slots.count == entity.attributes.count, "ViewRowRecords keeps rows one way")
        keptAsValues = true
        keep(id)
        cells.append(contentsOf: slots)
    }

    private mutating func keep(_ id: ObjectID) {
        precondition(index.row(of: id, in: ids) == nil, "ViewRowRecords: \(id) is already kept")
        ids.append(id)
        index.insert(id, row: ids.count - 1)
    }

    /// Prefetches what writing the rows of `ids` a few places after `k` will read, for a caller that writes `ids`
    /// in order and calls this before each: the rows are kept in id order and written in the view's, so each row
    /// written is dependent cache misses (its index entry, where its bytes end, then the bytes; `perf annotate` of
    /// the 49,913-row query: two thirds of the JSON walk waited on the row's first byte). Each call moves three rows
    /// one stage on: the index entry of `ids[k + 24]`, the ends of `ids[k + 16]`, the bytes of `ids[k + 8]`. A
    /// hint: it changes no result.
    public func prefetch(after k: Int, in ids: [ObjectID]) {
        guard !keptAsValues else { return }
        if k + 24 < ids.count { index.prefetch(ids[k + 24]) }
        if k + 16 < ids.count, let r = index.row(of: ids[k + 16], in: self.ids) {
            ends.withUnsafeBufferPointer { e in viewlog_prefetch(e.baseAddress! + max(r - 1, 0)) }
        }
        if k + 8 < ids.count, let r = index.row(of: ids[k + 8], in: self.ids) {
            let range = byteRange(ofRow: r)
            bytes.withUnsafeBufferPointer { b in
                viewlog_prefetch(b.baseAddress! + range.lowerBound)
                viewlog_prefetch(b.baseAddress! + (range.upperBound - 1))
            }
        }
    }

    /// Where the stored bytes of row `r` lie in ``bytes`` (each row starts where the previous one ends).
    @inline(__always)
    private func byteRange(ofRow r: Int) -> Range<Int> { (r == 0 ? 0 : ends[r - 1])..<ends[r] }

    /// The kept values of row `r` when kept as values.
    private func slots(ofRow r: Int) -> ArraySlice<Value> {
        let width = entity.attributes.count
        return cells[(r * width)..<((r + 1) * width)]
    }

    private func withValues<R>(of id: ObjectID, _ body: (inout ByteReader) throws(CodecError) -> R) throws(StoreError) -> R? {
        guard let r = index.row(of: id, in: ids) else { return nil }
        let range = byteRange(ofRow: r)
        let result = bytes.withUnsafeBytes { all in
            Result { () throws(CodecError) -> R in
                var reader = ByteReader(UnsafeRawBufferPointer(rebasing: all[range]))
                return try body(&reader)
            }
        }
        do { return try result.get() } catch { throw StoreError.corrupt(seq: nil, reason: "object \(entity.name) \(id): \(error)") }
    }

    /// The values of `id` in canonical form (every attribute of the entity, `null` where absent); `nil` when the
    /// row is not kept.
    public func values(of id: ObjectID) throws(StoreError) -> ObjectValues? {
        let attributes = entity.attributes
        if keptAsValues {
            guard let r = index.row(of: id, in: ids) else { return nil }
            var out = ObjectValues(minimumCapacity: attributes.count)
            for (a, v) in zip(attributes, slots(ofRow: r)) { out[a.name] = v }
            return out
        }
        return try withValues(of: id) { r throws(CodecError) in try r.objectValues(canonicalFor: attributes) }
    }

    /// Writes the values of `id` as the members of a JSON object, `"name": value` in the entity's attribute order
    /// (`null` where absent), separated by `", "` — what writing ``values(of:)`` member by member gives. Returns
    /// `false`, writing nothing, when the row is not kept.
    @discardableResult
    public func writeJSONMembers(of id: ObjectID, into w: inout JSONWriter) throws(StoreError) -> Bool {
        if keptAsValues {
            guard let r = index.row(of: id, in: ids) else { return false }
            let values = slots(ofRow: r)
            // Into memory reserved once for the row (five appends per row through the array's generic
            // `append(contentsOf:)` were ~5 % of a `query --at`): the keys' bytes, `", "` between members, and
            // each value's most.
            var bound = keys.byteCount + 2 * values.count
            for v in values { bound += JSONWriter.Unchecked.bytesMax(of: v) }
            w.appendUnchecked(atMost: bound) { (u: inout JSONWriter.Unchecked) in
                for (j, v) in values.enumerated() {
                    u.key(j, of: keys)
                    u.value(v)
                }
            }
            return true
        }
        // Straight over the bytes, not through `withValues` and its closures: they copied this struct per row.
        guard let r = index.row(of: id, in: ids) else { return false }
        let range = byteRange(ofRow: r)
        // Into memory reserved once for the whole object (its size bounded by its stored bytes).
        let bound = ByteReader.jsonMembersBytesMax(keys: keys, attributeCount: names.count, valueBytes: range.count)
        let failure = bytes.withUnsafeBytes { all -> CodecError? in
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: all[range]))
            do throws(CodecError) {
                try w.appendUnchecked(atMost: bound) { (u: inout JSONWriter.Unchecked) throws(CodecError) in
                    try reader.writeJSONMembers(canonicalFor: names, keys: keys, into: &u)
                }
            } catch { return error }
            return nil
        }
        if let failure { throw StoreError.corrupt(seq: nil, reason: "object \(entity.name) \(id): \(failure)") }
        return true
    }
}
