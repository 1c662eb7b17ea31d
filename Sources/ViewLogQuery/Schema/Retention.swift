@_spi(Engine) import ViewLogModel
/// How much of its log a store keeps, when its schema asks (`"retention"`, DESIGN §13): appends then move the
/// horizon up by themselves, with bounded work per write.
public enum Retention: Sendable, Hashable {
    /// At least the last N transactions (`{"keepLast": N}`).
    case keepLast(UInt64)
    /// At least the transactions of the last period (`{"keepFor": "30d"}`).
    case keepFor(RetentionPeriod)

    /// The schema file's form: `{"keepLast": N}` or `{"keepFor": "30d"}`.
    @_spi(Engine) public var json: JSONValue {
        switch self {
        case .keepLast(let n): .object([("keepLast", .int(Int64(clamping: n)))])
        case .keepFor(let period): .object([("keepFor", .string(period.description))])
        }
    }

    /// Reads the schema file's form.
    @_spi(Engine) public init(json: JSONValue) throws(SchemaError) {
        guard case .object(let members) = json, members.count == 1 else {
            throw .malformed("'retention' must be {\"keepLast\": N} or {\"keepFor\": \"30d\"}")
        }
        switch members[0] {
        case ("keepLast", .int(let n)) where n >= 0: self = .keepLast(UInt64(n))
        case ("keepLast", _): throw .invalid("'retention': keepLast must be a whole number of transactions, at least 0")
        case ("keepFor", .string(let text)):
            guard let period = RetentionPeriod(text) else { throw .invalid("'retention': keepFor '\(text)' is not \(RetentionPeriod.syntax)") }
            self = .keepFor(period)
        case ("keepFor", _): throw .invalid("'retention': keepFor must be a string such as \"30d\"")
        case (let key, _): throw .malformed("'retention': unknown key '\(key)' (expected 'keepLast' or 'keepFor')")
        }
    }
}
