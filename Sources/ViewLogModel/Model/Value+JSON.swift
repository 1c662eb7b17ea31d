extension Value {
    /// The JSON form of the value: dates as ISO-8601 UTC strings with milliseconds.
    @_spi(Engine) public var json: JSONValue {
        switch self {
        case .null: return .null
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .date(let t): return .string(t.iso8601)
        case .set(let ids): return .array(ids.map(\.json))
        }
    }
}

extension ObjectID {
    /// The JSON form: a string or an integer, as the schema types it.
    @_spi(Engine) public var json: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        }
    }

    /// Reads an id of type `type` from JSON; a string id must be a string, an int id an integer.
    /// - Returns: `nil` when the JSON value is not of the id's type.
    @_spi(Engine) public init?(json: JSONValue, type: IDType) {
        switch (type, json) {
        case (.string, .string(let s)): self = .string(s)
        case (.int, .int(let i)): self = .int(i)
        default: return nil
        }
    }

    /// Reads an id of type `type` from command-line text (`e1`, `42`).
    public init?(text: String, type: IDType) {
        switch type {
        case .string: self = .string(text)
        case .int:
            guard let i = Int64(text) else { return nil }
            self = .int(i)
        }
    }
}

/// Why a value does not fit its attribute.
public enum ValueError: ViewLogError, Hashable {
    /// The value is not of the attribute's type.
    case typeMismatch(attribute: String, expected: AttributeType, got: String)
    /// The value of a relationship is not an id of its target entity (whose ids are `expected`).
    case relationshipTypeMismatch(relationship: String, target: String, expected: AttributeType, got: String)
    /// `null` for a required attribute.
    case nullForRequired(attribute: String)
    /// A date that is not ISO-8601.
    case malformedDate(attribute: String, text: String)
    /// A set given for a to-many relationship names a member twice.
    case duplicateMember(relationship: String, id: String)

    public var description: String {
        switch self {
        case let .typeMismatch(a, t, g): return "attribute '\(a)' is \(t.rawValue), got \(g)"
        case let .relationshipTypeMismatch(r, target, t, g):
            return "relationship '\(r)' takes an id of \(target) (\(t == .int ? "an integer" : "a string")), got \(g)"
        case .nullForRequired(let a): return "attribute '\(a)' is required and cannot be null"
        case let .malformedDate(a, t): return "attribute '\(a)': '\(t)' \(Timestamp.problem(iso8601: t))"
        case let .duplicateMember(r, id): return "relationship '\(r)' is given \(id) twice (a set holds each member once)"
        }
    }

    /// What kind of error, as a stable code.
    public var code: ErrorCode {
        switch self {
        case .typeMismatch: return .typeMismatch
        case .relationshipTypeMismatch: return .relationshipTypeMismatch
        case .nullForRequired: return .nullForRequired
        case .malformedDate: return .malformedDate
        case .duplicateMember: return .duplicateMember
        }
    }
}

extension Attribute {
    /// Reads a value of this attribute from JSON, by its type: an int takes only integers (`1.5` is an
    /// error), a double takes any number, a date an ISO-8601 string, `null` only when optional.
    @_spi(Engine) public func value(fromJSON json: JSONValue) throws(ValueError) -> Value {
        if isToMany { return try set(fromJSON: json) }
        switch (type, json) {
        case (_, .null):
            guard isOptional else { throw .nullForRequired(attribute: name) }
            return .null
        case (.string, .string(let s)): return .string(s)
        case (.int, .int(let i)): return .int(i)
        case (.double, .int(let i)): return .double(Double(i))
        case (.double, .double(let d)): return .double(d)
        case (.bool, .bool(let b)): return .bool(b)
        case (.date, .string(let s)):
            guard let t = Timestamp(iso8601: s) else { throw .malformedDate(attribute: name, text: s) }
            return .date(t)
        default:
            var got = json.typeName
            if case .double(let d) = json { got = "\(d.shortestText) (not an integer)" }
            throw typeMismatch(got: got)
        }
    }

    /// A to-many's set from a JSON array of its target's ids: every member an id of the target's type (the
    /// attribute's), none twice.
    private func set(fromJSON json: JSONValue) throws(ValueError) -> Value {
        guard case .array(let elements) = json else {
            throw typeMismatch(got: json == .null ? "null, not a set of ids (the relationship is to-many)"
                               : "\(json.typeName), not an array of ids (the relationship is to-many)")
        }
        var ids: [ObjectID] = []
        ids.reserveCapacity(elements.count)
        for e in elements {
            guard let id = ObjectID(json: e, type: type == .int ? .int : .string) else {
                throw typeMismatch(got: "\(e.typeName) among its members")
            }
            ids.append(id)
        }
        guard let set = Value.set(members: ids) else {
            let sorted = ids.sorted()
            let repeated = sorted.indices.dropFirst().first { sorted[$0 - 1] == sorted[$0] }.map { sorted[$0] }!
            throw .duplicateMember(relationship: name, id: repeated.json.text)
        }
        return set
    }

    /// The error for a value of another type than this attribute's (`got` describes it): a relationship's names its
    /// target's ids.
    package func typeMismatch(got: String) -> ValueError {
        guard let relationship else { return .typeMismatch(attribute: name, expected: type, got: got) }
        return .relationshipTypeMismatch(relationship: name, target: relationship.target, expected: type, got: got)
    }

    /// Reads a value of this attribute from command-line text (`KEY=VALUE`), by its type.
    /// Strings are taken as they are; use `KEY:=JSON` for `null` or exact JSON.
    public func value(fromText text: String) throws(ValueError) -> Value {
        guard !isToMany else { throw typeMismatch(got: "'\(text)', not a set of ids (give a JSON array: \(name):=[…])") }
        switch type {
        case .string: return .string(text)
        case .int:
            guard let i = Int64(text) else { throw typeMismatch(got: "'\(text)'") }
            return .int(i)
        case .double:
            guard let d = Double(text), d.isFinite else {
                throw typeMismatch(got: "'\(text)'")
            }
            return .double(d)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw typeMismatch(got: "'\(text)'")
            }
        case .date:
            guard let t = Timestamp(iso8601: text) else { throw .malformedDate(attribute: name, text: text) }
            return .date(t)
        }
    }
}

extension EntityDescription {
    /// The JSON object of `values`, keys in attribute order. Keys that are not attributes of this entity
    /// (values of an attribute added by a later schema, seen at an older position) are left out.
    @_spi(Engine) public func json(_ values: ObjectValues) -> JSONValue {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(values.count)
        for a in attributes { if let v = values[a.name] { members.append((a.name, v.json)) } }
        return .object(members)
    }
}
