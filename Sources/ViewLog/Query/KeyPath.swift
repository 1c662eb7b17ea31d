/// A key path of a view that follows to-one relationships (DESIGN §10): `department.name`,
/// `manager.department.floor`, or `manager.department` (a relationship last: the id it names).
///
/// A view that uses key paths sees each as one more attribute of its entity, named by the path's text and of the
/// type of what it ends in, always optional (a null relationship on the way makes it null): the predicate compiler,
/// the sort and the sections treat it like any attribute (``Schema/viewEntity(of:)``), and a row's values carry its
/// path values under those names (``value(of:lookup:)``).
public struct KeyPath: Sendable, Hashable {
    /// One relationship a path follows.
    public struct Hop: Sendable, Hashable {
        /// The entity it leaves from.
        public let entity: String
        /// The relationship's name.
        public let relationship: String
        /// The entity it reaches.
        public let target: String
    }

    /// The path as written.
    public let text: String
    /// The relationships followed to reach the object that holds ``last``, in order.
    public let hops: [Hop]
    /// The attribute (or relationship: its value is an id) read on the object the hops reach.
    public let last: String
    /// The type of its values.
    public let type: AttributeType

    /// Resolves `text` from `entity` in `schema`.
    /// - Throws: a ``QueryError`` naming the path and the part at fault: an unknown name, a hop that is not a to-one
    ///   relationship, a to-many relationship, a path longer than ``Limits/keyPathRelationshipsMax`` relationships.
    public init(_ text: String, from entity: EntityDescription, in schema: Schema) throws(QueryError) {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard names.count >= 2, names.allSatisfy({ !$0.isEmpty }) else {
            throw QueryError(.unknownKey, "'\(text)' is not a key path", entity: entity.name, key: text)
        }
        func fail(_ why: String, _ code: ErrorCode = .unknownKey) -> QueryError {
            QueryError(code, "key path '\(text)' of entity '\(entity.name)': \(why)", entity: entity.name, key: text)
        }
        var current = entity
        var hops: [Hop] = []
        var relationships = 0
        for (i, name) in names.enumerated() {
            guard let attribute = current.attribute(named: name) else {
                if schema.inverse(named: name, of: current.name) != nil {
                    throw fail("'\(name)' of \(current.name) is a to-many relationship (an inverse): it may end a path only in ANY, ALL, NONE or before @count, @sum, @avg, @min, @max")
                }
                throw fail("\(current.name) has no attribute or relationship '\(name)'")
            }
            if attribute.relationship != nil { relationships += 1 }
            guard relationships <= Limits.keyPathRelationshipsMax else {
                throw fail("it follows more than \(Limits.keyPathRelationshipsMax) relationships", .queryTooComplex)
            }
            if i == names.count - 1 {
                self.text = text
                self.hops = hops
                self.last = name
                self.type = attribute.type
                return
            }
            guard let r = attribute.relationship, let next = schema.entities[r.target] else {
                throw fail("'\(name)' of \(current.name) is an attribute, not a relationship")
            }
            hops.append(Hop(entity: current.name, relationship: name, target: r.target))
            current = next
        }
        preconditionFailure("a key path of two or more names returns in its loop")
    }

    /// The path's value for an object whose values are `values`: each hop's id looked up with `lookup` (`nil`: no
    /// such object), `null` through a null hop.
    public func value(of values: ObjectValues, lookup: (ObjectKey) -> ObjectValues?) -> Value {
        var current = values
        for hop in hops {  // bounded: at most Limits.keyPathRelationshipsMax hops
            guard let v = current[hop.relationship], let id = ObjectID(v),
                  let next = lookup(ObjectKey(entity: hop.target, id: id)) else { return .null }
            current = next
        }
        return current[last] ?? .null
    }

    /// Whether the path's value can change when an object of `entity` changes (beyond the row's own changes).
    public func reads(_ entity: String) -> Bool { hops.contains { $0.target == entity } }
}

extension Schema {
    /// The entity a view of `request` is made over: the request's entity, with one more optional attribute per key
    /// path the request uses (named by the path), and those paths; the entity itself and no paths when it uses none.
    /// - Throws: ``QueryError`` for an unknown entity or a key path that does not resolve.
    public func viewEntity(of request: FetchRequest) throws(QueryError) -> (entity: EntityDescription, paths: [KeyPath]) {
        guard let entity = entities[request.entity] else {
            throw QueryError(.unknownEntity, "unknown entity '\(request.entity)'", entity: request.entity)
        }
        var texts = request.predicate.expression.keys.filter { $0.contains(".") }
        for d in request.sortDescriptors where d.key.contains(".") { texts.insert(d.key) }
        if let s = request.sectionKey, s.contains(".") { texts.insert(s) }
        for i in request.includes where i.contains(".") { texts.insert(i) }
        guard !texts.isEmpty else { return (entity, []) }
        var paths: [KeyPath] = []
        for text in texts.sorted() { paths.append(try KeyPath(text, from: entity, in: self)) }
        let added = paths.map { Attribute(name: $0.text, type: $0.type, isOptional: true) }
        return (EntityDescription(name: entity.name, idType: entity.idType, attributes: entity.attributes + added), paths)
    }
}

extension PredicateExpression {
    /// Every key the expression names.
    var keys: Set<String> {
        var out = Set<String>()
        func visit(_ o: PredicateOperand) {
            switch o {
            case .key(let k): out.insert(k)
            case .list(let xs): xs.forEach(visit)
            case .value, .variable: break
            }
        }
        func walk(_ e: PredicateExpression) {  // bounded: the tree's depth is at most Limits.predicateDepthMax
            switch e {
            case .constant: break
            case .not(let x): walk(x)
            case .and(let xs), .or(let xs): xs.forEach(walk)
            case let .comparison(l, _, r, _):
                visit(l)
                visit(r)
            }
        }
        walk(self)
        return out
    }
}
