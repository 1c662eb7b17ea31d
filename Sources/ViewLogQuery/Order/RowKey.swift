@_spi(Engine) import ViewLogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a row sits in a view's order, as bytes (``KeyEncoding``): its section value (when the view has
/// sections), its sort values with their directions, then its id. Comparing two keys' bytes with `memcmp` is
/// comparing the rows in view order, and equal bytes are the same key: strings are identical by
/// code point, never by canonical equivalence.
@usableFromInline package struct RowKey: Hashable {
    /// The encoded key.
    @usableFromInline package var bytes: [UInt8]
    /// Where the id's encoding starts in ``bytes``.
    @usableFromInline package var idStart: Int

    @inlinable package init(bytes: [UInt8], idStart: Int) {
        self.bytes = bytes
        self.idStart = idStart
    }

    /// The id of the row.
    @inlinable package var id: ObjectID { bytes.withUnsafeBytes { KeyEncoding.id($0, at: idStart) } }
}

/// How a view orders its rows: one direction per key value, then id ascending; and how it makes a row's key.
@usableFromInline package struct RowOrder: Sendable {
    /// `true` for each ascending key value (section first when sectioned).
    @usableFromInline package let ascending: [Bool]
    /// Whether the first key value is the section value.
    @usableFromInline package let isSectioned: Bool
    /// Attribute (or `id`) read for each key value.
    @usableFromInline package let keyPaths: [String]
    /// The schema type of each key value (`nil` when unknown), to read section values back from their bytes.
    @usableFromInline let types: [AttributeType?]
    /// Key bytes a row's storage keeps inline: every key of a view without strings fits; longer keys are kept
    /// apart.
    @usableFromInline package private(set) var inlineKeyBytes: Int

    /// Makes an order; `types` (default: unknown) sizes the rows' inline storage.
    @inlinable init(ascending: [Bool], isSectioned: Bool, keyPaths: [String], types: [AttributeType?]? = nil,
         idType: IDType? = nil) {
        self.ascending = ascending
        self.isSectioned = isSectioned
        self.keyPaths = keyPaths
        let types = types ?? Array(repeating: nil, count: keyPaths.count)
        self.types = types
        var inline = idType == .int ? KeyEncoding.intIDBytes : 32
        for t in types {
            switch t {
            case .int?, .double?, .bool?, .date?: inline += KeyEncoding.fixedValueBytesMax
            case .string?, nil: inline += 24
            }
        }
        self.inlineKeyBytes = inline
    }

    /// The order with its rows' inline storage sized `inlineKeyBytes` (rows made for another order keep theirs).
    package func keeping(inlineKeyBytes: Int) -> RowOrder {
        var o = self
        o.inlineKeyBytes = inlineKeyBytes
        return o
    }

    /// Number of key values per row.
    @usableFromInline var width: Int { ascending.count }

    /// Appends the key of the row `id` to `out`, reading key value `i` with `value(i)`; returns where the id's
    /// encoding starts. The accessor keeps the encoding independent of how objects store their values.
    @inline(__always)
    @inlinable package func encode<Out: KeySink & ~Copyable>(id: ObjectID, into out: inout Out, value: (Int) -> Value) -> Int {
        for i in 0..<ascending.count { KeyEncoding.append(value(i), ascending: ascending[i], to: &out) }
        let idStart = out.count
        KeyEncoding.append(id: id, to: &out)
        return idStart
    }

    /// Appends the key of the object `id` with `values` to `out`; returns where the id's encoding starts.
    @inlinable package func encode<V: AttributeValues, Out: KeySink & ~Copyable>(id: ObjectID, values: V, into out: inout Out) -> Int {
        let paths = keyPaths
        return encode(id: id, into: &out) { i in
            if let v = values.value(of: paths[i]) { return v }
            return paths[i] == "id" ? id.value : .null
        }
    }

    /// The key of the object `id` with `values`.
    @inlinable package func key(id: ObjectID, values: ObjectValues) -> RowKey {
        var bytes: [UInt8] = []
        let idStart = encode(id: id, values: values, into: &bytes)
        return RowKey(bytes: bytes, idStart: idStart)
    }

    /// The key of a row with key values `values` (for tests).
    @inlinable package func key(id: ObjectID, keyValues values: [Value]) -> RowKey {
        precondition(values.count == width, "RowOrder: \(values.count) key values for width \(width)")
        var bytes: [UInt8] = []
        let idStart = encode(id: id, into: &bytes) { values[$0] }
        return RowKey(bytes: bytes, idStart: idStart)
    }

    /// Where the section value's bytes end in a key (0 without sections: the section is the empty prefix).
    @inline(__always)
    @inlinable package func sectionEnd(_ key: UnsafeRawBufferPointer) -> Int {
        isSectioned ? KeyEncoding.componentEnd(key, from: 0, ascending: ascending[0]) : 0
    }

    /// The section value of a key, read back from its bytes; `null` for a view without sections. Equal
    /// section bytes give one value (`-0.0` reads back as `0.0`).
    @inlinable package func sectionValue(_ key: UnsafeRawBufferPointer) -> Value {
        isSectioned ? KeyEncoding.value(key, at: 0, ascending: ascending[0], type: types[0]) : .null
    }

    /// The key values of a key, read back from its bytes.
    @inlinable func keyValues(_ key: RowKey) -> [Value] {
        key.bytes.withUnsafeBytes { p in
            var at = 0
            return (0..<width).map { i in
                let v = KeyEncoding.value(p, at: at, ascending: ascending[i], type: types[i])
                at = KeyEncoding.componentEnd(p, from: at, ascending: ascending[i])
                return v
            }
        }
    }
}

/// `memcmp` order of two byte strings: negative, zero or positive.
@inline(__always)
@inlinable package func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let c = memcmp(pa, pb, n)
        if c != 0 { return Int(c) }
    }
    return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
}

extension Value {
    /// Whether two values are the same stored value: equal, or both the same NaN-free double bits.
    /// Used for "did this attribute change", where `NaN` must equal itself.
    @inline(__always)
    @inlinable package static func identical(_ a: Value, _ b: Value) -> Bool {
        if a == b { return true }
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return false
    }
}

extension RowOrder {
    /// The row order of a request, validated against the entity.
    @inlinable package init(_ request: FetchRequest, _ entity: EntityDescription) throws(QueryError) {
        guard request.entity == entity.name else {
            throw QueryError(.requestEntityMismatch, "fetch request is for entity '\(request.entity)', not '\(entity.name)'",
                             entity: request.entity)
        }
        func check(_ key: String, _ what: String) throws(QueryError) {
            guard key == "id" || entity.attribute(named: key) != nil else {
                throw QueryError(.unknownKey, "unknown \(what) key '\(key)' of entity '\(entity.name)'", entity: entity.name,
                                 key: key)
            }
        }
        var paths: [String] = [], ascending: [Bool] = []
        func type(_ key: String) -> AttributeType? {
            if let a = entity.attribute(named: key) { return a.type }
            return entity.idType == .int ? .int : .string
        }
        if let section = request.sectionKey {
            try check(section, "section")
            paths.append(section)
            // Sections follow the first sort descriptor's direction when it sorts by the section key.
            let first = request.sortDescriptors.first
            ascending.append(first.map { $0.key == section ? $0.ascending : true } ?? true)
        }
        for d in request.sortDescriptors {
            try check(d.key, "sort")
            paths.append(d.key)
            ascending.append(d.ascending)
        }
        self.init(ascending: ascending, isSectioned: request.sectionKey != nil, keyPaths: paths,
                  types: paths.map(type), idType: entity.idType)
    }
}
