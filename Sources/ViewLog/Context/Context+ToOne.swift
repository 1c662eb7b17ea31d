@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// Following typed to-one relationships (``ToOne``) and reading their inverses in a context.
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
