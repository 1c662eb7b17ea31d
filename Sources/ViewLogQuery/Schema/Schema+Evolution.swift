@_spi(Engine) import ViewLogModel
extension Schema {
    /// Checks that `self` only adds to `previous`: new entities, new attributes that are optional or have a
    /// default, new views. Anything else — a removed or changed entity, attribute or view, a new required
    /// attribute without a default — is a breaking change, refused with a ``SchemaError/breakingChange(_:)``
    /// that names it.
    public func checkAdditive(over previous: Schema) throws(SchemaError) {
        for name in previous.entityNames {
            guard let entity = entities[name] else { throw .breakingChange("entity '\(name)' was removed") }
            let old = previous.entities[name]!
            guard entity.idType == old.idType else {
                throw .breakingChange("the id type of entity '\(name)' changed from \(old.idType.rawValue) to \(entity.idType.rawValue)")
            }
            for a in old.attributes {
                guard let now = entity.attribute(named: a.name) else {
                    throw .breakingChange("attribute '\(a.name)' of entity '\(name)' was removed")
                }
                // A relationship may gain an inverse; nothing else of an attribute or relationship may change.
                var nowWithOldInverse = now
                if a.relationship?.inverse == nil, now.relationship != nil { nowWithOldInverse.relationship?.inverse = nil }
                guard nowWithOldInverse == a else {
                    let what = a.relationship == nil ? "attribute" : "relationship"
                    throw .breakingChange("\(what) '\(a.name)' of entity '\(name)' changed (\(what)s can be added, not changed\(a.relationship == nil ? "" : "; an inverse can be added"))")
                }
            }
            // Derived attributes are never stored: new ones need nothing of existing objects, but one removed or
            // changed would change what views and documents built on it mean.
            for d in old.derivedNames where entity.derived[d] != old.derived[d] {
                throw .breakingChange(entity.derived[d] == nil ? "derived attribute '\(d)' of entity '\(name)' was removed"
                    : "derived attribute '\(d)' of entity '\(name)' changed (derived attributes can be added, not changed)")
            }
            for a in entity.attributes where old.attribute(named: a.name) == nil {
                if a.relationship != nil {
                    // Existing objects hold the empty set of a new to-many.
                    guard a.isOptional || a.isToMany else {
                        throw .breakingChange("new relationship '\(a.name)' of entity '\(name)' is required: existing objects would name nothing (a new relationship must be optional)")
                    }
                    continue
                }
                guard a.isOptional || a.defaultValue != nil else {
                    throw .breakingChange("new attribute '\(a.name)' of entity '\(name)' is required without a default: existing objects would have no value")
                }
            }
        }
        for name in previous.views.keys.sorted() {
            guard let view = views[name] else { throw .breakingChange("view '\(name)' was removed") }
            guard view == previous.views[name]! else {
                throw .breakingChange("view '\(name)' changed (views can be added, not changed)")
            }
        }
    }

    /// Attributes that `self` adds to entities of `previous`, with their defaults (existing objects get them).
    package func addedDefaults(over previous: Schema) -> [(entity: String, attribute: String, value: Value)] {
        var out: [(String, String, Value)] = []
        for name in previous.entityNames {
            guard let entity = entities[name], let old = previous.entities[name] else { continue }
            for a in entity.attributes where old.attribute(named: a.name) == nil {
                if let d = a.defaultValue, !d.isNull { out.append((name, a.name, d)) }
            }
        }
        return out
    }
}
