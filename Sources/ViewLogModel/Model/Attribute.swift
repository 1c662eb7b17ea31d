/// One attribute of an entity.
public struct Attribute: Sendable, Hashable {
    /// The attribute's name, unique within its entity.
    public var name: String
    /// The type of its non-null values.
    public var type: AttributeType
    /// Whether `null` is a value of this attribute.
    public var isOptional: Bool
    /// The value an insert gets when it does not give one. `nil` means no default (a required attribute
    /// without a default must be given; an optional one becomes `null`).
    public var defaultValue: Value?
    /// Set when the attribute stores a to-one relationship (DESIGN §10): its values are ids of
    /// ``Relationship/target``, its ``type`` that entity's id type. Make one with
    /// ``init(relationship:to:targetIDType:isOptional:isToMany:inverse:deleteRule:)``.
    public var relationship: Relationship?

    /// Makes an attribute; `defaultValue` must be of `type` (or `null` for an optional attribute).
    public init(name: String, type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
    }

    /// What an insert that does not give the attribute stores: its default, the empty set of a to-many (DESIGN §10),
    /// or `nil` (`null` when optional, else the attribute must be given).
    package var insertDefault: Value? { defaultValue ?? (isToMany ? .set([]) : nil) }

    /// What an object that holds no value of the attribute reads (one written before a schema update added it): the
    /// empty set of a to-many (DESIGN §10: a set is never `null`), `null` otherwise.
    @usableFromInline package var absentValue: Value { isToMany ? .set([]) : .null }

    /// Whether `value` may be stored in this attribute: its type, or `null` when optional.
    /// An `int` is accepted for a `double` attribute only after ``coerce(_:)``.
    public func accepts(_ value: Value) -> Bool {
        switch value {
        case .null: return isOptional
        default: return !isToMany && value.type == type
        }
    }

    /// Converts a value to this attribute's stored type where the conversion is exact and documented:
    /// an integer given for a `double` attribute becomes a double. Returns `nil` when the value does not fit.
    public func coerce(_ value: Value) -> Value? {
        switch (type, value) {
        case (_, .null): return isOptional ? .null : nil
        case (.double, .int(let i)): return .double(Double(i))
        default: return !isToMany && value.type == type ? value : nil
        }
    }
}
