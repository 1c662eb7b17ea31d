@_spi(Engine) import ViewLogModel
extension FetchRequest {
    /// Checks the request against `schema`: the entity exists, the predicate type-checks with ``variables``
    /// (every `$variable` needs a value), and every sort key and the section key is `id` or an attribute of
    /// the entity. Errors name the entity, attribute or variable at fault.
    public func validate(against schema: Schema) throws(QueryError) {
        try validate(against: schema, requiresVariables: true)
    }

    /// `requiresVariables: false` accepts variables without a value (a named view, before it is queried).
    func validate(against schema: Schema, requiresVariables: Bool) throws(QueryError) {
        // A request with key paths is checked against its entity with one attribute more per path.
        let e = try schema.viewEntity(of: self, requiresVariables: requiresVariables).entity
        for key in includes where key != "id" && e.attribute(named: key) == nil {
            throw QueryError(.unknownKey, "unknown include key '\(key)' of entity '\(e.name)'", entity: e.name, key: key)
        }
        if requiresVariables {
            _ = try predicate.compiled(for: e, variables: variables)
        } else {
            try predicate.validate(for: e, variables: variables)
        }
        for descriptor in sortDescriptors where descriptor.key != "id" && e.attribute(named: descriptor.key) == nil {
            throw QueryError(.unknownKey, "unknown sort key '\(descriptor.key)' of entity '\(e.name)'", entity: e.name,
                             key: descriptor.key)
        }
        if let key = sectionKey, key != "id", e.attribute(named: key) == nil {
            throw QueryError(.unknownKey, "unknown section key '\(key)' of entity '\(e.name)'", entity: e.name, key: key)
        }
    }
}
