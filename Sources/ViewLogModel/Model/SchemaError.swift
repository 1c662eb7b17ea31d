/// A schema file or a schema change that cannot be used, naming the entity, attribute or view at fault.
public enum SchemaError: ViewLogError, Hashable {
    /// The file is not valid JSON or not of the schema's shape.
    case malformed(String)
    /// A rule of the schema format was broken.
    case invalid(String)
    /// An entity that the schema does not have.
    case unknownEntity(String)
    /// An attribute that the entity does not have.
    case unknownAttribute(entity: String, attribute: String)
    /// An attribute type that is not one of `string int double bool date`.
    case unknownType(entity: String, attribute: String, type: String)
    /// A name that is not an identifier.
    case invalidName(entity: String, attribute: String?)
    /// Two attributes with one name.
    case duplicateAttribute(entity: String, attribute: String)
    /// A default value that does not fit its attribute.
    case invalidDefault(entity: String, attribute: String, expected: AttributeType)
    /// A named view that cannot be made.
    case invalidView(view: String, reason: String)
    /// A schema update that is not additive.
    case breakingChange(String)
    /// Step `step` (1-based; 0 for the file as a whole) of a migration cannot be read or applied to the schema.
    case invalidMigration(step: Int, reason: String)
    /// A migration that would break a view, a relationship or integrity, or a value that does not convert.
    case migrationRefused(String)

    public var description: String {
        switch self {
        case .malformed(let m): return "malformed schema: \(m)"
        case .invalid(let m): return "invalid schema: \(m)"
        case .unknownEntity(let e): return "unknown entity '\(e)'"
        case let .unknownAttribute(e, a): return "unknown attribute '\(a)' of entity '\(e)'"
        case let .unknownType(e, a, t):
            return "attribute '\(a)' of entity '\(e)' has unknown type '\(t)' (expected string, int, double, bool or date)"
        case let .invalidName(e, a):
            if let a { return "attribute name '\(a)' of entity '\(e)' is not an identifier" }
            return "entity name '\(e)' is not an identifier"
        case let .duplicateAttribute(e, a): return "entity '\(e)' has attribute '\(a)' twice"
        case let .invalidDefault(e, a, t): return "default of attribute '\(a)' of entity '\(e)' is not a \(t.rawValue)"
        case let .invalidView(v, r): return "view '\(v)': \(r)"
        case .breakingChange(let m): return "breaking schema change: \(m)"
        case let .invalidMigration(step, r): return step == 0 ? "invalid migration: \(r)" : "invalid migration, step \(step): \(r)"
        case .migrationRefused(let m): return "migration refused: \(m)"
        }
    }
}

extension SchemaError {
    /// What kind of error, as a stable code.
    public var code: ErrorCode {
        switch self {
        case .malformed: return .schemaMalformed
        case .invalid: return .schemaInvalid
        case .unknownEntity: return .unknownEntity
        case .unknownAttribute: return .unknownAttribute
        case .unknownType: return .unknownType
        case .invalidName: return .invalidName
        case .duplicateAttribute: return .duplicateAttribute
        case .invalidDefault: return .invalidDefault
        case .invalidView: return .invalidView
        case .breakingChange: return .breakingChange
        case .invalidMigration: return .invalidMigration
        case .migrationRefused: return .migrationRefused
        }
    }
}
