/// One attribute value of an object.
///
/// Values are typed by the schema (`string`, `int`, `double`, `bool`, `date`); `null` is a value only of
/// optional attributes. A to-many relationship's value is a ``set(_:)`` of ids (DESIGN §10). Ordering (``Value/compare(_:_:)``) is the one the query language and sort descriptors use.
///
/// Equality and hashing are by code point: `"\u{e9}"` and `"e\u{301}"` are different values, unlike
/// Swift's `String ==`, which is canonical equivalence. Doubles compare as numbers (`-0.0 == 0.0`).
public enum Value: Sendable, Hashable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Timestamp)
    /// The value of a to-many relationship: the ids of its members, distinct and in ascending id order (§4's
    /// order), `[]` when empty; never `null`. Made by ``set(members:)``, which sorts and checks.
    case set([ObjectID])

    /// A set of `members` in id order, or `nil` when an id repeats (a set never holds one twice).
    public static func set(members: [ObjectID]) -> Value? {
        let sorted = members.sorted()
        for i in sorted.indices.dropFirst() where sorted[i - 1] == sorted[i] { return nil }
        return .set(sorted)
    }

    /// The ids a relationship's value names: the one id of a to-one, the members of a set, none for `null`.
    package var memberIDs: [ObjectID] {
        switch self {
        case .int(let i): return [.int(i)]
        case .string(let s): return [.string(s)]
        case .set(let ids): return ids
        default: return []
        }
    }

    /// Whether this is a ``set(_:)``.
    package var isSet: Bool {
        if case .set = self { return true }
        return false
    }

    /// The first member, in id order, that both this set and `other` hold: what makes a pair of members added and
    /// removed (an update's change of a set) invalid. `nil` when they share none.
    package func sharedMember(with other: Value) -> ObjectID? {
        memberIDs.first(where: other.holds)
    }

    /// Whether a relationship's value names `id`: the to-one's id, or one of the set's members.
    package func holds(_ id: ObjectID) -> Bool {
        guard case .set(let ids) = self else { return ObjectID(self) == id }
        var low = 0, high = ids.count
        while low < high {  // bounded: the range halves
            let mid = (low + high) / 2
            if ids[mid] == id { return true }
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return false
    }

    /// The ids `new` names that `old` does not (added) and those `old` names that `new` does not (removed), each in
    /// id order: what a change of a relationship's value does to the targets it names (one merge walk).
    package static func memberChanges(from old: Value, to new: Value) -> (added: [ObjectID], removed: [ObjectID]) {
        let a = old.memberIDs, b = new.memberIDs
        var added: [ObjectID] = [], removed: [ObjectID] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {  // bounded: each round consumes a member
            if j == b.count || (i < a.count && a[i] < b[j]) {
                removed.append(a[i]); i += 1
            } else if i == a.count || b[j] < a[i] {
                added.append(b[j]); j += 1
            } else {
                i += 1; j += 1
            }
        }
        return (added, removed)
    }

    /// A set after an update's change of it, which logs the members it added and removed, never the whole set
    /// (DESIGN §10): this set's members with those of `added` and without those of `removed`, in id order (one merge
    /// walk). A value that is not a set (an object from before the relationship existed) is the empty set.
    package func applyingMembers(added: Value, removed: Value) -> Value {
        let a = memberIDs, b = added.memberIDs
        var out: [ObjectID] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {  // bounded: each round consumes a member
            let next: ObjectID
            if j == b.count || (i < a.count && a[i] < b[j]) {
                next = a[i]; i += 1
            } else if i == a.count || b[j] < a[i] {
                next = b[j]; j += 1
            } else {
                next = a[i]; i += 1; j += 1
            }
            if !removed.holds(next) { out.append(next) }
        }
        return .set(out)
    }

    /// Whether an update's pair (`new`, `previous`) follows this value, as its log says: `previous` is this value
    /// bit for bit, or, for a set's change (`new` the members added, `previous` those removed), this set holds
    /// every member removed and none added.
    package func precedes(update new: Value, previous: Value) -> Bool {
        guard case .set = new else { return isIdentical(to: previous) }
        return previous.memberIDs.allSatisfy(holds) && !new.memberIDs.contains(where: holds)
    }

    /// Whether this is ``null``.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The type of a non-null value; `nil` for ``null`` and for a set (whose members have the type of its
    /// relationship's target ids).
    public var type: AttributeType? {
        switch self {
        case .null: return nil
        case .string: return .string
        case .int: return .int
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        case .set: return nil
        }
    }
}

extension Value {
    /// Code-point equality: strings are equal when their Unicode scalars are (not canonical equivalence).
    @inlinable
    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.string(x), .string(y)): return sameScalars(x, y)
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case let (.date(x), .date(y)): return x == y
        case let (.set(x), .set(y)): return x == y
        default: return false
        }
    }

    /// Whether the two values are the same bits, as the log stores them: ``==(_:_:)``, except that doubles are
    /// compared by bit pattern (so `-0.0` is not `0.0`). `verify` and replay compare what a change says it
    /// overwrote, and object rows with the log, this way: each is a copy, so any difference means they disagree.
    package func isIdentical(to other: Value) -> Bool {
        if case let (.double(x), .double(y)) = (self, other) { return x.bitPattern == y.bitPattern }
        return self == other
    }

    /// Hashes strings by their UTF-8 bytes, consistently with ``==(_:_:)``.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .string(let s): hasher.combine(1 as UInt8); Value.hashScalars(s, into: &hasher)
        case .int(let i): hasher.combine(2 as UInt8); hasher.combine(i)
        case .double(let d): hasher.combine(3 as UInt8); hasher.combine(d)
        case .bool(let b): hasher.combine(4 as UInt8); hasher.combine(b)
        case .date(let t): hasher.combine(5 as UInt8); hasher.combine(t)
        case .set(let ids): hasher.combine(6 as UInt8); hasher.combine(ids)
        }
    }

    /// Whether two strings have the same Unicode scalars (the same UTF-8 bytes).
    @inlinable
    public static func sameScalars(_ x: String, _ y: String) -> Bool {
        x.utf8.count == y.utf8.count && compareUTF8(x, y) == 0
    }

    /// Feeds a string's UTF-8 bytes to `hasher` (code-point identity, unlike `String.hash(into:)`).
    @inlinable
    public static func hashScalars(_ s: String, into hasher: inout Hasher) {
        var s = s
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(s.utf8.count)
    }

    /// Total order used by sort descriptors, sections and comparisons: `null` first, then by value.
    ///
    /// Numbers compare numerically across `int` and `double`; strings in Unicode code-point order (which is
    /// UTF-8 byte order); `false < true`; dates by time. Values of unrelated types (which a schema-checked
    /// view never compares) order by a fixed type rank so that the order stays total.
    /// - Returns: a negative number, zero or a positive number.
    @inlinable
    public static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.string(x), .string(y)): return compareUTF8(x, y)
        case let (.int(x), .int(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.double(x), .double(y)):
            if x < y { return -1 }
            if x > y { return 1 }
            if x == y { return 0 }
            return x.isNaN ? (y.isNaN ? 0 : 1) : -1  // NaN sorts after every number: the order stays total
        case let (.int(x), .double(y)): return -compareDouble(y, toInt: x)
        case let (.double(x), .int(y)): return compareDouble(x, toInt: y)
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.date(x), .date(y)):
            return x.milliseconds < y.milliseconds ? -1 : (x.milliseconds == y.milliseconds ? 0 : 1)
        case let (.set(x), .set(y)):
            // Member by member, a shorter set first when it is the other's prefix (no view sorts by a set: total only).
            for (m, n) in zip(x, y) where m != n { return m < n ? -1 : 1 }
            return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
        default: return a.typeRank < b.typeRank ? -1 : 1
        }
    }

    @usableFromInline
    var typeRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .double: return 2
        case .string: return 3
        case .date: return 4
        case .set: return 5
        }
    }

    /// Code-point order: comparing UTF-8 bytes gives exactly Unicode scalar order.
    @inlinable
    package static func compareUTF8(_ x: String, _ y: String) -> Int {
        // No `x == y` shortcut: String equality is canonical equivalence, not code-point equality.
        var a = x, b = y
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                for i in 0..<n where pa[i] != pb[i] {
                    return pa[i] < pb[i] ? -1 : 1
                }
                return pa.count < pb.count ? -1 : (pa.count == pb.count ? 0 : 1)
            }
        }
    }

    /// Exact comparison of a double with a 64-bit integer (no rounding of the integer to a double).
    @inlinable
    static func compareDouble(_ d: Double, toInt i: Int64) -> Int {
        if d.isNaN { return 1 }
        if d < -9_223_372_036_854_775_808.0 { return -1 }
        if d >= 9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.down)
        let wi = Int64(whole)
        if wi != i { return wi < i ? -1 : 1 }
        return d > whole ? 1 : 0
    }
}

extension Value: CustomStringConvertible {
    /// The value as text: strings as they are, integers in decimal, doubles in shortest round-trip form,
    /// `true`/`false`, dates in the JSON form, and `null`. This is also a section's name.
    public var description: String {
        switch self {
        case .null: return "null"
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return d.shortestText
        case .bool(let b): return b ? "true" : "false"
        case .date(let t): return t.iso8601
        case .set(let ids): return "[" + ids.map { $0.json.text }.joined(separator: ", ") + "]"
        }
    }
}

extension Value {
    /// The name of the section of rows with this value: `nil` for ``null`` (JSON `null`, `(null)` in
    /// human output; never the string `"null"`, which names the section of the string "null"), else the value as
    /// text (``description``). Equal values give one name: `-0.0` and `0.0` are one section named `0.0`.
    public var sectionName: String? {
        switch self {
        case .null: return nil
        case .double(let d) where d == 0: return 0.0.shortestText
        default: return description
        }
    }

    /// The section's name for messages and readable output: quoted (`"A"`), or `(null)` without a name.
    public var sectionLabel: String { sectionName.map { "\"\($0)\"" } ?? "(null)" }
}

extension Double {
    /// Shortest text that reads back as the same double (Swift's `description`), without a trailing `.0`
    /// only where the JSON form needs none: `2.0` stays `2.0` so that it reads back as a double.
    public var shortestText: String { description }
}
