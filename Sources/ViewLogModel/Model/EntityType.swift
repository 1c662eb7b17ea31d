/// A Swift type whose values are the objects of one entity of the schema.
///
/// Adopt it with a `Codable` struct whose stored properties are named like the entity's attributes, plus an
/// `id` property holding the object's id. ``ObjectValuesEncoder`` turns a value into the id and attribute
/// values a change carries; ``ObjectValuesDecoder`` turns stored values back into a value. Both check the
/// value against the entity's ``EntityDescription`` and throw ``EntityCodingError`` on any mismatch.
///
/// For the `Employee` entity of the example schema (DESIGN.md §2):
///
/// ```swift
/// struct Employee: EntityType {
///     static let entityName = "Employee"
///     var id: String
///     var name: String
///     var height: Int?
///     var hired: Date?
/// }
///
/// let entity = try schema.entity(named: Employee.entityName)
/// let ann = Employee(id: "e1", name: "Ann", height: 180, hired: nil)
/// let (id, values) = try ObjectValuesEncoder().encode(ann, entity: entity)
/// // id == .string("e1"), values == ["name": .string("Ann"), "height": .int(180), "hired": .null]
/// let back = try ObjectValuesDecoder().decode(Employee.self, id: id, values: values, entity: entity)
/// ```
///
/// A type may leave out attributes it does not need: encoding does not set them (an insert gives them their
/// defaults, an update leaves them as they are) and decoding ignores them.
///
/// How properties map to attribute types:
///
/// | Attribute | Swift property types |
/// |-----------|----------------------|
/// | `string`  | `String` |
/// | `int`     | `Int`, `Int64`, `Int32`, `Int16`, `Int8`, unsigned integers (range-checked); `Double`, `Float` (integral values only) |
/// | `double`  | `Double`, `Float` |
/// | `bool`    | `Bool` |
/// | `date`    | `Foundation.Date` (rounded to the millisecond), ``Timestamp`` |
///
/// An `Optional` of any of these codes `nil` as `null` and fits only an optional attribute; on decoding, an
/// absent or `null` attribute becomes `nil`. A type coded through a single value (an enum with a raw value,
/// a wrapper struct with a custom `Codable` conformance) maps as that value does. Arrays, dictionaries and
/// nested structs are not attributes and are rejected.
///
/// The property named `id` (its coding key must be `"id"`) is the object's id, never an attribute.
public protocol EntityType: Codable, Sendable {
    /// The type of the object's id: `String` for an entity with string ids, `Int` or `Int64` for int ids.
    associatedtype ID: EntityID
    /// The name of the entity in the schema.
    static var entityName: String { get }
    /// The object's id.
    var id: ID { get }
}

/// A Swift type that holds an object's id: `String` (for `"id": "string"` entities), `Int` or `Int64`
/// (for `"id": "int"`).
///
/// Adopt it for your own id types (a wrapper around a string, say) by mapping to and from ``ObjectID``.
public protocol EntityID: Codable, Hashable, Sendable {
    /// The schema id type this Swift type holds.
    static var idType: IDType { get }
    /// The id as the store keeps it. Its ``ObjectID/type`` must be ``idType``.
    var objectID: ObjectID { get }
    /// Makes an id from a stored id; `nil` when the stored id is of the other type or out of range.
    init?(objectID: ObjectID)
}

extension String: EntityID {
    /// String ids: `"id": "string"`.
    public static var idType: IDType { .string }
    /// The id as ``ObjectID/string(_:)``.
    public var objectID: ObjectID { .string(self) }
    /// The string of ``ObjectID/string(_:)``; `nil` for an int id.
    public init?(objectID: ObjectID) {
        guard case .string(let s) = objectID else { return nil }
        self = s
    }
}

extension Int64: EntityID {
    /// Int ids: `"id": "int"`.
    public static var idType: IDType { .int }
    /// The id as ``ObjectID/int(_:)``.
    public var objectID: ObjectID { .int(self) }
    /// The integer of ``ObjectID/int(_:)``; `nil` for a string id.
    public init?(objectID: ObjectID) {
        guard case .int(let i) = objectID else { return nil }
        self = i
    }
}

extension Int: EntityID {
    /// Int ids: `"id": "int"`.
    public static var idType: IDType { .int }
    /// The id as ``ObjectID/int(_:)``.
    public var objectID: ObjectID { .int(Int64(self)) }
    /// The integer of ``ObjectID/int(_:)``; `nil` for a string id or one that does not fit in `Int`.
    public init?(objectID: ObjectID) {
        guard case .int(let i) = objectID, let v = Int(exactly: i) else { return nil }
        self = v
    }
}
