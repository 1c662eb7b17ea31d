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
