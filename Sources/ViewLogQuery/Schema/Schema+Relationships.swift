@_spi(Engine) import ViewLogModel

extension Schema {
    /// The relationships that name objects of `entity`, as (source entity, relationship attribute), sources in
    /// code-point order of their names and then their relationships in code-point order: the order delete rules
    /// run in (DESIGN §10).
    public func relationships(targeting entity: String) -> [(source: String, relationship: Attribute)] {
        var out: [(String, Attribute)] = []
        for name in entityNames {
            for a in entities[name]!.attributes where a.relationship?.target == entity { out.append((name, a)) }
        }
        return out
    }

    /// The inverse relationship `name` of `entity`, if the schema derives one.
    public func inverse(named name: String, of entity: String) -> InverseRelationship? {
        for source in entityNames {
            for a in entities[source]!.attributes where a.relationship?.target == entity && a.relationship?.inverse == name {
                return InverseRelationship(name: name, source: source, relationship: a.name, target: entity,
                                           invertsToMany: a.isToMany)
            }
        }
        return nil
    }

    /// Whether any entity has a relationship.
    public var hasRelationships: Bool { entities.values.contains { e in e.attributes.contains { $0.relationship != nil } } }
}
