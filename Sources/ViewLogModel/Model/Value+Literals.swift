// Literals, so that values and ids read as they would in a Core Data or GRDB app:
// `context.update("Employee", id: "e1", values: ["name": "Ann", "height": 182])`.
// There is deliberately no `nil` literal: `Value.null` is a value, an absent `Value?` is not.

extension Value: ExpressibleByStringLiteral {
    /// A ``Value/string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    /// An ``Value/int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    /// A ``Value/double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByBooleanLiteral {
    /// A ``Value/bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ObjectID: ExpressibleByStringLiteral {
    /// A ``ObjectID/string(_:)`` id.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ObjectID: ExpressibleByIntegerLiteral {
    /// An ``ObjectID/int(_:)`` id.
    public init(integerLiteral value: Int64) { self = .int(value) }
}
