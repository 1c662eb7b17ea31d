@_spi(Engine) import ViewLogModel

/// Which objects of an entity a predicate matches, key paths, aggregates and quantifiers included: what a change by
/// predicate (DESIGN §14) asks of the state it is resolved against — the store's inside an append's write, a
/// context's when it stages one. Each caller gives the objects and the look-up of its own state; the rule of what
/// matches is here once.
package struct ObjectMatcher {
    /// The entity whose objects it tests.
    package let entity: String
    private let predicate: CompiledPredicate
    private let paths: [KeyPath]
    private let quantified: [QuantifiedPath]
    private let names: [String]
    private let tables: [InverseRelationship: AggregateTable]

    /// Checks `predicate` against `entity` of `schema`: it must parse into known attributes and key paths, use no
    /// variable, and not name `id` (a change by predicate names its objects by what they hold; by id is the ordinary
    /// form).
    /// - Throws: ``QueryError`` naming the entity, key or variable at fault.
    package init(entity: String, predicate: ViewPredicate, schema: Schema) throws(QueryError) {
        if predicate.expression.keys.contains("id") {
            throw QueryError(.unknownKey, "a change by predicate cannot name 'id' in its where (change one object by its id instead)",
                             entity: entity, key: "id")
        }
        let request = FetchRequest(entity: entity, predicate: predicate)
        let (viewEntity, paths, quantified) = try schema.viewEntity(of: request)
        self.entity = entity
        self.predicate = try predicate.compiled(for: viewEntity, variables: [:])
        self.paths = paths
        self.quantified = quantified
        names = paths.map(\.text) + quantified.map(\.text)
        tables = AggregateTable.tables(paths: paths, quantified: quantified)
    }

    /// Whether the predicate reads only the entity's own attributes (no key path): then ``matches(_:id:)-(FetchedValues,_)``
    /// decides from the values a fetch decodes, with ``attributesRead(of:)`` only.
    package var isFlat: Bool { names.isEmpty }

    /// The attributes of `entity` a flat predicate reads, in the entity's order: a scan that decodes only these decides
    /// the same (an attribute absent reads as `null`, and no other is looked at).
    package func attributesRead(of entity: EntityDescription) -> [Attribute] {
        let names = predicate.attributeNames
        return entity.attributes.filter { names.contains($0.name) }
    }

    /// Whether the object `id` whose decoded values are `values` matches a flat predicate (``isFlat``).
    package func matches(_ values: FetchedValues, id: ObjectID) -> Bool {
        precondition(isFlat, "a predicate over key paths needs the object's values and a look-up")
        return predicate.evaluate(values, id: id)
    }

    /// The entities whose objects the aggregates and quantifiers count: ``fill(_:)`` reads every object of each.
    package var memberEntities: Set<String> { Set(tables.keys.map(\.source)) }

    /// Counts the members of every inverse the predicate reads, from `objects` (every object of an entity of
    /// ``memberEntities`` in the state the matches are judged in). Call once before ``matches(_:id:lookup:)``.
    package func fill(_ objects: (String) throws -> [(id: ObjectID, values: ObjectValues)]) rethrows {
        try AggregateTable.fill(tables, objects)
    }

    /// Whether the object `id` whose values are `values` matches, its key paths followed through `lookup`.
    package func matches(_ values: ObjectValues, id: ObjectID, lookup: PathLookup) -> Bool {
        guard !names.isEmpty else { return predicate.evaluate(values, id: id) }
        var extended = values
        let computed = KeyPath.pathValues(paths: paths, quantified: quantified, of: values, id: id, entity: entity,
                                          lookup: lookup, aggregates: TableAggregates(tables: tables))
        for (name, value) in zip(names, computed) { extended[name] = value }
        return predicate.evaluate(extended, id: id)
    }
}
