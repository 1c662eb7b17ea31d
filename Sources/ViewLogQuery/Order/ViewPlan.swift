@_spi(Engine) import ViewLogModel
/// A fetch request checked against its entity, ready to build a view: the compiled predicate and the row order.
/// Made once per fetch, so that the controller, the fetch that feeds it (``attributesRead``) and a reload share one
/// compilation.
package struct ViewPlan {
    package let request: FetchRequest
    package let predicate: CompiledPredicate
    package let order: RowOrder

    /// - Throws: what the predicate's compilation reports (unknown attribute, type mismatch, missing variable),
    ///   then an unknown sort or section key or an entity other than the request's.
    package init(_ request: FetchRequest, for entity: EntityDescription) throws(QueryError) {
        self.request = request
        predicate = try request.predicate.compiled(for: entity, variables: request.variables)
        order = try RowOrder(request, entity)
    }

    /// The attributes of `entity` a view of this plan reads — the predicate's, the section key's and the sort
    /// keys' — in the entity's order: a fetch that decodes only these builds the same view, since an attribute
    /// absent from an object's values reads as `null` and no other is looked at.
    package func attributesRead(of entity: EntityDescription) -> [Attribute] {
        Self.attributesRead(predicate: predicate, order: order, of: entity)
    }

    /// ``attributesRead(of:)`` of a view that keeps its predicate and order but not its plan (a live controller).
    package static func attributesRead(predicate: CompiledPredicate, order: RowOrder, of entity: EntityDescription) -> [Attribute] {
        var names = predicate.attributeNames
        names.formUnion(order.keyPaths)
        return entity.attributes.filter { names.contains($0.name) }
    }
}
