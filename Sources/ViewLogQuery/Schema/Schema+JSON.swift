@_spi(Engine) import ViewLogModel
extension Schema {
    /// Reads and validates a schema file's text.
    public init(jsonText: String) throws(SchemaError) {
        let json: JSONValue
        do { json = try JSONValue.parse(jsonText) } catch { throw .malformed(error.description) }
        try self.init(json: json)
    }

    /// Reads and validates a schema from its JSON document.
    @_spi(Engine) public init(json: JSONValue) throws(SchemaError) {
        guard case .object(let top) = json else { throw .malformed("the schema must be a JSON object") }
        for (k, _) in top where k != "entities" && k != "views" && k != "retention" && k != "$schema" {
            throw .malformed("unknown top-level key '\(k)' (expected 'entities', 'views' and 'retention')")
        }
        guard case .object(let entityMembers)? = json["entities"] else {
            throw .malformed("'entities' must be an object of entity definitions")
        }
        var entities: [String: EntityDescription] = [:]
        for (name, body) in entityMembers {
            entities[name] = try Schema.entity(named: name, from: body)
        }
        // Relationships need their target's id type: read once every entity is.
        for (name, body) in entityMembers {
            guard let r = body["relationships"] else { continue }
            let entity = entities[name]!
            let relationships = try Schema.relationships(of: entity, from: r, entities: entities)
            entities[name] = EntityDescription(name: name, idType: entity.idType, attributes: entity.attributes + relationships,
                                               derived: entity.derived)
        }
        var views: [String: ViewDefinition] = [:]
        if let v = json["views"] {
            guard case .object(let viewMembers) = v else { throw .malformed("'views' must be an object") }
            for (name, body) in viewMembers {
                views[name] = try Schema.view(named: name, from: body)
            }
        }
        self.init(entities: entities, views: views, retention: try json["retention"].map { j throws(SchemaError) in try Retention(json: j) })
        try validate()
    }

    package static func entity(named name: String, from body: JSONValue) throws(SchemaError) -> EntityDescription {
        guard case .object(let members) = body else { throw .malformed("entity '\(name)' must be an object") }
        for (k, _) in members where k != "id" && k != "attributes" && k != "relationships" {
            throw .malformed("entity '\(name)': unknown key '\(k)' (expected 'id', 'attributes' and 'relationships')")
        }
        var idType = IDType.string
        if let id = body["id"] {
            guard case .string(let t) = id, let parsed = IDType(rawValue: t) else {
                throw .invalid("entity '\(name)': 'id' must be \"string\" or \"int\"")
            }
            idType = parsed
        }
        var attributes: [Attribute] = []
        var derived: [String: String] = [:]
        if let a = body["attributes"] {
            guard case .object(let attributeMembers) = a else {
                throw .malformed("entity '\(name)': 'attributes' must be an object")
            }
            guard attributeMembers.count <= Limits.attributesMax else {
                throw .invalid("entity '\(name)' has more than \(Limits.attributesMax) attributes")
            }
            for (attributeName, spec) in attributeMembers {
                if let path = try derivedPath(of: attributeName, of: name, from: spec) {
                    guard derived.updateValue(path, forKey: attributeName) == nil else {
                        throw .duplicateAttribute(entity: name, attribute: attributeName)
                    }
                } else {
                    attributes.append(try attribute(named: attributeName, of: name, from: spec))
                }
            }
        }
        return EntityDescription(name: name, idType: idType, attributes: attributes, derived: derived)
    }

    /// The key path of a derived attribute's spec (`{"derived": "employees.@count"}`), `nil` for any other spec.
    static func derivedPath(of attribute: String, of entity: String, from spec: JSONValue) throws(SchemaError) -> String? {
        guard case .object(let members) = spec, let path = spec["derived"] else { return nil }
        let what = "derived attribute '\(attribute)' of entity '\(entity)'"
        for (k, _) in members where k != "derived" {
            throw .malformed("\(what): unknown key '\(k)' (a derived attribute has only 'derived': its type is its path's)")
        }
        guard case .string(let text) = path else { throw .malformed("\(what): 'derived' must be a key path") }
        return text
    }

    /// The relationships of `entity` in a schema file's `relationships` object, as the attributes that store them.
    static func relationships(of entity: EntityDescription, from body: JSONValue,
                              entities: [String: EntityDescription]) throws(SchemaError) -> [Attribute] {
        guard case .object(let members) = body else {
            throw .malformed("entity '\(entity.name)': 'relationships' must be an object")
        }
        guard members.count + entity.attributes.count <= Limits.attributesMax else {
            throw .invalid("entity '\(entity.name)' has more than \(Limits.attributesMax) attributes and relationships")
        }
        var out: [Attribute] = []
        for (name, spec) in members {
            let what = "relationship '\(name)' of entity '\(entity.name)'"
            guard case .object(let keys) = spec else { throw .malformed("\(what) must be an object with a \"to\"") }
            for (k, _) in keys where !["to", "toMany", "optional", "inverse", "onDelete"].contains(k) {
                throw .malformed("\(what): unknown key '\(k)' (expected 'to', 'toMany', 'optional', 'inverse' and 'onDelete')")
            }
            guard case .string(let target)? = spec["to"] else { throw .malformed("\(what) needs a \"to\" naming an entity") }
            guard let targetEntity = entities[target] else { throw .invalid("\(what) names unknown entity '\(target)'") }
            var optional = false
            if let o = spec["optional"] {
                guard case .bool(let b) = o else { throw .malformed("\(what): 'optional' must be true or false") }
                optional = b
            }
            var toMany = false
            if let m = spec["toMany"] {
                guard case .bool(let b) = m else { throw .malformed("\(what): 'toMany' must be true or false") }
                toMany = b
            }
            var inverse: String?
            if let i = spec["inverse"] {
                guard case .string(let text) = i else { throw .malformed("\(what): 'inverse' must be a string") }
                inverse = text
            }
            var rule: Relationship.DeleteRule?
            if let d = spec["onDelete"] {
                guard case .string(let text) = d, let parsed = Relationship.DeleteRule(rawValue: text) else {
                    throw .invalid("\(what): 'onDelete' must be \"nullify\", \"cascade\" or \"deny\"")
                }
                rule = parsed
            }
            out.append(Attribute(relationship: name, to: target, targetIDType: targetEntity.idType, isOptional: optional,
                                 isToMany: toMany, inverse: inverse, deleteRule: rule))
        }
        return out
    }

    static func attribute(named name: String, of entity: String, from spec: JSONValue) throws(SchemaError) -> Attribute {
        let typeText: String
        var optional = false
        var defaultJSON: JSONValue?
        switch spec {
        case .string(let t):
            typeText = t  // shorthand: "name": "string"
        case .object(let members):
            for (k, _) in members where k != "type" && k != "optional" && k != "default" {
                throw .malformed("attribute '\(name)' of entity '\(entity)': unknown key '\(k)'")
            }
            guard case .string(let t)? = spec["type"] else {
                throw .malformed("attribute '\(name)' of entity '\(entity)' needs a \"type\"")
            }
            typeText = t
            if let o = spec["optional"] {
                guard case .bool(let b) = o else {
                    throw .malformed("attribute '\(name)' of entity '\(entity)': 'optional' must be true or false")
                }
                optional = b
            }
            defaultJSON = spec["default"]
        default:
            throw .malformed("attribute '\(name)' of entity '\(entity)' must be an object with a \"type\"")
        }
        guard let type = AttributeType(rawValue: typeText) else {
            throw .unknownType(entity: entity, attribute: name, type: typeText)
        }
        var attribute = Attribute(name: name, type: type, isOptional: optional)
        if let d = defaultJSON {
            do { attribute.defaultValue = try attribute.value(fromJSON: d) } catch {
                throw .invalidDefault(entity: entity, attribute: name, expected: type)
            }
        }
        return attribute
    }

    static func view(named name: String, from body: JSONValue) throws(SchemaError) -> ViewDefinition {
        guard case .object(let members) = body else { throw .malformed("view '\(name)' must be an object") }
        func text(_ key: String) throws(SchemaError) -> String? {
            guard let v = body[key] else { return nil }
            guard case .string(let s) = v else { throw .invalidView(view: name, reason: "'\(key)' must be a string") }
            return s
        }
        func count(_ key: String) throws(SchemaError) -> Int? {
            guard let v = body[key] else { return nil }
            guard case .int(let i) = v, i >= 0, i <= Int64(Int32.max) else {
                throw .invalidView(view: name, reason: "'\(key)' must be a non-negative integer")
            }
            return Int(i)
        }
        for (k, _) in members where !["entity", "where", "sort", "section", "limit", "offset", "include"].contains(k) {
            throw .invalidView(view: name, reason: "unknown key '\(k)'")
        }
        guard let entity = try text("entity") else { throw .invalidView(view: name, reason: "needs an 'entity'") }
        return ViewDefinition(entity: entity, predicate: try text("where"), sort: try text("sort"),
                              sectionKey: try text("section"), limit: try count("limit"), offset: try count("offset"),
                              include: try text("include"))
    }

    /// A view definition as the schema file writes it.
    package static func viewJSON(_ v: ViewDefinition) -> JSONValue {
        var spec: [(String, JSONValue)] = [("entity", .string(v.entity))]
        if let w = v.predicate { spec.append(("where", .string(w))) }
        if let s = v.sort { spec.append(("sort", .string(s))) }
        if let s = v.sectionKey { spec.append(("section", .string(s))) }
        if let l = v.limit { spec.append(("limit", .int(Int64(l)))) }
        if let o = v.offset { spec.append(("offset", .int(Int64(o)))) }
        if let i = v.include { spec.append(("include", .string(i))) }
        return .object(spec)
    }

    /// The schema as a JSON document, in the schema file format; entities, attributes and views sorted by name.
    @_spi(Engine) public var json: JSONValue {
        var entityMembers: [(String, JSONValue)] = []
        for name in entityNames {
            let e = entities[name]!
            var attributeMembers: [(String, JSONValue)] = []
            var relationshipMembers: [(String, JSONValue)] = []
            // Derived attributes among the stored ones, all in code-point order.
            var derived = e.derivedNames[...]
            func derivedUpTo(_ name: String?) {
                while let d = derived.first, name.map({ Value.compareUTF8(d, $0) < 0 }) ?? true {
                    attributeMembers.append((d, .object([("derived", .string(e.derived[d]!))])))
                    derived.removeFirst()
                }
            }
            for a in e.attributes {
                if let r = a.relationship {
                    var spec: [(String, JSONValue)] = [("to", .string(r.target))]
                    if r.isToMany { spec.append(("toMany", .bool(true))) }
                    if a.isOptional { spec.append(("optional", .bool(true))) }
                    if let inverse = r.inverse { spec.append(("inverse", .string(inverse))) }
                    spec.append(("onDelete", .string(r.deleteRule.rawValue)))
                    relationshipMembers.append((a.name, .object(spec)))
                    continue
                }
                derivedUpTo(a.name)
                var spec: [(String, JSONValue)] = [("type", .string(a.type.rawValue))]
                if a.isOptional { spec.append(("optional", .bool(true))) }
                if let d = a.defaultValue { spec.append(("default", d.json)) }
                attributeMembers.append((a.name, .object(spec)))
            }
            derivedUpTo(nil)
            var body: [(String, JSONValue)] = [("id", .string(e.idType.rawValue)), ("attributes", .object(attributeMembers))]
            if !relationshipMembers.isEmpty { body.append(("relationships", .object(relationshipMembers))) }
            entityMembers.append((name, .object(body)))
        }
        var members: [(String, JSONValue)] = [("entities", .object(entityMembers))]
        if !views.isEmpty {
            var viewMembers: [(String, JSONValue)] = []
            for name in views.keys.sorted() {
                viewMembers.append((name, Self.viewJSON(views[name]!)))
            }
            members.append(("views", .object(viewMembers)))
        }
        if let retention { members.append(("retention", retention.json)) }
        return .object(members)
    }
}
