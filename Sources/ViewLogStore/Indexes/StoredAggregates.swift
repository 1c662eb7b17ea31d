@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// The per-target state of the to-many inverses a stored view's aggregates and quantifiers read (DESIGN §10 "Cost":
/// "an aggregate is kept per target"; §11), kept in the `views` database in the same write as the objects: a write
/// changes the state of the targets its members leave and join, O(log n) per member change, and a row's
/// `employees.@count` or `ANY employees.height > 190` is read from its target's state, never from its members.
///
/// Layout, under the view's state prefix `00 00 73 | u16 n | view name` (a prefix of no view's key, and under the
/// `00 00` every reader of rows skips; byte details in `schema/log-format.md`):
///
/// ```
/// state:  prefix | 's' | u8 table | target id (KeyEncoding)
///         → i64 members | per attribute: i64 non-null, i64 int sum[, exact sum: 34 limbs, 3 counts]
///           | per quantifier: i64 matching | CRC-32C
/// member: prefix | 'm' | u8 table | u8 attribute | target id | value (KeyEncoding, ascending) | member id
///         → CRC-32C of the key
/// ```
///
/// A table is one inverse the view reads. A target's state record exists while it has members. A double attribute
/// that `@sum`/`@avg` read keeps its members' exact sum in the record (``ExactSum``, as ``AggregateTable`` does: the
/// same bits however the members came), moved in O(1) by each member's change. Member entries are kept only for the
/// attributes `@min`/`@max` read: the first and last entry of the target's range, O(log n). Null values have no entry
/// (aggregates skip them).
package struct StoredAggregates {
    /// One inverse the view reads, and what it keeps per target.
    struct Table {
        let inverse: InverseRelationship
        /// The entity of its members.
        let source: EntityDescription
        /// The aggregated attributes of the members.
        package let attributes: [Attribute]
        /// Per attribute: whether `@min` or `@max` reads it.
        let minMax: [Bool]
        /// Per attribute: whether a double `@sum` or `@avg` reads it (then the record keeps its exact sum).
        let exactSum: [Bool]
        let quantifiers: [QuantifiedPath]
        /// The members' attributes whose change can change a target's state: the relationship, the aggregated
        /// attributes and the quantified ones.
        let read: Set<String>

        func hasEntries(_ a: Int) -> Bool { minMax[a] }
        /// The aggregated attributes' names and the quantifiers' member comparisons, as ``MemberCounts`` reads them.
        let attributeNames: [String]
        let members: [CompiledPredicate?]

        /// The words of a state record: members, two per attribute and an exact sum's per attribute that keeps one,
        /// one per quantifier.
        var recordWords: Int {
            1 + 2 * attributes.count + exactSum.filter { $0 }.count * (ExactSum.limbCount + 3) + quantifiers.count
        }
    }

    /// One target's state: the state record (``MemberCounts``), and from the member entries what the view's aggregates
    /// read of them.
    package struct TargetState: Equatable {
        var counts: MemberCounts
        /// Per attribute: the least and greatest value (when it has member entries), from them.
        var min: [Value]
        var max: [Value]

        init(_ table: Table) {
            counts = MemberCounts(exactSums: table.exactSum, quantifiers: table.quantifiers.count)
            min = Array(repeating: .null, count: table.attributes.count)
            max = Array(repeating: .null, count: table.attributes.count)
        }
    }

    let tables: [Table]
    /// The bytes every key of the view's state starts with.
    let prefix: [UInt8]

    /// The first bytes of every view's state: under the `00 00` of the maintained records, which readers of rows skip.
    static let statePrefixHead: [UInt8] = [0, 0, 0x73]

    /// The state of a view over `paths` and `quantified` whose header key is `viewPrefix`, or `nil` when it reads no
    /// to-many inverse.
    init?(viewPrefix: [UInt8], paths: [KeyPath], quantified: [QuantifiedPath], schema: Schema) {
        var order: [InverseRelationship] = []
        var attributes: [InverseRelationship: [String]] = [:]
        var minMax: [InverseRelationship: Set<String>] = [:], exact: [InverseRelationship: Set<String>] = [:]
        for p in paths {
            guard case let .aggregate(function, inverse, attribute) = p.tail else { continue }
            if attributes[inverse] == nil {
                order.append(inverse)
                attributes[inverse] = []
            }
            guard let attribute else { continue }
            if !attributes[inverse]!.contains(attribute) { attributes[inverse]!.append(attribute) }
            switch function {
            case .min, .max: minMax[inverse, default: []].insert(attribute)
            case .sum, .avg:
                if schema.entities[inverse.source]?.attribute(named: attribute)?.type == .double {
                    exact[inverse, default: []].insert(attribute)
                }
            case .count: break
            }
        }
        for q in quantified where attributes[q.inverse] == nil {
            order.append(q.inverse)
            attributes[q.inverse] = []
        }
        guard !order.isEmpty else { return nil }
        tables = order.map { inverse in
            let source = schema.entities[inverse.source]!
            let names = attributes[inverse]!
            let quantifiers = quantified.filter { $0.inverse == inverse }
            return Table(inverse: inverse, source: source, attributes: names.map { source.attribute(named: $0)! },
                         minMax: names.map { minMax[inverse]?.contains($0) ?? false },
                         exactSum: names.map { exact[inverse]?.contains($0) ?? false },
                         quantifiers: quantifiers,
                         read: Set([inverse.relationship] + names).union(quantifiers.flatMap(\.memberAttributes)),
                         attributeNames: names, members: quantifiers.map(\.member))
        }
        prefix = Self.statePrefixHead + viewPrefix
    }

    // MARK: - Keys and records

    /// The key of the state record of `target` in table `t`.
    func stateKey(_ t: Int, _ target: ObjectID) -> [UInt8] {
        var k = prefix + [0x73, UInt8(t)]
        KeyEncoding.append(id: target, to: &k)
        return k
    }

    /// The prefix of the member entries of attribute `a` of table `t` for `target`.
    func memberPrefix(_ t: Int, _ a: Int, _ target: ObjectID) -> [UInt8] {
        var k = prefix + [0x6D, UInt8(t), UInt8(a)]
        KeyEncoding.append(id: target, to: &k)
        return k
    }

    /// The key of the member entry of `member` whose attribute `a` of table `t` is `value` (not null) for `target`.
    func memberKey(_ t: Int, _ a: Int, _ target: ObjectID, _ value: Value, _ member: ObjectID) -> [UInt8] {
        var k = memberPrefix(t, a, target)
        KeyEncoding.append(value, ascending: true, to: &k)
        KeyEncoding.append(id: member, to: &k)
        return k
    }

    /// The value of a state record: its counts and exact sums, then the CRC-32C of key and payload.
    static func stateValue(_ s: TargetState, key: [UInt8]) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(8 * (1 + 2 * s.counts.nonNull.count + s.counts.matching.count) + 4)
        func put(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { payload.append(contentsOf: $0) } }
        put(s.counts.members)
        for a in s.counts.nonNull.indices {
            put(s.counts.nonNull[a])
            put(s.counts.intSum[a])
            for word in s.counts.sum[a]?.words ?? [] { put(Int64(bitPattern: word)) }
        }
        for m in s.counts.matching { put(m) }
        let crc = CRC32C.checksum(payload, seed: CRC32C.checksum(key))
        withUnsafeBytes(of: crc.littleEndian) { payload.append(contentsOf: $0) }
        return payload
    }

    /// The counts of a state record of table `t` into `s`; `false` when the value is not one (wrong length or
    /// checksum). Total.
    func readState(_ value: UnsafeRawBufferPointer, key: [UInt8], table t: Int, into s: inout TargetState) -> Bool {
        let table = tables[t]
        let words = table.recordWords
        guard value.count == 8 * words + 4 else { return false }
        func word(_ i: Int) -> Int64 { Int64(littleEndian: value.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)) }
        let crc = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 8 * words, as: UInt32.self))
        guard crc == CRC32C.checksum(Array(value[0..<(8 * words)]), seed: CRC32C.checksum(key)) else {
            return false
        }
        s.counts.members = word(0)
        var i = 1
        for a in table.attributes.indices {
            s.counts.nonNull[a] = word(i)
            s.counts.intSum[a] = word(i + 1)
            i += 2
            if table.exactSum[a] {
                s.counts.sum[a] = ExactSum(words: (i..<(i + ExactSum.limbCount + 3)).map { UInt64(bitPattern: word($0)) })
                i += ExactSum.limbCount + 3
            }
        }
        for q in table.quantifiers.indices { s.counts.matching[q] = word(i + q) }
        return true
    }

    /// The value of a member entry: the checksum of its key.
    static func memberValue(_ key: [UInt8]) -> [UInt8] { key.withUnsafeBytes { StoredView.rowValue(of: $0) } }

    // MARK: - Members

    /// The target a member with `values` names through table `t`'s relationship, `nil` for none.
    func target(of values: ObjectValues?, table t: Int) -> ObjectID? {
        guard let v = values?[tables[t].inverse.relationship] else { return nil }
        return ObjectID(v)
    }

    /// Adds (`sign` 1) or removes (`sign` -1) the member `values` to or from the counts of `s` (``MemberCounts``, as
    /// ``AggregateTable`` counts it).
    package func count(_ values: ObjectValues, table t: Int, sign: Int64, into s: inout TargetState) {
        s.counts.add(values, attributes: tables[t].attributeNames, quantifiers: tables[t].members, sign: sign)
    }

    // MARK: - Reading

    /// The state of the target `named` in table `t` at the head in `txn`, or at a position below it: its record (zero
    /// counts without one) and, for the attributes with member entries, their least and greatest. `moved` are
    /// the members of the table's entity that differ between the head (`before`) and that position (`after`), from a
    /// delta from the head (empty: the head itself): each leaves the counts and entries it has at the head and joins
    /// with its values there, as ``apply(_:db:in:)`` would have written them — a walk of `moved` and of at most
    /// `moved.count + 1` entries per end for `@min`/`@max`, not of the target's members.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` for a record or entry that does not check.
    func state(_ t: Int, _ named: ObjectID, db: LMDBDatabase, in txn: LMDBTransaction,
               moved: [ObjectDelta] = []) throws -> TargetState {
        let table = tables[t]
        var s = TargetState(table)
        let key = stateKey(t, named)
        if let value = try key.withUnsafeBytes({ try txn.value(db, for: $0) }) {
            guard readState(value, key: key, table: t, into: &s) else { throw damaged("the state of \(named.json.text)") }
        }
        for d in moved {  // bounded: the members moved
            if target(of: d.before, table: t) == named, let values = d.before { count(values, table: t, sign: -1, into: &s) }
            if target(of: d.after, table: t) == named, let values = d.after { count(values, table: t, sign: 1, into: &s) }
        }
        guard s.counts.members >= 0 else { throw damaged("the state of \(named.json.text)") }
        for (a, attribute) in table.attributes.enumerated() where table.hasEntries(a) {
            // The moved members' entries at the head are skipped; their values at the position are merged in.
            var skipped = Set<[UInt8]>()
            var joined: [Value] = []
            for d in moved {
                if target(of: d.before, table: t) == named, let v = d.before?[attribute.name], !v.isNull {
                    skipped.insert(memberKey(t, a, named, v, d.key.id))
                }
                if target(of: d.after, table: t) == named, let v = d.after?[attribute.name], !v.isNull { joined.append(v) }
            }
            try entries(t, a, attribute, named, skipping: skipped, joining: joined, db: db, in: txn, into: &s)
        }
        return s
    }

    /// The least and greatest value of attribute `a` of `target`'s members: its member entries but `skipped`, and the
    /// values `joined`.
    private func entries(_ t: Int, _ a: Int, _ attribute: Attribute, _ target: ObjectID, skipping skipped: Set<[UInt8]>,
                         joining joined: [Value], db: LMDBDatabase, in txn: LMDBTransaction,
                         into s: inout TargetState) throws {
        let members = memberPrefix(t, a, target)
        func value(_ e: LMDBCursor.Entry) throws -> Value {
            guard e.key.count > members.count, StoredView.isIntactRow(key: e.key, value: e.value),
                  let end = KeyEncoding.checkedComponentEnd(e.key, from: members.count, ascending: true),
                  KeyEncoding.checkedIDEnd(e.key, from: end) == e.key.count else {
                throw damaged("a member entry of \(target.json.text)")
            }
            return KeyEncoding.value(e.key, at: members.count, ascending: true, type: attribute.type)
        }
        func isSkipped(_ e: LMDBCursor.Entry) -> Bool { !skipped.isEmpty && skipped.contains(Array(e.key)) }
        let less = { (x: Value, y: Value) in Value.compare(x, y) < 0 }
        // The first entry not skipped from each end: at most `skipped.count + 1` entries read per end.
        var least: Value = .null, greatest: Value = .null
        try txn.scan(db, from: .after(members)) { e in
            guard e.key.hasPrefix(members) else { return .stop }
            guard !isSkipped(e) else { return .next }
            least = try value(e)
            return .stop
        }
        try txn.scan(db, from: LogStore.successor(of: members).map { .below($0) } ?? .last) { e in
            guard e.key.hasPrefix(members) else { return .stop }
            guard !isSkipped(e) else { return .next }
            greatest = try value(e)
            return .stop
        }
        if let j = joined.min(by: less), least.isNull || less(j, least) { least = j }
        if let j = joined.max(by: less), greatest.isNull || less(greatest, j) { greatest = j }
        s.min[a] = least
        s.max[a] = greatest
    }

    /// The value of `function` of attribute `a` of table `t` (`nil`: `@count`) from a target's state, by §10's rules,
    /// as ``AggregateTable/aggregate(_:of:type:target:)`` gives it.
    func aggregate(_ function: KeyPath.Aggregate, table t: Int, attribute a: Int?, type: AttributeType, _ s: TargetState) -> Value {
        s.counts.value(function, attribute: a, type: type, intValued: { tables[t].attributes[$0].type == .int },
                       least: { s.min[$0] }, greatest: { s.max[$0] })
    }

    /// A member entry longer than LMDB's key limit (a long string aggregated by `@min`/`@max`): the view is not
    /// stored then, as for a row key too long (``StoredView/unstoredHeaderValue``).
    struct KeyTooLong: Error {}

    func damaged(_ what: String) -> StoreError {
        StoreError.corrupt(seq: nil, reason: "stored view aggregates: \(what) does not check: run 'viewlog verify'")
    }

    // MARK: - Writing

    /// Applies the members the write touched (`deltas`, objects before and after it) to the state in `txn`: each
    /// leaves the target it named before and joins the one it names after — O(log n) per member change and attribute
    /// with entries. Returns the state of each target it changed as it was before, by table, for the rows' keys
    /// before the write.
    func apply(_ deltas: [ObjectDelta], db: LMDBDatabase, in txn: LMDBTransaction) throws -> [[ObjectID: TargetState]] {
        var before: [[ObjectID: TargetState]] = Array(repeating: [:], count: tables.count)
        for (t, table) in tables.enumerated() {
            let changes = deltas.filter { d in
                guard d.key.entity == table.inverse.source else { return false }
                guard let b = d.before, let a = d.after else { return true }
                return table.read.contains { b[$0] != a[$0] }
            }
            guard !changes.isEmpty else { continue }
            for d in changes {
                for v in [d.before, d.after] {
                    if let target = target(of: v, table: t), before[t][target] == nil {
                        before[t][target] = try state(t, target, db: db, in: txn)
                    }
                }
            }
            var states = before[t]
            for d in changes {  // bounded: the members the write touched
                let old = target(of: d.before, table: t), new = target(of: d.after, table: t)
                if let old, let values = d.before { count(values, table: t, sign: -1, into: &states[old]!) }
                if let new, let values = d.after { count(values, table: t, sign: 1, into: &states[new]!) }
                for (a, attribute) in table.attributes.enumerated() where table.hasEntries(a) {
                    let was = old.flatMap { o in d.before.map { (o, $0[attribute.name] ?? .null) } }
                    let now = new.flatMap { n in d.after.map { (n, $0[attribute.name] ?? .null) } }
                    if let was, let now, was.0 == now.0, was.1 == now.1 { continue }
                    if let (target, value) = was, !value.isNull {
                        guard try txn.delete(db, key: memberKey(t, a, target, value, d.key.id)) else {
                            throw damaged("the member entry of \(d.key.entity) \(d.key.id.json.text)")
                        }
                    }
                    if let (target, value) = now, !value.isNull {
                        let key = memberKey(t, a, target, value, d.key.id)
                        guard key.count <= Limits.storedViewKeyBytesMax else { throw KeyTooLong() }
                        try txn.put(db, key: key, value: Self.memberValue(key))
                    }
                }
            }
            for (target, s) in states.sorted(by: { $0.key < $1.key }) {
                let key = stateKey(t, target)
                guard s.counts.members >= 0, s.counts.members > 0 || s.counts.isEmpty else {
                    throw damaged("the state of \(target.json.text)")
                }
                if s.counts.members == 0 {
                    _ = try txn.delete(db, key: key)
                } else {
                    try txn.put(db, key: key, value: Self.stateValue(s, key: key))
                }
            }
        }
        return before
    }

    /// Every entry of the state recomputed from the objects at the head in `txn`, in key order: what a build writes
    /// and `verify` compares with what the store holds. Some keys may be longer than LMDB's limit
    /// (``Limits/storedViewKeyBytesMax``): a build marks the view not stored then.
    func recomputedEntries(store: LogStore, in txn: LMDBTransaction) throws -> [(key: [UInt8], value: [UInt8])] {
        var out: [(key: [UInt8], value: [UInt8])] = []
        for (t, table) in tables.enumerated() {
            let source = table.source
            let reading = source.attributes.filter { table.read.contains($0.name) }
            var states: [ObjectID: TargetState] = [:]
            var members: [[UInt8]] = []
            try store.forEachHeadObject(of: source.name, reading: reading, in: txn) { id, fetched in
                let values = fetched.objectValues
                guard let target = target(of: values, table: t) else { return }
                count(values, table: t, sign: 1, into: &states[target, default: TargetState(table)])
                for (a, attribute) in table.attributes.enumerated() where table.hasEntries(a) {
                    let v = values[attribute.name] ?? .null
                    if !v.isNull { members.append(memberKey(t, a, target, v, id)) }
                }
            }
            for (target, s) in states {
                let key = stateKey(t, target)
                out.append((key, Self.stateValue(s, key: key)))
            }
            for key in members { out.append((key, Self.memberValue(key))) }
        }
        out.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return out
    }
}

/// A stored view's aggregate state read at the head of a write or a read, as an ``AggregateSource``: each target's
/// state read once; `overrides` (the states before a write) answer first. A record that does not check is kept in
/// ``failure`` (the values since are not to be used), as ``PathLookup`` keeps a damaged object. For a view that
/// reads no inverse (`aggregates` `nil`) it is never asked.
///
/// With `moved` (a delta from the head to a position below it), it gives the state at that position instead: a
/// target some moved member named at either end is read with those members' contributions moved
/// (``StoredAggregates/state(_:_:db:in:moved:)``); any other target's state is the same at both.
package final class StoredAggregateReader: AggregateSource {
    package let aggregates: StoredAggregates?
    private let db: LMDBDatabase
    private let txn: LMDBTransaction
    private var states: [[ObjectID: StoredAggregates.TargetState]]
    /// Per table, the moved members of each target they name at either end.
    private var moved: [[ObjectID: [ObjectDelta]]]
    package private(set) var failure: (any Error)?

    package init(_ aggregates: StoredAggregates?, db: LMDBDatabase, txn: LMDBTransaction,
         overrides: [[ObjectID: StoredAggregates.TargetState]]? = nil, moved delta: [ObjectDelta] = []) {
        self.aggregates = aggregates
        self.db = db
        self.txn = txn
        let tables = aggregates?.tables.count ?? 0
        states = overrides ?? Array(repeating: [:], count: tables)
        moved = Array(repeating: [:], count: tables)
        guard let aggregates, !delta.isEmpty else { return }
        for (t, table) in aggregates.tables.enumerated() {
            for d in delta where d.key.entity == table.inverse.source {  // bounded: the delta
                let targets = Set([aggregates.target(of: d.before, table: t), aggregates.target(of: d.after, table: t)].compactMap { $0 })
                for target in targets { moved[t][target, default: []].append(d) }
            }
        }
    }

    private func state(_ aggregates: StoredAggregates, _ t: Int, _ target: ObjectID) -> StoredAggregates.TargetState? {
        if let known = states[t][target] { return known }
        do {
            let s = try aggregates.state(t, target, db: db, in: txn, moved: moved[t][target] ?? [])
            states[t][target] = s
            return s
        } catch {
            failure = failure ?? error
            return nil
        }
    }

    package func aggregate(_ function: KeyPath.Aggregate, of attribute: String?, type: AttributeType,
                   inverse: InverseRelationship, target: ObjectID) -> Value {
        guard let aggregates, let t = aggregates.tables.firstIndex(where: { $0.inverse == inverse }),
              let s = state(aggregates, t, target) else { return .null }
        let a = attribute.flatMap { name in aggregates.tables[t].attributes.firstIndex { $0.name == name } }
        return aggregates.aggregate(function, table: t, attribute: function == .count ? nil : a, type: type, s)
    }

    package func quantifier(_ q: QuantifiedPath, target: ObjectID) -> Bool {
        guard let aggregates, let t = aggregates.tables.firstIndex(where: { $0.inverse == q.inverse }),
              let i = aggregates.tables[t].quantifiers.firstIndex(where: { $0.text == q.text }),
              let s = state(aggregates, t, target) else { return false }
        return s.counts.holds(aggregates.tables[t].quantifiers[i], i)
    }
}
