/// Where a row sits in a view's order: its section value (when the view has sections), its sort values, and
/// its id as the final tie-breaker (DESIGN §4).
struct RowKey: Hashable {
    /// The section value first (when sectioned), then one value per sort descriptor.
    var values: [Value]
    /// The id, which breaks every tie.
    var id: ObjectID
}

/// How a view orders its rows: one direction per key value, then id ascending.
struct RowOrder: Sendable {
    /// `true` for each ascending key value (section first when sectioned).
    let ascending: [Bool]
    /// Whether the first key value is the section value.
    let isSectioned: Bool
    /// Attribute (or `id`) read for each key value.
    let keyPaths: [String]

    /// Number of key values per row.
    var width: Int { ascending.count }

    /// Compares two key values at position `i` with that position's direction.
    @inline(__always)
    func compare(_ a: Value, _ b: Value, at i: Int) -> Int {
        let c = Value.compare(a, b)
        return ascending[i] ? c : -c
    }

    /// The key of the object with `id` and `values`.
    func key(id: ObjectID, values: ObjectValues) -> RowKey {
        RowKey(values: keyPaths.map { path in
            if let v = values[path] { return v }
            return path == "id" ? id.value : .null
        }, id: id)
    }

    /// Compares two keys in view order.
    func compare(_ a: RowKey, _ b: RowKey) -> Int {
        for i in 0..<width {
            let c = compare(a.values[i], b.values[i], at: i)
            if c != 0 { return c }
        }
        return a.id < b.id ? -1 : (a.id == b.id ? 0 : 1)
    }

    /// The section value of a key; `null` for a view without sections.
    func sectionValue(_ key: RowKey) -> Value { isSectioned ? key.values[0] : .null }
}

extension Value {
    /// Whether two values are the same stored value: equal, or both the same NaN-free double bits.
    /// Used for "did this attribute change", where `NaN` must equal itself.
    @inline(__always)
    static func identical(_ a: Value, _ b: Value) -> Bool {
        if a == b { return true }
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return false
    }
}
