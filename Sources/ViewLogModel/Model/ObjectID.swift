/// The identity of an object within its entity. Ids keep their schema type: a string id is never given as
/// a number, nor an int id as a string. String ids are equal (and hash) by code point: `"\u{e9}"` and `"e\u{301}"`
/// are two objects.
public enum ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    case string(String)
    case int(Int64)

    /// The schema type of this id.
    public var type: IDType {
        switch self {
        case .string: return .string
        case .int: return .int
        }
    }

    /// Code-point equality (not canonical equivalence).
    @inlinable
    public static func == (a: ObjectID, b: ObjectID) -> Bool {
        switch (a, b) {
        case let (.int(x), .int(y)): return x == y
        case let (.string(x), .string(y)): return Value.sameScalars(x, y)
        default: return false
        }
    }

    /// Hashes string ids by their UTF-8 bytes, consistently with ``==(_:_:)``.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .int(let i): hasher.combine(0 as UInt8); hasher.combine(i)
        case .string(let s): hasher.combine(1 as UInt8); Value.hashScalars(s, into: &hasher)
        }
    }

    /// Ascending id order, the tie-breaker of every view: integers numerically, strings by code point.
    @inlinable
    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        switch (a, b) {
        case let (.int(x), .int(y)): return x < y
        case let (.string(x), .string(y)): return Value.compareUTF8(x, y) < 0
        case (.int, .string): return true
        case (.string, .int): return false
        }
    }

    /// The id as a ``Value`` (for predicates and sorts on `id`).
    public var value: Value {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        }
    }

    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        }
    }
}

/// Identifies one object in the store: its entity and its id.
public struct ObjectKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The entity's name.
    public var entity: String
    /// The object's id within the entity.
    public var id: ObjectID

    /// Makes a key.
    public init(entity: String, id: ObjectID) {
        self.entity = entity
        self.id = id
    }

    /// Code-point equality of entity names and ids.
    public static func == (a: ObjectKey, b: ObjectKey) -> Bool {
        Value.sameScalars(a.entity, b.entity) && a.id == b.id
    }

    /// Hashes by code points, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        Value.hashScalars(entity, into: &hasher)
        hasher.combine(id)
    }

    public static func < (a: ObjectKey, b: ObjectKey) -> Bool {
        !Value.sameScalars(a.entity, b.entity) ? Value.compareUTF8(a.entity, b.entity) < 0 : a.id < b.id
    }

    public var description: String { "\(entity)/\(id)" }
}

extension ObjectID {
    /// The id a relationship's value names; `nil` for `null` (or a value no id has).
    package init?(_ value: Value) {
        switch value {
        case .int(let i): self = .int(i)
        case .string(let s): self = .string(s)
        default: return nil
        }
    }
}
