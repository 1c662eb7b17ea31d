@_spi(Engine) import ViewLogModel
/// The schema of a store: its entities and named views. Loaded from a JSON schema file.
public struct Schema: Sendable, Hashable {
    /// Entities by name.
    public var entities: [String: EntityDescription]
    /// Named views by name.
    public var views: [String: ViewDefinition]
    /// How much of its log the store keeps (`nil`: all of it, unless `compact` is run).
    public var retention: Retention?

    /// Makes a schema. Call ``validate()`` before use.
    public init(entities: [String: EntityDescription], views: [String: ViewDefinition] = [:], retention: Retention? = nil) {
        self.entities = entities
        self.views = views
        self.retention = retention
    }

    /// The entity named `name`, or a ``SchemaError`` that names it.
    public func entity(named name: String) throws(SchemaError) -> EntityDescription {
        guard let e = entities[name] else { throw .unknownEntity(name) }
        return e
    }

    /// Entity names in code-point order (the order of listings and encodings).
    public var entityNames: [String] { entities.keys.sorted { Value.compareUTF8($0, $1) < 0 } }

    /// Checks what the type system cannot: names are well-formed and unique, defaults fit their attribute,
    /// views name known entities and attributes, and their predicates and sorts parse and type-check against
    /// their entity.
    public func validate() throws(SchemaError) {
        guard !entities.isEmpty else { throw .invalid("a schema needs at least one entity") }
        for name in entityNames {
            let entity = entities[name]!
            guard Schema.isIdentifier(name) else { throw .invalidName(entity: name, attribute: nil) }
            var seen = Set<String>()
            for attribute in entity.attributes {
                guard Schema.isIdentifier(attribute.name) else {
                    throw .invalidName(entity: name, attribute: attribute.name)
                }
                guard attribute.name != "id" else {
                    throw .invalid("entity '\(name)': 'id' is reserved for the object's id, not an attribute")
                }
                guard seen.insert(attribute.name).inserted else {
                    throw .duplicateAttribute(entity: name, attribute: attribute.name)
                }
                if let d = attribute.defaultValue, !attribute.accepts(d) {
                    throw .invalidDefault(entity: name, attribute: attribute.name, expected: attribute.type)
                }
                if let r = attribute.relationship { try validate(r, attribute, of: entity) }
            }
        }
        try validateInverses()
        for name in entityNames { try validateDerived(of: entities[name]!) }
        for viewName in views.keys.sorted() {
            let view = views[viewName]!
            guard let entity = entities[view.entity] else {
                throw .invalidView(view: viewName, reason: "unknown entity '\(view.entity)'")
            }
            if let key = view.sectionKey, key != "id", !key.contains("."), entity.attribute(named: key) == nil,
               entity.derived[key] == nil {
                throw .invalidView(view: viewName, reason: "unknown section attribute '\(key)' of \(entity.name)")
            }
            if let limit = view.limit, limit < 0 { throw .invalidView(view: viewName, reason: "negative limit") }
            if let offset = view.offset, offset < 0 { throw .invalidView(view: viewName, reason: "negative offset") }
            try validateQuery(of: view, named: viewName)  // where and sort: Query/Schema+Views.swift
        }
    }

    /// Checks the relationship `r` stored in `attribute` of `entity`: a known target whose id type is the attribute's
    /// type, no default, and a delete rule that fits (`nullify` only when optional or to-many; a to-many never
    /// optional).
    private func validate(_ r: Relationship, _ attribute: Attribute, of entity: EntityDescription) throws(SchemaError) {
        let what = "relationship '\(attribute.name)' of entity '\(entity.name)'"
        guard let target = entities[r.target] else { throw .invalid("\(what) names unknown entity '\(r.target)'") }
        guard attribute.type == (target.idType == .int ? .int : .string) else {
            throw .invalid("\(what) must have the type of \(r.target)'s ids (\(target.idType.rawValue))")
        }
        guard attribute.defaultValue == nil else { throw .invalid("\(what) cannot have a default") }
        if r.isToMany {
            guard !attribute.isOptional else {
                throw .invalid("\(what) is to-many: its value is a set, never null, so it cannot be 'optional'")
            }
        } else if r.deleteRule == .nullify && !attribute.isOptional {
            throw .invalid("\(what) is required: its onDelete cannot be \"nullify\" (use \"cascade\" or \"deny\", or make it optional)")
        }
        if let inverse = r.inverse {
            guard Schema.isIdentifier(inverse) else { throw .invalid("\(what): inverse '\(inverse)' is not an identifier") }
            guard inverse != "id", target.attribute(named: inverse) == nil, target.derived[inverse] == nil else {
                throw .invalid("\(what): inverse '\(inverse)' is already an attribute or relationship of \(r.target)")
            }
        }
    }

    /// Checks the derived attributes of `entity` (DESIGN §10): each an identifier that no attribute, relationship or
    /// inverse of the entity has, naming a to-one path or an aggregate that resolves from the entity as a view's would
    /// (not through another derived attribute: a path sees stored attributes only).
    private func validateDerived(of entity: EntityDescription) throws(SchemaError) {
        guard entity.attributes.count + entity.derived.count <= Limits.attributesMax else {
            throw .invalid("entity '\(entity.name)' has more than \(Limits.attributesMax) attributes, relationships and derived attributes")
        }
        for name in entity.derivedNames {
            let what = "derived attribute '\(name)' of entity '\(entity.name)'"
            guard Schema.isIdentifier(name) else { throw .invalidName(entity: entity.name, attribute: name) }
            guard name != "id" else { throw .invalid("\(what): 'id' is reserved for the object's id") }
            guard entity.attribute(named: name) == nil else {
                throw .duplicateAttribute(entity: entity.name, attribute: name)
            }
            guard inverse(named: name, of: entity.name) == nil else {
                throw .invalid("\(what): '\(name)' is already an inverse relationship of \(entity.name)")
            }
            do { _ = try KeyPath.walk(entity.derived[name]!, from: entity, in: self, allowsMembers: false) } catch {
                throw .invalid("\(what): \(error.description)")
            }
        }
    }

    /// No two relationships declare the same inverse of one entity.
    private func validateInverses() throws(SchemaError) {
        var seen: [String: String] = [:]  // "Target.inverse" -> "Source.relationship"
        for name in entityNames {
            for a in entities[name]!.attributes {
                guard let r = a.relationship, let inverse = r.inverse else { continue }
                let key = r.target + "." + inverse
                if let other = seen[key] {
                    throw .invalid("inverse '\(inverse)' of entity '\(r.target)' is declared twice: by \(other) and by \(name).\(a.name)")
                }
                seen[key] = name + "." + a.name
            }
        }
    }

    /// Letters, digits and `_`, not starting with a digit, at most 128 bytes.
    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, s.utf8.count <= Limits.nameBytesMax, !(48...57).contains(first) else {
            return false
        }
        return s.utf8.allSatisfy { c in
            (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c) || c == 95
        }
    }
}
