/// Values that do not fit their entity, naming the entity and the attribute at fault.
public enum ObjectValuesError: ViewLogError, Hashable {
    /// An attribute the entity does not have.
    case unknownAttribute(entity: String, attribute: String)
    /// A derived attribute given a value: it is computed from the key path it names, never given (DESIGN §10).
    case derivedAttribute(entity: String, attribute: String)
    /// A value of the wrong type, or `null` for a required attribute.
    case invalidValue(entity: String, ValueError)
    /// Required attributes without a default that an insert does not give, in attribute order.
    case missingRequired(entity: String, attributes: [String])
    /// A string value longer than `Limits/stringBytesMax`.
    case stringTooLong(entity: String, attribute: String, bytes: Int)
    /// An id of the wrong type, or a string id longer than `Limits/idBytesMax`.
    case invalidID(entity: String, id: ObjectID, reason: String)

    /// A one-line explanation naming the field, offset or attribute at fault.
    public var description: String {
        switch self {
        case let .unknownAttribute(e, a): return "unknown attribute '\(a)' of entity '\(e)'"
        case let .derivedAttribute(e, a): return Self.derivedMessage(entity: e, attribute: a)
        case let .invalidValue(e, v): return "\(e): \(v)"
        case let .missingRequired(e, attributes):
            let names = attributes.map { "'\($0)'" }.joined(separator: ", ")
            return "\(e): missing required \(attributes.count == 1 ? "attribute" : "attributes") \(names) (no default)"
        case let .stringTooLong(e, a, n):
            return "\(e): attribute '\(a)' is \(n) bytes long, more than \(Limits.stringBytesMax)"
        case let .invalidID(e, id, reason): return "\(e) \(id.json.text): \(reason)"
        }
    }
}

extension ObjectValuesError {
    /// What kind of error, as a stable code; an ``invalidValue(entity:_:)`` has its value error's code.
    public var code: ErrorCode {
        switch self {
        case .unknownAttribute: return .unknownAttribute
        case .derivedAttribute: return .derivedAttributeGiven
        case .invalidValue(_, let error): return error.code
        case .missingRequired: return .missingRequired
        case .stringTooLong: return .stringTooLong
        case .invalidID: return .invalidID
        }
    }
}

extension ObjectValuesError {
    /// The one text of a derived attribute given a value, for the library's and the input's errors alike.
    package static func derivedMessage(entity: String, attribute: String) -> String {
        "attribute '\(attribute)' of entity '\(entity)' is derived: it is computed, never given"
    }
}
