extension Context {
    /// Stages the insert of a typed object (see ``EntityType``).
    public func insert<T: EntityType>(_ object: T) throws {
        let entity = try schema.entity(named: T.entityName)
        let (id, values) = try ObjectValuesEncoder().encode(object, entity: entity)
        try insert(T.entityName, id: id, values: values)
    }

    /// Stages setting every attribute of a typed object to its values.
    public func update<T: EntityType>(_ object: T) throws {
        let entity = try schema.entity(named: T.entityName)
        let (id, values) = try ObjectValuesEncoder().encode(object, entity: entity)
        try update(T.entityName, id: id, values: values)
    }

    /// Stages the delete of the typed object with `id`.
    public func delete<T: EntityType>(_ type: T.Type, id: T.ID) throws {
        try delete(T.entityName, id: id.objectID)
    }

    /// The typed object with `id` in this context, or `nil`.
    public func object<T: EntityType>(_ type: T.Type, id: T.ID) throws -> T? {
        let entity = try schema.entity(named: T.entityName)
        guard let values = try object(ObjectKey(entity: T.entityName, id: id.objectID)) else { return nil }
        return try ObjectValuesDecoder().decode(T.self, id: id.objectID, values: values, entity: entity)
    }

    /// The typed objects of a controller's rows, in view order (reads them in this context).
    public func objects<T: EntityType>(_ type: T.Type, of controller: ResultsController) throws -> [T] {
        let entity = try schema.entity(named: T.entityName)
        precondition(controller.entity.name == T.entityName, "the controller shows \(controller.entity.name), not \(T.entityName)")
        return try controller.fetchedObjects.map { id in
            guard let values = try object(ObjectKey(entity: T.entityName, id: id)) else {
                throw StoreError.objectNotFound(ObjectKey(entity: T.entityName, id: id), position: position)
            }
            return try ObjectValuesDecoder().decode(T.self, id: id, values: values, entity: entity)
        }
    }
}
