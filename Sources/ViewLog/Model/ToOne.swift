/// A typed model's to-one relationship (DESIGN §10): the id of an object of `Target`, coded as that id, so that a
/// property `var department: ToOne<Department>?` maps to the relationship `department` of the schema (optional when
/// the property is). Follow it with `Context.object(_:)`; read the other side with
/// ``Context/inverse(_:of:as:)``.
///
/// ```swift
/// struct Department: EntityType { static let entityName = "Department"; var id: Int; var name: String }
/// struct Employee: EntityType {
///     static let entityName = "Employee"
///     var id: String
///     var name: String
///     var department: ToOne<Department>?
/// }
/// try context.insert(Employee(id: "e1", name: "Ann", department: ToOne(7)))
/// let sales = try context.object(ann.department!)          // Department?
/// let staff = try context.inverse("employees", of: sales!, as: Employee.self)
/// ```
public struct ToOne<Target: EntityType>: Codable, Hashable, Sendable {
    /// The id of the object it names.
    public var id: Target.ID

    /// A reference to the object of `Target` with `id`.
    public init(_ id: Target.ID) { self.id = id }

    /// A reference to `object`.
    public init(_ object: Target) { self.id = object.id }

    public init(from decoder: any Decoder) throws {
        id = try decoder.singleValueContainer().decode(Target.ID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }
}

extension Context {
    /// The object a to-one relationship names, in this context; `nil` when it does not exist.
    public func object<T: EntityType>(_ reference: ToOne<T>) throws -> T? {
        try object(T.self, id: reference.id)
    }

    /// The members of the to-many relationship `inverse` of `object` (the objects whose to-one relationship it
    /// inverts names `object`), in this context, in id order, as `Source` values.
    /// - Throws: ``StoreError/schema(_:)`` when `T`'s entity has no inverse of that name, or its source is not
    ///   `Source`'s entity.
    public func inverse<T: EntityType, Source: EntityType>(_ inverse: String, of object: T, as source: Source.Type) throws -> [Source] {
        guard let relation = try schema.inverse(named: inverse, of: T.entityName), relation.source == Source.entityName else {
            throw StoreError.schema(.invalid("entity '\(T.entityName)' has no inverse '\(inverse)' from '\(Source.entityName)'"))
        }
        let entity = try schema.entity(named: Source.entityName)
        let target = object.id.objectID
        return try objects(of: Source.entityName).filter { $0.values[relation.relationship].flatMap(ObjectID.init) == target }
            .map { try ObjectValuesDecoder().decode(Source.self, id: $0.id, values: $0.values, entity: entity) }
    }
}
