@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// A named view of the schema kept in the store (DESIGN §11): its rows at the head, in view order, in the `views`
/// database. Byte layout in `schema/log-format.md`:
///
/// ```
/// header: u16 big-endian n | view name (n bytes)                   → signature | CRC-32C (4 bytes, little-endian)
/// row:    u16 big-endian n | view name (n bytes) | row key (§4)     → CRC-32C of the key (4 bytes, little-endian)
/// ```
///
/// The row key is the view's ``RowKey`` (section value, sort values, id, ``KeyEncoding``): a cursor walks a view's
/// rows in view order. The header, a prefix of every row key of its view, sorts first; its signature names what the
/// rows were built for (entity, predicate, sort, section), so rows of another definition are never read as the
/// view's. A view's rows are all its rows: its `limit` and `offset` are a window that reads apply.
///
/// Stored: the named views whose predicate needs no `$variables`: over the entity's own attributes, over to-one key
/// paths (DESIGN §10: `department.name`, up to three hops) and over aggregates and
/// quantifiers of to-many inverses (`employees.@count`, `ANY employees.height > 190`), whose values each row's key
/// holds; the aggregates' per-target state is stored beside the rows (``StoredAggregates``). The paths a view
/// `include`s are kept like the others (its rows carry them). A view with variables is not stored: it builds in memory
/// as before.
package struct StoredView {
    let name: String
    /// The entity whose objects are the rows.
    package let entity: EntityDescription
    /// The view without its window: the predicate and the row order of every stored row, over ``entity`` with one
    /// attribute per key path (``Schema/viewEntity(of:requiresVariables:)``).
    let plan: ViewPlan
    /// The key paths the view reads (to-one paths and aggregates), whose values a row's key holds; empty for a view
    /// over the entity's own attributes. Their rows are kept by ``StoredViewWrite`` through the relationships index
    /// (`refs`), and their upkeep has its own maintained record (``pathsMaintainedKey``, ``aggregatesMaintainedKey``).
    let paths: [KeyPath]
    /// The quantified comparisons the view reads (`ANY employees.height > 190`): a boolean of each row's values.
    let quantified: [QuantifiedPath]
    /// The per-target state of the to-many inverses the paths and quantifiers read, `nil` when they read none.
    package let aggregates: StoredAggregates?
    /// The bytes every key of the view starts with: its header's key.
    let prefix: [UInt8]
    /// What the rows were built for (its header's value without the checksum).
    let signature: [UInt8]

    /// Version of the signature's layout and of the rows' encoding: a new one rebuilds every stored view.
    static let signatureVersion = "viewlog stored view 1"

    /// The stored view of the schema's view `name`, or `nil` when that view is not stored (key paths, variables).
    init?(name: String, schema: Schema) {
        guard let definition = schema.views[name], let entity = schema.entities[definition.entity],
              var request = try? FetchRequest(definition),
              let (viewEntity, paths, quantified) = try? schema.viewEntity(of: request) else { return nil }
        request.limit = nil
        request.offset = 0
        guard let plan = try? ViewPlan(request, for: viewEntity) else { return nil }  // a predicate with $variables
        self.name = name
        self.entity = entity
        self.plan = plan
        self.paths = paths
        self.quantified = quantified
        prefix = Self.prefix(name)
        aggregates = StoredAggregates(viewPrefix: prefix, paths: paths, quantified: quantified, schema: schema)
        // `include` names paths the rows carry (and whose aggregate state is kept) but that order nothing: named only
        // when present, so that a view without one keeps the signature it had.
        // A double `@sum`/`@avg` keeps an exact sum in its targets' state records: named, so that state laid out
        // otherwise (its sum walked from member entries) is built again, never read.
        let exactSums = aggregates?.tables.contains { $0.exactSum.contains(true) } == true
        let parts = [Self.signatureVersion, definition.entity, definition.predicate ?? "", definition.sort ?? "",
                     definition.sectionKey ?? ""] + (request.includes.isEmpty ? [] : [request.includes.joined(separator: ",")])
            + (exactSums ? ["exact sums"] : [])
        signature = Array(parts.joined(separator: "\u{0}").utf8)
    }

    /// The key of the record saying at which head the stored views were last kept (a prefix of no view: names are
    /// not empty). A write by code that keeps no stored views leaves it behind the head: the views are then stale,
    /// never read, and built again by the next write (as the checkpoints' `maintained`).
    static let maintainedKey: [UInt8] = [0, 0]

    /// The key of the record saying at which head the stored views over key paths were last kept: code that keeps
    /// only the views over the entities' own attributes leaves it behind (also a prefix of no view, and under
    /// ``maintainedKey``'s two bytes, which every reader skips).
    static let pathsMaintainedKey: [UInt8] = [0, 0, 0x70]

    /// The key of the record saying at which head the stored views over aggregates and quantifiers of to-many inverses
    /// (and their state) were last kept: code that keeps only the others leaves it behind.
    static let aggregatesMaintainedKey: [UInt8] = [0, 0, 0x61]

    /// The maintained records a write of `views` keeps, in key order: ``maintainedKey``, and that of each kind of
    /// view among them.
    static func maintainedKeys(of views: [StoredView]) -> [[UInt8]] {
        Set([maintainedKey] + views.map(\.maintainedKey)).sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Whether the view reads only its entity's own attributes (no key path, no quantifier).
    var isFlat: Bool { paths.isEmpty && quantified.isEmpty }

    /// The record saying at which head the views of this one were last kept: ``aggregatesMaintainedKey`` for a view
    /// over to-many inverses, ``pathsMaintainedKey`` for one over to-one key paths, ``maintainedKey`` for the others.
    var maintainedKey: [UInt8] {
        if aggregates != nil { return Self.aggregatesMaintainedKey }
        return isFlat ? Self.maintainedKey : Self.pathsMaintainedKey
    }

    /// The value of the maintained record `key` for `head`: 8 bytes big-endian, then the CRC-32C of key and payload.
    static func maintainedValue(_ head: UInt64, key: [UInt8] = maintainedKey) -> [UInt8] {
        let payload = bigEndianBytes(head)
        return payload + checksumBytes(CRC32C.checksum(payload, seed: CRC32C.checksum(key)))
    }

    /// The head the stored views were kept at, from the maintained record `key` of the `views` database in `txn`
    /// (`nil`: no intact record).
    static func maintainedHead(in db: LMDBDatabase, _ txn: LMDBTransaction, key: [UInt8] = maintainedKey) throws -> UInt64? {
        guard let value = try txn.value(db, for: key), value.count == 12,
              let head = uint64FromBigEndian(value.prefix(8)), value == maintainedValue(head, key: key) else { return nil }
        return head
    }

    /// The stored views of `schema`, by name.
    static func all(of schema: Schema) -> [StoredView] {
        schema.views.keys.sorted().compactMap { StoredView(name: $0, schema: schema) }
    }

    /// The key of the header of the view `name`: the prefix of its rows' keys.
    static func prefix(_ name: String) -> [UInt8] {
        let n = name.utf8.count
        return [UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + Array(name.utf8)
    }

    /// The header's value: the signature and its checksum (over the key and the signature).
    var headerValue: [UInt8] {
        signature + Self.checksumBytes(CRC32C.checksum(signature, seed: CRC32C.checksum(prefix)))
    }

    /// The header of the view when one of its rows has a key longer than ``Limits/storedViewKeyBytesMax``: the view is
    /// not stored (no rows under it) and builds in memory; the header keeps later writes from building it again.
    var unstoredHeaderValue: [UInt8] {
        let body = signature + Array("\u{0}unstored: a row key longer than LMDB's key limit".utf8)
        return body + Self.checksumBytes(CRC32C.checksum(body, seed: CRC32C.checksum(prefix)))
    }

    /// What the store holds of the view, from the value under its header's key (`nil`: none).
    func state(header value: UnsafeRawBufferPointer?) -> State {
        guard let value else { return .unbuilt }
        if value.elementsEqual(headerValue) { return .stored }
        if value.elementsEqual(unstoredHeaderValue) { return .unstored }
        return .unbuilt
    }

    /// What the store holds of a view.
    enum State {
        /// Its rows, for its definition.
        case stored
        /// Nothing yet, or rows of another definition: to build.
        case unbuilt
        /// Nothing, on purpose: a row's key is too long to store.
        case unstored
    }

    /// What the store holds of the view in `txn`.
    func state(in db: LMDBDatabase, _ txn: LMDBTransaction) throws -> State {
        try prefix.withUnsafeBytes { k in state(header: try txn.value(db, for: k)) }
    }

    /// The view's name in the key `key` of the `views` database, or `nil` when the key is too short to hold one.
    static func name(in key: UnsafeRawBufferPointer) -> String? {
        guard key.count >= 2 else { return nil }
        let n = Int(key[0]) << 8 | Int(key[1])
        guard key.count >= 2 + n else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: key[2..<(2 + n)]), as: UTF8.self)
    }

    /// The value of a row: the checksum of its key.
    static func rowValue(of key: UnsafeRawBufferPointer) -> [UInt8] { checksumBytes(CRC32C.checksum(key)) }

    /// The size of a row's value (``rowValue(of:)``).
    static let rowValueBytes = 4

    /// Writes the value of the row `key` (``rowValue(of:)``) into `out`, ``rowValueBytes`` bytes.
    @inline(__always)
    static func writeRowValue(of key: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        out.storeBytes(of: CRC32C.checksum(key).littleEndian, as: UInt32.self)
    }

    /// Whether `value` is the checksum of the row key `key`.
    static func isIntactRow(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        value.count == 4 && value.elementsEqual(rowValue(of: key))
    }

    static func checksumBytes(_ crc: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8),
         UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 24)]
    }

    /// Where the id starts in a row key of this view (`rowKey` without the view's prefix), or `nil` when the bytes
    /// are not a row key of its order. Total: any bytes give an offset or `nil`.
    package func idStart(_ rowKey: UnsafeRawBufferPointer) -> Int? {
        var at = 0
        for ascending in plan.order.ascending {
            guard at < rowKey.count, let end = KeyEncoding.checkedComponentEnd(rowKey, from: at, ascending: ascending)
            else { return nil }
            at = end
        }
        guard at < rowKey.count, KeyEncoding.checkedIDEnd(rowKey, from: at) == rowKey.count else { return nil }
        return at
    }

    /// For each entity the paths go through, the attributes they read from its objects: each hop's relationship from
    /// the entity it leaves, and the last attribute from the entity a path ends at. An object of such an entity whose
    /// change leaves these as they were (and that is neither made nor removed) changes no path value.
    var attributesReadByPaths: [String: Set<String>] {
        var read: [String: Set<String>] = [:]
        for p in paths {
            for hop in p.hops { read[hop.entity, default: []].insert(hop.relationship) }
            if case .attribute(let name) = p.tail, let last = p.hops.last { read[last.target, default: []].insert(name) }
        }
        for q in quantified {
            for hop in q.hops { read[hop.entity, default: []].insert(hop.relationship) }
        }
        // The members of a to-many: the relationship that makes them members, and what is aggregated or compared.
        for table in aggregates?.tables ?? [] { read[table.inverse.source, default: []].formUnion(table.read) }
        return read
    }

    /// The values a row of the view is keyed by: the object's own `values`, with the value of each of ``paths`` and
    /// ``quantified`` (named by its text) as `lookup` and `aggregates` reach it.
    func rowValues<A: AggregateSource>(id: ObjectID, values: ObjectValues, lookup: PathLookup, aggregates: A) -> ObjectValues {
        guard !isFlat else { return values }
        let computed = KeyPath.pathValues(paths: paths, quantified: quantified, of: values, id: id,
                                                 entity: entity.name, lookup: lookup, aggregates: aggregates)
        var out = ObjectValues(minimumCapacity: values.count + computed.count)
        for (k, v) in values { out[k] = v }
        for (name, value) in zip(paths.map(\.text) + quantified.map(\.text), computed) { out[name] = value }
        return out
    }

    /// Appends to `out` the key of the row of `id` with `values` when the object belongs to the view; `false`
    /// (nothing appended) when it does not. For a view over key paths, `values` holds the paths' values too
    /// (``rowValues(id:values:lookup:aggregates:)``).
    func appendKey<V: AttributeValues>(id: ObjectID, values: V, to out: inout ByteWriter) -> Bool {
        guard plan.predicate.evaluate(values, id: id) else { return false }
        prefix.withUnsafeBytes { out.raw($0) }
        _ = plan.order.encode(id: id, values: values, into: &out)
        return true
    }
}
