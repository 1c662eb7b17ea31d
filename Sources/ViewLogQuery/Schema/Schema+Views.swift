@_spi(Engine) import ViewLogModel
extension Schema {
    /// Parses and type-checks a named view's `where` and `sort` against its entity (called by ``validate()``).
    /// Variables of the predicate are checked when the view is queried with their values.
    func validateQuery(of view: ViewDefinition, named name: String) throws(SchemaError) {
        let predicate: ViewPredicate
        do { predicate = try view.predicate.map { (p) throws(QueryError) in try ViewPredicate(p) } ?? .all } catch {
            throw .invalidView(view: name, reason: "where: \(error)")
        }
        let sort: [ViewSortDescriptor]
        do { sort = try ViewSortDescriptor.parse(view.sort ?? "") } catch {
            throw .invalidView(view: name, reason: "sort: \(error)")
        }
        var request = FetchRequest(entity: view.entity, predicate: predicate, sortDescriptors: sort,
                                   sectionKey: view.sectionKey, limit: view.limit, offset: view.offset ?? 0)
        request.includes = FetchRequest.includes(view.include)
        do { try request.validate(against: self, requiresVariables: false) } catch {
            throw .invalidView(view: name, reason: error.description)
        }
    }
}
