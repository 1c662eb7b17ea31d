@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
extension Context {
    /// Stages the insert of a typed object (see ``EntityType``).
    public func insert<T: EntityType>(_ object: T) throws {
        let entity = try schema.entity(named: T.entityName)
        let (id, values) = try ObjectValuesEncoder().encode(object, entity: entity)
        try insert(T.entityName, id: id, values: values)
    }

    /// Stages an update of the attributes whose values in `object` differ from the object as this context sees
    /// it — only those, so ``MergePolicy`` decisions see exactly what the code changed, and nothing is staged
    /// when nothing changed. An object the context does not have is staged as an update of every attribute
    /// (which fails as an update of a missing object).
    public func update<T: EntityType>(_ object: T) throws {
        let entity = try schema.entity(named: T.entityName)
        let (id, values) = try ObjectValuesEncoder().encode(object, entity: entity)
        guard let current = try self.object(ObjectKey(entity: T.entityName, id: id)) else {
            try update(T.entityName, id: id, values: values)
            return
        }
        let changed = values.filter { current[$0.key] != $0.value }
        if !changed.isEmpty { try update(T.entityName, id: id, values: changed) }
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
        try objects(T.self, ids: controller.fetchedObjects, of: controller)
    }

    /// The typed objects with `ids`, in that order, as this context sees them; each must exist.
    func objects<T: EntityType>(_ type: T.Type, ids: some Sequence<ObjectID>, of controller: ResultsController) throws -> [T] {
        precondition(controller.entity.name == T.entityName, "the controller shows \(controller.entity.name), not \(T.entityName)")
        let entity = try schema.entity(named: T.entityName)
        return try ids.map { id in
            guard let values = try object(ObjectKey(entity: T.entityName, id: id)) else {
                throw StoreError.objectNotFound(ObjectKey(entity: T.entityName, id: id), position: position)
            }
            return try ObjectValuesDecoder().decode(T.self, id: id, values: values, entity: entity)
        }
    }
}

extension ResultsController {
    /// The typed object of the row at `indexPath`, read in the controller's ``context``.
    /// - Precondition: the controller was made by a context and shows `T`'s entity; `indexPath` is in the view.
    public func object<T: EntityType>(at indexPath: IndexPath, as type: T.Type) throws -> T {
        try owningContext.objects(T.self, ids: [object(at: indexPath)], of: self)[0]
    }

    /// The typed objects of every row, in view order (``fetchedObjects`` as models).
    public func objects<T: EntityType>(as type: T.Type) throws -> [T] {
        try owningContext.objects(T.self, ids: fetchedObjects, of: self)
    }

    /// Every section with the typed objects of its rows, in view order: what a table's data source needs.
    public func sections<T: EntityType>(as type: T.Type) throws -> [(section: SectionInfo, objects: [T])] {
        let context = owningContext
        return try sections.enumerated().map { index, info in
            let ids = (0..<info.numberOfObjects).lazy.map { self.object(at: IndexPath(row: $0, section: index)) }
            return (info, try context.objects(T.self, ids: ids, of: self))
        }
    }

    private var owningContext: Context {
        guard let context else { preconditionFailure("typed access needs a controller made by a context") }
        return context
    }
}
