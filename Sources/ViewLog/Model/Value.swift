/// One attribute value of an object.
///
/// Values are typed by the schema (`string`, `int`, `double`, `bool`, `date`); `null` is a value only of
/// optional attributes. Ordering (``Value/compare(_:_:)``) is the one the query language and sort descriptors use.
public enum Value: Sendable, Hashable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Timestamp)

    /// Whether this is ``null``.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The type of a non-null value; `nil` for ``null``.
    public var type: AttributeType? {
        switch self {
        case .null: return nil
        case .string: return .string
        case .int: return .int
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        }
    }
}

extension Value {
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
        }
    }

    /// Code-point order: comparing UTF-8 bytes gives exactly Unicode scalar order.
    @inlinable
    static func compareUTF8(_ x: String, _ y: String) -> Int {
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
        }
    }
}

extension Double {
    /// Shortest text that reads back as the same double (Swift's `description`), without a trailing `.0`
    /// only where the JSON form needs none: `2.0` stays `2.0` so that it reads back as a double.
    public var shortestText: String { description }
}
