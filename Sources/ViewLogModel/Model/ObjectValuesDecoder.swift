#if canImport(FoundationEssentials)
import FoundationEssentials  // Date: typed models may hold Foundation dates.
#else
import Foundation
#endif

/// Turns the id and attribute values of an object back into a value of an ``EntityType``, checking each
/// property against the entity's ``EntityDescription``.
///
/// The conversion is direct (the type's `Codable` conformance reads ``Value``s; no JSON in between). The `id`
/// property gets the object's id; every other property must be an attribute of the entity, of a Swift type
/// that fits the attribute's type (see ``EntityType``); an `int` attribute also decodes into `Double` or
/// `Float` when the conversion is exact. An optional property gets `nil` for ``Value/null`` or an absent
/// attribute; a property that is not optional needs its attribute present and not `null`. Values of
/// attributes the type has no property for are ignored.
///
/// ```swift
/// let ann = try ObjectValuesDecoder().decode(Employee.self, id: id, values: values, entity: entity)
/// ```
public struct ObjectValuesDecoder: Sendable {
    /// Makes a decoder. It has no state: one decoder may be used for any number of objects.
    public init() {}

    /// Decodes the object `id` with attribute `values` of `entity` as a `T`.
    ///
    /// - Throws: ``EntityCodingError`` when `T.entityName` is not `entity.name`, `T.ID` or `id` is not of the
    ///   entity's id type, a property is not an attribute, a value does not fit its property's type or range,
    ///   a property that is not optional has no value or `null`, or a property is an array, a dictionary or a
    ///   nested type; any error the type's own `init(from:)` throws.
    public func decode<T: EntityType>(
        _ type: T.Type,
        id: ObjectID,
        values: ObjectValues,
        entity: EntityDescription
    ) throws -> T {
        guard T.entityName == entity.name else {
            throw EntityCodingError.entityMismatch(type: "\(T.self)", entityName: T.entityName, entity: entity.name)
        }
        guard T.ID.idType == entity.idType else {
            throw EntityCodingError.idMismatch(entity: entity.name, expected: entity.idType, found: "\(T.ID.self)")
        }
        guard id.type == entity.idType else {
            throw EntityCodingError.idMismatch(entity: entity.name, expected: entity.idType,
                                               found: "\(id.type.rawValue) id \(id)")
        }
        return try T(from: _ObjectDecoder(object: _DecodingObject(entity: entity, id: id, values: values)))
    }
}

// MARK: - Conversions

extension _AttributeCoding {
    /// A value of the wrong type for `swiftType`, named by the type the value has.
    func mismatch(_ value: Value, _ swiftType: Any.Type) -> EntityCodingError {
        if value.isNull { return .nullValue(entity: entity, attribute: attribute.name) }
        return .typeMismatch(entity: entity, attribute: attribute.name, attributeType: value.type ?? attribute.type,
                             swiftType: "\(swiftType)")
    }

    func decodeString(_ value: Value) throws(EntityCodingError) -> String {
        guard case .string(let s) = value else { throw mismatch(value, String.self) }
        return s
    }

    func decodeBool(_ value: Value) throws(EntityCodingError) -> Bool {
        guard case .bool(let b) = value else { throw mismatch(value, Bool.self) }
        return b
    }

    func decode<I: FixedWidthInteger>(integer type: I.Type, _ value: Value) throws(EntityCodingError) -> I {
        guard case .int(let i) = value else { throw mismatch(value, I.self) }
        guard let v = I(exactly: i) else { throw outOfRange(i, I.self) }
        return v
    }

    /// Doubles, rounded to the nearest `Float` for a `Float`; integers only when the conversion is exact.
    func decode<F: BinaryFloatingPoint>(floating type: F.Type, _ value: Value) throws(EntityCodingError) -> F {
        switch value {
        case .double(let d):
            let f = F(d)
            guard f.isFinite || !d.isFinite else { throw outOfRange(d, F.self) }
            return f
        case .int(let i):
            guard let f = F(exactly: i) else { throw outOfRange(i, F.self) }
            return f
        default:
            throw mismatch(value, F.self)
        }
    }

    func decodeTimestamp(_ value: Value) throws(EntityCodingError) -> Timestamp {
        guard case .date(let t) = value else { throw mismatch(value, Timestamp.self) }
        return t
    }

    /// Counted from `Date`'s reference date, as encoding counts, so that whole milliseconds come back exactly.
    func decodeDate(_ value: Value) throws(EntityCodingError) -> Date {
        guard case .date(let t) = value else { throw mismatch(value, Date.self) }
        let (sinceReference, overflow) = t.milliseconds.subtractingReportingOverflow(_referenceDateMilliseconds)
        if overflow { return Date(timeIntervalSince1970: Double(t.milliseconds) / 1000) }
        return Date(timeIntervalSinceReferenceDate: Double(sinceReference) / 1000)
    }

    /// Any other `Decodable`: dates and timestamps directly, else through the type's own conformance, which
    /// may use a single value container only. `null` goes through too, so that an `Optional` reads it as `nil`.
    func decode<T: Decodable>(any type: T.Type, _ value: Value) throws -> T {
        if T.self == Date.self, let date = try decodeDate(value) as? T { return date }
        if T.self == Timestamp.self, let timestamp = try decodeTimestamp(value) as? T { return timestamp }
        return try T(from: _ValueDecoder(coding: self, value: value))
    }
}

// MARK: - The top-level decoder

/// The object being decoded.
struct _DecodingObject {
    package let entity: EntityDescription
    package let id: ObjectID
    let values: ObjectValues

    /// The id as the `id` property's type: `T.ID`, or whatever type the type's own `init(from:)` asks for.
    func decodeID<T>(_ type: T.Type) throws(EntityCodingError) -> T {
        guard let idType = T.self as? any EntityID.Type, let id = idType.init(objectID: id) as? T else {
            throw .idMismatch(entity: entity.name, expected: entity.idType, found: "\(T.self)")
        }
        return id
    }

    func unsupported(_ attribute: String?, _ container: String) -> EntityCodingError {
        .unsupportedContainer(entity: entity.name, attribute: attribute, container: container)
    }
}

/// The decoder an entity type decodes itself from: one keyed container, whose keys are attribute names.
struct _ObjectDecoder: Decoder {
    package let object: _DecodingObject
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(_ObjectKeyedDecodingContainer<Key>(object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw object.unsupported(nil, "unkeyed")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw object.unsupported(nil, "single value")
    }
}

struct _ObjectKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    package let object: _DecodingObject
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(object.values.count + 1)
        if let id = Key(stringValue: "id") { keys.append(id) }
        for name in object.values.keys { if let key = Key(stringValue: name) { keys.append(key) } }
        return keys
    }

    package func contains(_ key: Key) -> Bool {
        key.stringValue == "id" || object.values[key.stringValue] != nil
    }

    /// A property that is not optional: the `id`, or an attribute that must be present.
    private func required<T>(_ key: Key, _ convert: (_AttributeCoding, Value) throws -> T) throws -> T {
        let name = key.stringValue
        if name == "id" { return try object.decodeID(T.self) }
        let coding = try _AttributeCoding(property: name, of: object.entity)
        guard let value = object.values[name] else {
            throw EntityCodingError.missingAttribute(entity: object.entity.name, attribute: name)
        }
        return try convert(coding, value)
    }

    /// An optional property: `nil` when its attribute is absent or `null`. Still an attribute of the entity,
    /// so that a misspelt optional property is an error rather than always `nil`.
    private func optional<T>(_ key: Key, _ convert: (_AttributeCoding, Value) throws -> T) throws -> T? {
        let name = key.stringValue
        if name == "id" { return try object.decodeID(T.self) }
        let coding = try _AttributeCoding(property: name, of: object.entity)
        guard let value = object.values[name], !value.isNull else { return nil }
        return try convert(coding, value)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let name = key.stringValue
        if name == "id" { return false }
        _ = try _AttributeCoding(property: name, of: object.entity)
        return object.values[name]?.isNull ?? true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try required(key) { try $0.decodeBool($1) }
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try required(key) { try $0.decodeString($1) }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try required(key) { try $0.decode(floating: Double.self, $1) }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try required(key) { try $0.decode(floating: Float.self, $1) }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try required(key) { try $0.decode(integer: Int.self, $1) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try required(key) { try $0.decode(integer: Int8.self, $1) }
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try required(key) { try $0.decode(integer: Int16.self, $1) }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try required(key) { try $0.decode(integer: Int32.self, $1) }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try required(key) { try $0.decode(integer: Int64.self, $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try required(key) { try $0.decode(integer: Int128.self, $1) }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try required(key) { try $0.decode(integer: UInt.self, $1) }
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try required(key) { try $0.decode(integer: UInt8.self, $1) }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try required(key) { try $0.decode(integer: UInt16.self, $1) }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try required(key) { try $0.decode(integer: UInt32.self, $1) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try required(key) { try $0.decode(integer: UInt64.self, $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try required(key) { try $0.decode(integer: UInt128.self, $1) }
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try required(key) { try $0.decode(any: T.self, $1) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try optional(key) { try $0.decodeBool($1) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try optional(key) { try $0.decodeString($1) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try optional(key) { try $0.decode(floating: Double.self, $1) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try optional(key) { try $0.decode(floating: Float.self, $1) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try optional(key) { try $0.decode(integer: Int.self, $1) }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try optional(key) { try $0.decode(integer: Int8.self, $1) }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try optional(key) { try $0.decode(integer: Int16.self, $1) }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try optional(key) { try $0.decode(integer: Int32.self, $1) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try optional(key) { try $0.decode(integer: Int64.self, $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
        try optional(key) { try $0.decode(integer: Int128.self, $1) }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try optional(key) { try $0.decode(integer: UInt.self, $1) }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try optional(key) { try $0.decode(integer: UInt8.self, $1) }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try optional(key) { try $0.decode(integer: UInt16.self, $1) }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try optional(key) { try $0.decode(integer: UInt32.self, $1) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try optional(key) { try $0.decode(integer: UInt64.self, $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
        try optional(key) { try $0.decode(integer: UInt128.self, $1) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(key) { try $0.decode(any: T.self, $1) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw object.unsupported(key.stringValue, "keyed")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw object.unsupported(key.stringValue, "unkeyed")
    }

    func superDecoder() throws -> any Decoder { throw object.unsupported(nil, "super") }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw object.unsupported(key.stringValue, "super") }
}

// MARK: - Single values

/// The decoder a property's value decodes itself from when it is not a primitive (an enum with a raw value,
/// a wrapper, an `Optional` decoded generically): a single value container only.
struct _ValueDecoder: Decoder, SingleValueDecodingContainer {
    let coding: _AttributeCoding
    package let value: Value

    var codingPath: [any CodingKey] { [_AttributeKey(stringValue: coding.attribute.name)] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw EntityCodingError.unsupportedContainer(entity: coding.entity, attribute: coding.attribute.name,
                                                     container: "keyed")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw EntityCodingError.unsupportedContainer(entity: coding.entity, attribute: coding.attribute.name,
                                                     container: "unkeyed")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try coding.decodeBool(value) }
    func decode(_ type: String.Type) throws -> String { try coding.decodeString(value) }
    func decode(_ type: Double.Type) throws -> Double { try coding.decode(floating: Double.self, value) }
    func decode(_ type: Float.Type) throws -> Float { try coding.decode(floating: Float.self, value) }
    func decode(_ type: Int.Type) throws -> Int { try coding.decode(integer: Int.self, value) }
    func decode(_ type: Int8.Type) throws -> Int8 { try coding.decode(integer: Int8.self, value) }
    func decode(_ type: Int16.Type) throws -> Int16 { try coding.decode(integer: Int16.self, value) }
    func decode(_ type: Int32.Type) throws -> Int32 { try coding.decode(integer: Int32.self, value) }
    func decode(_ type: Int64.Type) throws -> Int64 { try coding.decode(integer: Int64.self, value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try coding.decode(integer: Int128.self, value) }
    func decode(_ type: UInt.Type) throws -> UInt { try coding.decode(integer: UInt.self, value) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try coding.decode(integer: UInt8.self, value) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try coding.decode(integer: UInt16.self, value) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try coding.decode(integer: UInt32.self, value) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try coding.decode(integer: UInt64.self, value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try coding.decode(integer: UInt128.self, value) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try coding.decode(any: T.self, value) }
}
