@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The binary encoding of values, ids, object keys and object values, shared by the log entry
/// (``TransactionCodec``) and the object-store record (``ObjectRecordCodec``). Byte layout: `schema/log-format.md`.
enum ValueTag {
    static let null: UInt8 = 0
    static let string: UInt8 = 1
    static let int: UInt8 = 2
    static let double: UInt8 = 3
    static let boolFalse: UInt8 = 4
    static let boolTrue: UInt8 = 5
    static let date: UInt8 = 6
    /// A to-many relationship's set of ids (DESIGN §10).
    static let set: UInt8 = 7
}

/// Tags of an id, in the log and in object keys. An int id's tag is below a string id's, as in ``ObjectID``'s order.
enum IDTag {
    static let int: UInt8 = 1
    static let string: UInt8 = 2
}

/// Smallest encoded sizes, to bound counts by the bytes that remain before allocating.
enum EncodedSize {
    /// A name (length 1, one byte) and the smallest value (a tag).
    static let namedValueMin = 3
    /// A name, and two one-byte values.
    static let updatePairMin = 4
    /// An id: its tag and an empty string.
    static let idMin = 2
    /// The smallest change: a kind byte and two empty strings (a schema change; decoding rejects it later).
    static let changeMin = 3
}

extension ByteWriter {
    /// A tagged value.
    @inline(__always)
    package mutating func value(_ v: Value) {
        switch v {
        case .null: u8(ValueTag.null)
        case .string(let s):
            u8(ValueTag.string)
            string(s, limit: Limits.stringBytesMax)
        case .int(let i):
            u8(ValueTag.int)
            u64(UInt64(bitPattern: i))
        case .double(let d):
            u8(ValueTag.double)
            u64(d.bitPattern)  // NaN payloads and -0.0 round-trip exactly
        case .bool(let b): u8(b ? ValueTag.boolTrue : ValueTag.boolFalse)
        case .date(let t):
            u8(ValueTag.date)
            u64(UInt64(bitPattern: t.milliseconds))
        case .set(let ids):
            u8(ValueTag.set)
            precondition(ids.count <= Limits.setMembersMax, "a set of more than \(Limits.setMembersMax) members")
            varint(ids.count)
            for m in ids { id(m) }
        }
    }

    /// An entity or attribute name: 1…``Limits/nameBytesMax`` bytes.
    @inline(__always)
    mutating func name(_ n: String) {
        precondition(!n.isEmpty, "empty name in the log")
        string(n, limit: Limits.nameBytesMax)
    }

    /// A tagged id.
    @inline(__always)
    package mutating func id(_ id: ObjectID) {
        switch id {
        case .int(let i):
            u8(IDTag.int)
            u64(UInt64(bitPattern: i))
        case .string(let s):
            u8(IDTag.string)
            string(s, limit: Limits.idBytesMax)
        }
    }

    /// An object key: entity name, then id.
    @inline(__always)
    package mutating func key(_ k: ObjectKey) {
        name(k.entity)
        id(k.id)
    }

    /// Object values: a count, then (name, value) pairs with names in code-point order, so that equal values
    /// always give equal bytes.
    package mutating func objectValues(_ values: ObjectValues) {
        precondition(values.count <= Limits.attributesMax, "more than \(Limits.attributesMax) attributes")
        varint(values.count)
        if values.count == 1, let only = values.first {
            name(only.key)
            value(only.value)
            return
        }
        ByteWriter.withSortedPairs(values) { pairs in
            for p in pairs {
                name(p.key)
                value(p.value)
            }
        }
    }

    /// The attributes of an update: a count, then (name, new value, previous value) triples, names in code-point
    /// order.
    /// - Precondition: `previous` has exactly the keys of `values` (see ``Change/update(_:values:previous:)``).
    mutating func updatePairs(_ values: ObjectValues, previous: ObjectValues) {
        precondition(values.count <= Limits.attributesMax, "more than \(Limits.attributesMax) attributes")
        precondition(values.count == previous.count, "an update's previous values must have the keys of its values")
        varint(values.count)
        ByteWriter.withSortedPairs(values) { pairs in
            for p in pairs {
                guard let old = previous[p.key] else {
                    preconditionFailure("an update's previous values lack attribute '\(p.key)'")
                }
                name(p.key)
                value(p.value)
                value(old)
            }
        }
    }

    /// Calls `body` with the pairs of `values` sorted by key in code-point order, in a temporary (usually
    /// stack) buffer: no array is allocated per object.
    @inline(__always)
    private static func withSortedPairs(_ values: ObjectValues,
                                        _ body: (UnsafeMutableBufferPointer<(key: String, value: Value)>) -> Void) {
        let n = values.count
        guard n > 0 else { return }
        withUnsafeTemporaryAllocation(of: (key: String, value: Value).self, capacity: n) { buffer in
            var i = 0
            for pair in values where i < n {
                buffer.initializeElement(at: i, to: pair)
                i += 1
            }
            let filled = UnsafeMutableBufferPointer(rebasing: buffer[0..<i])
            // Insertion sort: objects have few attributes, and the generic stable sort with a UTF-8 view
            // comparator cost ~12 % of an append (bench/RESULTS-notes.md). Code-point order = UTF-8 byte order.
            var j = 1
            while j < filled.count {
                var k = j
                while k > 0, Value.compareUTF8(filled[k].key, filled[k - 1].key) < 0 {
                    filled.swapAt(k, k - 1)
                    k -= 1
                }
                j += 1
            }
            body(filled)
            _ = filled.deinitialize()
        }
    }
}

extension ByteReader {
    /// A tagged value.
    @inline(__always)
    package mutating func value() throws(CodecError) -> Value {
        let at = offset
        let tag = try u8("value tag")
        switch tag {
        case ValueTag.null: return .null
        case ValueTag.string: return .string(try string("string value", limit: Limits.stringBytesMax))
        case ValueTag.int: return .int(Int64(bitPattern: try u64("int value")))
        case ValueTag.double: return .double(Double(bitPattern: try u64("double value")))
        case ValueTag.boolFalse: return .bool(false)
        case ValueTag.boolTrue: return .bool(true)
        case ValueTag.date: return .date(Timestamp(milliseconds: Int64(bitPattern: try u64("date value"))))
        case ValueTag.set: return .set(try setMembers())
        default: throw .invalid(field: "value tag", offset: at, reason: "unknown tag \(tag)")
        }
    }

    /// An update's pair of a to-many relationship, when the next value is a set: the members the update added, then
    /// those it removed (DESIGN §10: never the whole set), each a set, no member in both; `nil`, reading nothing,
    /// when the next value is not a set. A set beside a value that is not one is refused, either way round.
    mutating func setPair() throws(CodecError) -> (added: Value, removed: Value)? {
        var probe = self
        let newIsSet = try probe.u8("value tag") == ValueTag.set
        probe = self
        try probe.skipValue()
        let at = probe.offset
        guard newIsSet == (try probe.u8("value tag") == ValueTag.set) else {
            throw .invalid(field: "previous value", offset: at, reason: "a set beside a value that is not one")
        }
        guard newIsSet else { return nil }
        let added = try value()
        let removed = try value()
        if let both = removed.sharedMember(with: added) {
            throw .invalid(field: "set members", offset: at, reason: "\(both.json.text) both added and removed")
        }
        return (added, removed)
    }

    /// A set's members after its tag: a count, then the ids, strictly increasing in id order (so one set has one
    /// encoding) and all of one id type.
    mutating func setMembers() throws(CodecError) -> [ObjectID] {
        let n = try count("set member count", limit: Limits.setMembersMax, bytesEach: EncodedSize.idMin)
        var ids: [ObjectID] = []
        ids.reserveCapacity(n)
        for _ in 0..<n {
            let at = offset
            let m = try id()
            if let last = ids.last {
                guard last.type == m.type else { throw .invalid(field: "set member", offset: at, reason: "ids of two types in one set") }
                guard last < m else { throw .invalid(field: "set member", offset: at, reason: "members not in strictly increasing order") }
            }
            ids.append(m)
        }
        return ids
    }

    /// A name's raw bytes (1 … ``Limits/nameBytesMax``), not yet checked as UTF-8.
    @inline(__always)
    mutating func rawName(_ field: StaticString) throws(CodecError) -> (raw: UnsafeRawBufferPointer, at: Int) {
        let start = offset
        let n = try varint(field)
        guard n >= 1 else { throw .invalid(field: "\(field)", offset: start, reason: "empty name") }
        guard n <= Limits.nameBytesMax else {
            throw .tooLarge(field: "\(field)", offset: start, value: n, limit: Limits.nameBytesMax)
        }
        guard n <= remaining else { throw .truncated(field: "\(field)", offset: start) }
        return (try bytes(n, field), start)
    }

    /// A name's raw bytes (1…``Limits/nameBytesMax``) and its text.
    @inline(__always)
    mutating func nameBytes(_ field: StaticString) throws(CodecError) -> (raw: UnsafeRawBufferPointer, text: String) {
        let (raw, start) = try rawName(field)
        return (raw, try ByteReader.utf8(raw, field, at: start))
    }

    /// An entity or attribute name.
    @inline(__always)
    mutating func name(_ field: StaticString) throws(CodecError) -> String {
        try nameBytes(field).text
    }

    /// A tagged id.
    @inline(__always)
    package mutating func id() throws(CodecError) -> ObjectID {
        let at = offset
        let tag = try u8("id tag")
        switch tag {
        case IDTag.int: return .int(Int64(bitPattern: try u64("int id")))
        case IDTag.string: return .string(try string("string id", limit: Limits.idBytesMax))
        default: throw .invalid(field: "id tag", offset: at, reason: "unknown tag \(tag)")
        }
    }

    /// An object key: entity name, then id.
    @inline(__always)
    package mutating func key() throws(CodecError) -> ObjectKey {
        let entity = try name("entity name")
        return ObjectKey(entity: entity, id: try id())
    }

    /// Object values; names must be in strictly increasing code-point (byte) order.
    package mutating func objectValues() throws(CodecError) -> ObjectValues {
        let n = try count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.namedValueMin)
        var values = ObjectValues(minimumCapacity: n)
        var previousName = UnsafeRawBufferPointer(start: nil, count: 0)
        for i in 0..<n {
            let at = offset
            let (raw, name) = try nameBytes("attribute name")
            guard i == 0 || ByteReader.precedes(previousName, raw) else {
                throw .invalid(field: "attribute name", offset: at, reason: "names not in strictly increasing order")
            }
            previousName = raw
            guard values.updateValue(try value(), forKey: name) == nil else {
                throw .invalid(field: "attribute name", offset: at, reason: "duplicate attribute '\(name)'")
            }
        }
        return values
    }

    /// Object values in the canonical form of an entity whose attributes are `attributes` (sorted by name, as
    /// ``EntityDescription/attributes``): exactly those names, a missing one as `.null`, a name the schema lacks
    /// dropped — the same as ``EntityDescription/canonical(_:)`` of ``objectValues()``, and the same errors.
    package mutating func objectValues(canonicalFor attributes: [Attribute]) throws(CodecError) -> ObjectValues {
        var values = ObjectValues(minimumCapacity: attributes.count)
        try walkValues(of: attributes) { j, v in
            if let v {
                values[attributes[j].name] = v
            } else {
                ByteReader.fillAbsent(attributes, j, into: &values)
            }
        }
        return values
    }

    /// Reads object values into `fetched`: each of its attributes' slots gets the record's value, `null` when the
    /// record lacks it; other names are dropped. The same checks and errors as ``objectValues()``.
    /// `names`, when given, are `fetched.attributes`' names as bytes (made once for a scan of many records).
    package mutating func objectValues(into fetched: FetchedValues, names: AttributeNames? = nil) throws(CodecError) {
        // Only the attributes asked for are decoded: a view reads its predicate and key attributes, not every
        // value of every row (the others are stepped over, their framing checked; the row's checksum covers them).
        if let names {
            precondition(names.count == fetched.attributes.count, "names of other attributes")
            try walkValues(count: names.count, comparing: { raw, j in names.compare(raw, toNameOf: j) },
                           reading: { r throws(CodecError) in try r.value() }, decodingDropped: false) { j, v in
                fetched.slots[j] = v ?? fetched.attributes[j].absentValue
            }
        } else {
            try walkValues(of: fetched.attributes, reading: { r throws(CodecError) in try r.value() }, decodingDropped: false) { j, v in
                fetched.slots[j] = v ?? fetched.attributes[j].absentValue
            }
        }
    }

    /// ``objectValues(into:names:)`` of one record of a scan: when the record's names are exactly `shape`'s (the
    /// last record's), each name is compared with the shape's and its value read or stepped over as the shape says;
    /// otherwise (or when that reading fails) the record is read the general way, which names any error, and its
    /// names become the shape. The same values and errors either way (tests compare the two).
    package mutating func objectValues(into fetched: FetchedValues, names: AttributeNames,
                               shape: inout RecordShape) throws(CodecError) {
        let start = offset
        if shape.count > 0 {
            var attempt = self
            if attempt.readLike(shape, into: fetched) {
                self = attempt
                return
            }
        }
        try objectValues(into: fetched, names: names)
        if let base = buffer.baseAddress {
            shape.record(UnsafeRawBufferPointer(start: base + start, count: offset - start), wanted: names)
        }
    }

    /// Reads object values whose names are exactly `shape`'s, in order; `false` (the reader left anywhere, some of
    /// `fetched` overwritten) when they are not or the values do not read.
    @inline(__always)
    private mutating func readLike(_ shape: RecordShape, into fetched: FetchedValues) -> Bool {
        do {
            // The count need not be checked against the bytes left (a division per row): the shape's names are
            // few, and each is read with its bounds checked.
            let n = try varint("attribute count")
            guard n == shape.count else { return false }
            for i in 0..<n {
                let name = shape.name(i)
                let (raw, _) = try rawName("attribute name")
                guard shape.isName(name, at: i, raw, available: buffer.count - offset + raw.count) else { return false }
                if name.match >= 0 { fetched.slots[name.match] = try value() } else { try skipValue() }
            }
        } catch {
            return false
        }
        for j in shape.absent { fetched.slots[j] = .null }
        return true
    }

    /// Reads object values, calling `body(j, value)` for every attribute `j` of `attributes` (sorted by name) in
    /// order, exactly once, with its value or `nil` when the record lacks it; names the attributes lack are read,
    /// checked and dropped.
    ///
    /// A merge walk over the record's names (in the same code-point order), so a name that matches takes the
    /// attribute's `String` (no string made, no UTF-8 check needed) and no lookup checks the result.
    @inline(__always)
    private mutating func walkValues(of attributes: [Attribute], _ body: (Int, Value?) -> Void) throws(CodecError) {
        try walkValues(of: attributes, reading: { r throws(CodecError) in try r.value() }, body)
    }

    /// ``walkValues(of:_:)`` with each value read by `read` (which reads exactly one tagged value). Unless
    /// `decodingDropped`, the value of a name the attributes lack is stepped over, not read.
    @inline(__always)
    private mutating func walkValues<V>(of attributes: [Attribute], reading read: (inout ByteReader) throws(CodecError) -> V,
                                        decodingDropped: Bool = true, _ body: (Int, V?) -> Void) throws(CodecError) {
        try walkValues(count: attributes.count, comparing: { raw, j in ByteReader.compare(raw, attributes[j].name) },
                       reading: read, decodingDropped: decodingDropped, body)
    }

    /// ``walkValues(of:reading:decodingDropped:_:)`` over `attributeCount` attributes whose names `compareName`
    /// compares with a record's (`compareName(raw, j)`: the byte order of `raw` against attribute `j`'s name).
    @inline(__always)
    private mutating func walkValues<V>(count attributeCount: Int, comparing compareName: (UnsafeRawBufferPointer, Int) -> Int,
                                        reading read: (inout ByteReader) throws(CodecError) -> V,
                                        decodingDropped: Bool = true, _ body: (Int, V?) -> Void) throws(CodecError) {
        let n = try count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.namedValueMin)
        var previousName = UnsafeRawBufferPointer(start: nil, count: 0)
        var j = 0
        for i in 0..<n {
            let at = offset
            let (raw, start) = try rawName("attribute name")
            var matched: Int?
            while j < attributeCount {  // bounded: j only grows
                let order = compareName(raw, j)
                if order > 0 {
                    body(j, nil)
                    j += 1
                } else {
                    if order == 0 { matched = j; j += 1 }
                    break
                }
            }
            if matched == nil { try ByteReader.checkUTF8(raw, "attribute name", at: start) }
            guard i == 0 || ByteReader.precedes(previousName, raw) else {
                throw .invalid(field: "attribute name", offset: at, reason: "names not in strictly increasing order")
            }
            previousName = raw
            if let matched {
                body(matched, try read(&self))
            } else if decodingDropped {
                _ = try read(&self)
            } else {
                try skipValue()
            }
        }
        while j < attributeCount {
            body(j, nil)
            j += 1
        }
    }

    /// Writes object values as the members of a JSON object in the canonical form of `attributes` (sorted by
    /// name, without repeats): `"name": value` for each, `null` where the values lack it, separated by `", "`, other
    /// names dropped — the same text as writing ``objectValues(canonicalFor:)`` member by member, without the
    /// dictionary. The same checks and errors.
    /// `w` must have room for ``jsonMembersBytesMax(keys:attributeCount:valueBytes:)`` of these values.
    package mutating func writeJSONMembers(canonicalFor names: AttributeNames, keys: JSONWriter.MemberKeys,
                                   into w: inout JSONWriter.Unchecked) throws(CodecError) {
        try walkValues(count: names.count, comparing: names.compare,
                       reading: { r throws(CodecError) in try r.valueForJSON() }) { j, v in
            w.key(j, of: keys)
            switch v {
            case .string(let utf8)?: w.string(utf8: utf8)
            case .other(let value)?: w.value(value)
            case nil: w.value(names.absentValue(of: j))
            }
        }
    }

    /// The most bytes ``writeJSONMembers(canonicalFor:keys:into:)`` writes for object values of `valueBytes`
    /// bytes: the keys and separators, each string escaped at worst six bytes per byte, any other value at most
    /// ``JSONWriter/Unchecked/scalarBytesMax``.
    package static func jsonMembersBytesMax(keys: JSONWriter.MemberKeys, attributeCount: Int, valueBytes: Int) -> Int {
        keys.byteCount + attributeCount * (4 + JSONWriter.Unchecked.scalarBytesMax) + 6 * valueBytes
    }

    /// A tagged value as JSON writes it: a string as its checked UTF-8 bytes in place (no `String` made), any
    /// other value decoded. The same checks and errors as ``value()``.
    @inline(__always)
    mutating func valueForJSON() throws(CodecError) -> JSONReadyValue {
        guard remaining > 0, buffer[offset] == ValueTag.string else { return .other(try value()) }
        _ = try u8("value tag")
        let start = offset
        let n = try varint("string value")
        guard n <= Limits.stringBytesMax else {
            throw .tooLarge(field: "string value", offset: start, value: n, limit: Limits.stringBytesMax)
        }
        guard n <= remaining else { throw .truncated(field: "string value", offset: start) }
        let raw = try bytes(n, "string value")
        if !ByteReader.isASCII(raw) { _ = try ByteReader.utf8(raw, "string value", at: start) }
        return .string(raw)
    }

    /// Sets `attributes[j]` to its absent value unless it repeats the name before it (which the walk has already set).
    @inline(__always)
    private static func fillAbsent(_ attributes: [Attribute], _ j: Int, into values: inout ObjectValues) {
        let name = attributes[j].name
        if j > 0, attributes[j - 1].name == name { return }
        values[name] = attributes[j].absentValue
    }

    /// The byte order of `raw` against `name`'s UTF-8: negative, zero or positive.
    @inline(__always)
    static func compare(_ raw: UnsafeRawBufferPointer, _ name: String) -> Int {
        var name = name
        return name.withUTF8 { compare(raw, UnsafeRawBufferPointer($0)) }
    }

    /// The attributes of an update: (name, new value, previous value) triples, names strictly increasing. With
    /// `side` other than `.both`, the other side's values are stepped over and given empty (a fold needs one) —
    /// but a to-many's pair, the members added and removed (``setPair()``), is read whole: applying it either way
    /// needs both.
    mutating func updatePairs(_ side: UpdateValues = .both) throws(CodecError) -> (values: ObjectValues, previous: ObjectValues) {
        let n = try count("attribute count", limit: Limits.attributesMax, bytesEach: EncodedSize.updatePairMin)
        var values = ObjectValues(minimumCapacity: side == .previous ? 0 : n)
        var previous = ObjectValues(minimumCapacity: side == .new ? 0 : n)
        var previousName = UnsafeRawBufferPointer(start: nil, count: 0)
        for i in 0..<n {
            let at = offset
            let (raw, name) = try nameBytes("attribute name")
            guard i == 0 || ByteReader.precedes(previousName, raw) else {
                throw .invalid(field: "attribute name", offset: at, reason: "names not in strictly increasing order")
            }
            previousName = raw
            if case let (added, removed)? = try setPair() {
                values[name] = added
                previous[name] = removed
                continue
            }
            if side == .previous { try skipValue() } else { values[name] = try value() }
            if side == .new { try skipValue() } else { previous[name] = try value() }
        }
        return (values, previous)
    }

    /// Whether `a` comes strictly before `b` in byte order (which, for UTF-8, is code-point order).
    @inline(__always)
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        compare(a, b) < 0
    }

    /// The first 8 bytes of `raw` as a big-endian word, zero-padded: words of two byte strings order as their
    /// first 8 bytes do (a string and its zero-padded prefix tie). `available` bytes are readable from `raw`'s start
    /// (at least its count): with 8 of them, one load.
    @inline(__always)
    static func leadingWord(_ raw: UnsafeRawBufferPointer, available: Int) -> UInt64 {
        if available >= 8, let base = raw.baseAddress {
            let w = UInt64(bigEndian: base.loadUnaligned(as: UInt64.self))
            return raw.count >= 8 ? w : w & ~(UInt64.max >> (8 * UInt64(raw.count)))
        }
        var w: UInt64 = 0
        for k in 0..<min(8, raw.count) { w |= UInt64(raw[k]) << (56 - 8 * UInt64(k)) }
        return w
    }

    /// The byte order of `a` against `b`: negative, zero or positive.
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i], y = b[i]
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return a.count - b.count
    }
}

/// A value read for writing as JSON: a string's UTF-8 bytes (borrowed from the reader's buffer), or another value.
enum JSONReadyValue {
    case string(UnsafeRawBufferPointer)
    case other(Value)
}
