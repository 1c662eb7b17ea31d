/// A typed model value that does not fit its entity, thrown by ``ObjectValuesEncoder`` and
/// ``ObjectValuesDecoder``. Every case names the entity and, where there is one, the attribute at fault.
public enum EntityCodingError: ViewLogError, Hashable {
    /// The Swift type's ``EntityType/entityName`` is not the name of the entity it was coded against.
    case entityMismatch(type: String, entityName: String, entity: String)
    /// The Swift id type (or the id given to decode) is not of the entity's id type. `found` names the
    /// Swift type or the stored id's type.
    case idMismatch(entity: String, expected: IDType, found: String)
    /// A property (coding key) that is not an attribute of the entity.
    case unknownProperty(entity: String, property: String)
    /// A property whose Swift type does not fit the attribute's type.
    case typeMismatch(entity: String, attribute: String, attributeType: AttributeType, swiftType: String)
    /// `nil` encoded for a required attribute, or `null` decoded into a property that is not optional.
    case nullValue(entity: String, attribute: String)
    /// Decoding a property that is not optional from values that do not have its attribute.
    case missingAttribute(entity: String, attribute: String)
    /// A number that the target cannot hold exactly: an integer out of the range of its Swift type, a
    /// fractional or non-finite floating-point value for an `int` attribute, a date outside the timestamp range.
    case valueOutOfRange(entity: String, attribute: String, value: String, swiftType: String)
    /// A keyed or unkeyed container where only a single value fits (an array, a dictionary or a nested struct
    /// as a property), or a top-level container other than a keyed one. `attribute` is `nil` at the top level.
    case unsupportedContainer(entity: String, attribute: String?, container: String)

    /// A one-line message naming the entity, the attribute or property, and what does not fit.
    public var description: String {
        switch self {
        case let .entityMismatch(t, n, e):
            return "type \(t) is of entity '\(n)', not of entity '\(e)'"
        case let .idMismatch(e, expected, found):
            return "entity '\(e)' has \(expected.rawValue) ids; got \(found)"
        case let .unknownProperty(e, p):
            return "property '\(p)' is not an attribute of entity '\(e)'"
        case let .typeMismatch(e, a, t, s):
            return "attribute '\(a)' of entity '\(e)' is of type \(t.rawValue); cannot code it as \(s)"
        case let .nullValue(e, a):
            return "attribute '\(a)' of entity '\(e)' cannot be null here (the attribute or its property is not optional)"
        case let .missingAttribute(e, a):
            return "attribute '\(a)' of entity '\(e)' is missing but its property is not optional"
        case let .valueOutOfRange(e, a, v, s):
            return "value \(v) of attribute '\(a)' of entity '\(e)' does not fit exactly in \(s)"
        case let .unsupportedContainer(e, a, c):
            if let a {
                return "attribute '\(a)' of entity '\(e)': a \(c) container is not an attribute value "
                    + "(arrays, dictionaries and nested types are not supported)"
            }
            return "entity '\(e)': a typed model codes as one keyed container, not a \(c) container"
        }
    }
}

extension EntityCodingError {
    /// What kind of error, as a stable code.
    public var code: ErrorCode {
        switch self {
        case .entityMismatch: return .entityMismatch
        case .idMismatch: return .idMismatch
        case .unknownProperty: return .unknownProperty
        case .typeMismatch: return .propertyTypeMismatch
        case .nullValue: return .nullValue
        case .missingAttribute: return .missingAttribute
        case .valueOutOfRange: return .valueOutOfRange
        case .unsupportedContainer: return .unsupportedContainer
        }
    }
}
