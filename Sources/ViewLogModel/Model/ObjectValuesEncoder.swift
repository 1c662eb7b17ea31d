#if canImport(FoundationEssentials)
import FoundationEssentials  // Date: typed models may hold Foundation dates.
#else
import Foundation
#endif

/// Turns a value of an ``EntityType`` into the id and attribute values of an object of its entity, checking
/// each property against the entity's ``EntityDescription``.
///
/// The conversion is direct (the value's `Codable` conformance writes ``Value``s; no JSON in between). The
/// `id` property becomes the returned id; every other encoded property must be an attribute of the entity,
/// of a Swift type that fits the attribute's type (see ``EntityType``). `nil` becomes ``Value/null`` and
/// fits only optional attributes. Attributes the type does not encode are not in the result.
///
/// ```swift
/// let (id, values) = try ObjectValuesEncoder().encode(ann, entity: schema.entity(named: "Employee"))
/// ```
public struct ObjectValuesEncoder: Sendable {
    /// Makes an encoder. It has no state: one encoder may be used for any number of values.
    public init() {}

    /// Encodes `value` as an object of `entity`.
    ///
    /// - Returns: the object's id (from `value.id`) and the values of the attributes the type encodes.
    /// - Throws: ``EntityCodingError`` when `T.entityName` is not `entity.name`, the id is of the wrong type,
    ///   a property is not an attribute, does not fit its attribute's type or range, is `nil` for a required
    ///   attribute, or is an array, a dictionary or a nested type; any error the type's own `encode(to:)`
    ///   throws.
    public func encode<T: EntityType>(
        _ value: T,
        entity: EntityDescription
    ) throws -> (id: ObjectID, values: ObjectValues) {
        guard T.entityName == entity.name else {
            throw EntityCodingError.entityMismatch(type: "\(T.self)", entityName: T.entityName, entity: entity.name)
        }
        let id = value.id.objectID
        guard T.ID.idType == entity.idType, id.type == entity.idType else {
            throw EntityCodingError.idMismatch(entity: entity.name, expected: entity.idType, found: "\(T.ID.self)")
        }
        let state = _EncodingState(entity: entity)
        do {
            try value.encode(to: _ObjectEncoder(state: state))
        } catch {
            // A rejected container is recorded, not thrown (container methods cannot throw); it comes first.
            throw state.error ?? error
        }
        if let error = state.error { throw error }
        return (id, state.values)
    }
}

// MARK: - Conversions

/// One attribute being coded: the checks and conversions between Swift values and ``Value``s.
struct _AttributeCoding {
    package let entity: String
    let attribute: Attribute

    /// The attribute the property `name` codes to.
    init(property name: String, of entity: EntityDescription) throws(EntityCodingError) {
        guard let attribute = entity.attribute(named: name) else {
            throw .unknownProperty(entity: entity.name, property: name)
        }
        self.entity = entity.name
        self.attribute = attribute
    }

    func mismatch(_ swiftType: Any.Type) -> EntityCodingError {
        .typeMismatch(entity: entity, attribute: attribute.name, attributeType: attribute.type,
                      swiftType: "\(swiftType)")
    }

    func outOfRange(_ value: Any, _ swiftType: Any.Type) -> EntityCodingError {
        .valueOutOfRange(entity: entity, attribute: attribute.name, value: "\(value)", swiftType: "\(swiftType)")
    }

    func encodeNull() throws(EntityCodingError) -> Value {
        guard attribute.isOptional else { throw .nullValue(entity: entity, attribute: attribute.name) }
        return .null
    }

    package func encode(_ s: String) throws(EntityCodingError) -> Value {
        guard attribute.type == .string else { throw mismatch(String.self) }
        return .string(s)
    }

    package func encode(_ b: Bool) throws(EntityCodingError) -> Value {
        guard attribute.type == .bool else { throw mismatch(Bool.self) }
        return .bool(b)
    }

    /// Integers fit `int` attributes when they fit in 64 bits.
    package func encode<I: BinaryInteger>(integer i: I) throws(EntityCodingError) -> Value {
        guard attribute.type == .int else { throw mismatch(I.self) }
        guard let v = Int64(exactly: i) else { throw outOfRange(i, Int64.self) }
        return .int(v)
    }

    /// Floating-point values fit `double` attributes, and `int` attributes when integral (so that a
    /// `Double` property of an `int` attribute, which decoding allows, encodes back).
    package func encode<F: BinaryFloatingPoint>(floating f: F) throws(EntityCodingError) -> Value {
        switch attribute.type {
        case .double: return .double(Double(f))
        case .int:
            guard let v = Int64(exactly: f) else { throw outOfRange(f, Int64.self) }
            return .int(v)
        default: throw mismatch(F.self)
        }
    }

    package func encode(_ t: Timestamp) throws(EntityCodingError) -> Value {
        guard attribute.type == .date else { throw mismatch(Timestamp.self) }
        return .date(t)
    }

    /// A `Date` to the nearest millisecond. Counted from the reference date, which `Date` stores, so that
    /// a date made from whole milliseconds converts back to exactly them.
    package func encode(_ date: Date) throws(EntityCodingError) -> Value {
        guard attribute.type == .date else { throw mismatch(Date.self) }
        let sinceReference = (date.timeIntervalSinceReferenceDate * 1000).rounded()
        guard let ms = Int64(exactly: sinceReference) else { throw outOfRange(date, Timestamp.self) }
        let (total, overflow) = ms.addingReportingOverflow(_referenceDateMilliseconds)
        guard !overflow else { throw outOfRange(date, Timestamp.self) }
        return .date(Timestamp(milliseconds: total))
    }

    /// Any other `Encodable`: dates and timestamps directly, else through the type's own conformance,
    /// which may use a single value container only.
    package func encode<T: Encodable>(any value: T, state: _EncodingState) throws -> Value {
        if let date = value as? Date { return try encode(date) }
        if let timestamp = value as? Timestamp { return try encode(timestamp) }
        let encoder = _ValueEncoder(coding: self, state: state)
        try value.encode(to: encoder)
        if let error = state.error { throw error }
        guard let result = encoder.result else { throw mismatch(T.self) }
        return result
    }
}

/// Milliseconds from 1970-01-01 to `Date`'s reference date, 2001-01-01.
let _referenceDateMilliseconds: Int64 = 978_307_200_000

/// A coding key for attribute names (the coding path of single values).
struct _AttributeKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

// MARK: - Encoder state and the top-level encoder

/// What one `encode` call builds: the values, and the first container the value asked for and cannot have.
final class _EncodingState {
    package let entity: EntityDescription
    var values: ObjectValues
    var error: EntityCodingError?

    init(entity: EntityDescription) {
        self.entity = entity
        self.values = ObjectValues(minimumCapacity: entity.attributes.count)
    }

    func record(_ error: EntityCodingError) {
        if self.error == nil { self.error = error }
    }
}

/// The encoder an entity value encodes itself to: one keyed container, whose keys are attribute names.
struct _ObjectEncoder: Encoder {
    let state: _EncodingState
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(_ObjectKeyedEncodingContainer<Key>(state: state))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: nil, container: "unkeyed"))
        return _RejectedEncodingContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: nil, container: "single value"))
        return _RejectedEncodingContainer()
    }
}

struct _ObjectKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: _EncodingState
    var codingPath: [any CodingKey] { [] }

    /// Sets the attribute of `key`; the `id` key is skipped, as the id comes from ``EntityType/id``.
    private func put(_ key: Key, _ convert: (_AttributeCoding) throws -> Value) throws {
        let name = key.stringValue
        if name == "id" { return }
        let coding = try _AttributeCoding(property: name, of: state.entity)
        state.values[name] = try convert(coding)
    }

    private func put<T>(_ key: Key, _ value: T?, _ convert: (_AttributeCoding, T) throws -> Value) throws {
        try put(key) { coding in
            guard let value else { return try coding.encodeNull() }
            return try convert(coding, value)
        }
    }

    mutating func encodeNil(forKey key: Key) throws { try put(key) { try $0.encodeNull() } }
    package mutating func encode(_ value: Bool, forKey key: Key) throws { try put(key) { try $0.encode(value) } }
    package mutating func encode(_ value: String, forKey key: Key) throws { try put(key) { try $0.encode(value) } }
    package mutating func encode(_ value: Double, forKey key: Key) throws { try put(key) { try $0.encode(floating: value) } }
    package mutating func encode(_ value: Float, forKey key: Key) throws { try put(key) { try $0.encode(floating: value) } }
    package mutating func encode(_ value: Int, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int8, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int16, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int32, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int64, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: Int128, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: UInt128, forKey key: Key) throws { try put(key) { try $0.encode(integer: value) } }
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try put(key) { try $0.encode(any: value, state: state) }
    }

    // `nil` is `null`, not an absent key: an encoded object states every attribute its type has.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(key, value) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(key, value) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(floating: $1) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(floating: $1) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encodeIfPresent(_ value: Int128?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encodeIfPresent(_ value: UInt128?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(integer: $1) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try put(key, value) { try $0.encode(any: $1, state: state) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: key.stringValue, container: "keyed"))
        return KeyedEncodingContainer(_RejectedKeyedEncodingContainer<NestedKey>())
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: key.stringValue, container: "unkeyed"))
        return _RejectedEncodingContainer()
    }

    mutating func superEncoder() -> any Encoder {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: nil, container: "super"))
        return _RejectedEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        state.record(.unsupportedContainer(entity: state.entity.name, attribute: key.stringValue, container: "super"))
        return _RejectedEncoder()
    }
}

// MARK: - Single values

/// The encoder a property's value encodes itself to when it is not a primitive (an enum with a raw value,
/// a wrapper): a single value container only.
final class _ValueEncoder: Encoder {
    let coding: _AttributeCoding
    let state: _EncodingState
    var result: Value?

    init(coding: _AttributeCoding, state: _EncodingState) {
        self.coding = coding
        self.state = state
    }

    var codingPath: [any CodingKey] { [_AttributeKey(stringValue: coding.attribute.name)] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        state.record(.unsupportedContainer(entity: coding.entity, attribute: coding.attribute.name, container: "keyed"))
        return KeyedEncodingContainer(_RejectedKeyedEncodingContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        state.record(.unsupportedContainer(entity: coding.entity, attribute: coding.attribute.name, container: "unkeyed"))
        return _RejectedEncodingContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _ValueSingleValueEncodingContainer(encoder: self)
    }
}

struct _ValueSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: _ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ convert: (_AttributeCoding) throws -> Value) throws {
        encoder.result = try convert(encoder.coding)
    }

    mutating func encodeNil() throws { try set { try $0.encodeNull() } }
    package mutating func encode(_ value: Bool) throws { try set { try $0.encode(value) } }
    package mutating func encode(_ value: String) throws { try set { try $0.encode(value) } }
    package mutating func encode(_ value: Double) throws { try set { try $0.encode(floating: value) } }
    package mutating func encode(_ value: Float) throws { try set { try $0.encode(floating: value) } }
    package mutating func encode(_ value: Int) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int8) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int16) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int32) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: Int64) throws { try set { try $0.encode(integer: value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: Int128) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt8) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt16) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt32) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode(_ value: UInt64) throws { try set { try $0.encode(integer: value) } }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: UInt128) throws { try set { try $0.encode(integer: value) } }
    package mutating func encode<T: Encodable>(_ value: T) throws {
        let state = encoder.state
        try set { try $0.encode(any: value, state: state) }
    }
}

// MARK: - Rejected containers

// What a value gets when it asks for a container it cannot have: the error is already recorded in the
// state and thrown when the value's `encode(to:)` returns, so these only swallow what is written to them.

struct _RejectedEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(_RejectedKeyedEncodingContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { _RejectedEncodingContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { _RejectedEncodingContainer() }
}

struct _RejectedKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    package mutating func encode(_ value: Bool, forKey key: Key) throws {}
    package mutating func encode(_ value: String, forKey key: Key) throws {}
    package mutating func encode(_ value: Double, forKey key: Key) throws {}
    package mutating func encode(_ value: Float, forKey key: Key) throws {}
    package mutating func encode(_ value: Int, forKey key: Key) throws {}
    package mutating func encode(_ value: Int8, forKey key: Key) throws {}
    package mutating func encode(_ value: Int16, forKey key: Key) throws {}
    package mutating func encode(_ value: Int32, forKey key: Key) throws {}
    package mutating func encode(_ value: Int64, forKey key: Key) throws {}
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: Int128, forKey key: Key) throws {}
    package mutating func encode(_ value: UInt, forKey key: Key) throws {}
    package mutating func encode(_ value: UInt8, forKey key: Key) throws {}
    package mutating func encode(_ value: UInt16, forKey key: Key) throws {}
    package mutating func encode(_ value: UInt32, forKey key: Key) throws {}
    package mutating func encode(_ value: UInt64, forKey key: Key) throws {}
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: UInt128, forKey key: Key) throws {}
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(_RejectedKeyedEncodingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        _RejectedEncodingContainer()
    }
    mutating func superEncoder() -> any Encoder { _RejectedEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { _RejectedEncoder() }
}

/// Both an unkeyed and a single value container: their `encode` methods have the same signatures.
struct _RejectedEncodingContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    package var count: Int { 0 }
    mutating func encodeNil() throws {}
    package mutating func encode(_ value: Bool) throws {}
    package mutating func encode(_ value: String) throws {}
    package mutating func encode(_ value: Double) throws {}
    package mutating func encode(_ value: Float) throws {}
    package mutating func encode(_ value: Int) throws {}
    package mutating func encode(_ value: Int8) throws {}
    package mutating func encode(_ value: Int16) throws {}
    package mutating func encode(_ value: Int32) throws {}
    package mutating func encode(_ value: Int64) throws {}
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: Int128) throws {}
    package mutating func encode(_ value: UInt) throws {}
    package mutating func encode(_ value: UInt8) throws {}
    package mutating func encode(_ value: UInt16) throws {}
    package mutating func encode(_ value: UInt32) throws {}
    package mutating func encode(_ value: UInt64) throws {}
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    package mutating func encode(_ value: UInt128) throws {}
    package mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(_RejectedKeyedEncodingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { _RejectedEncodingContainer() }
    mutating func superEncoder() -> any Encoder { _RejectedEncoder() }
}
