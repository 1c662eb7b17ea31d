@_spi(Engine) import ViewLogModel
/// A key path of a view that follows relationships (DESIGN §10): to-one hops ending in an attribute
/// (`department.name`, `manager.department.floor`, `manager.department`: a relationship last is the id it names), or
/// ending in an aggregate over a to-many inverse (`employees.@count`, `department.employees.@avg.salary`).
///
/// A view that uses key paths sees each as one more attribute of its entity, named by the path's text and of the
/// type of what it ends in, always optional (a null relationship on the way makes it null): the predicate compiler,
/// the sort and the sections treat it like any attribute (``Schema/viewEntity(of:requiresVariables:)``), and a row's
/// values carry its path values under those names (`KeyPath.attributeValue`, and the view's aggregate tables).
public struct KeyPath: Sendable, Hashable {
    /// One to-one relationship a path follows.
    public struct Hop: Sendable, Hashable {
        /// The entity it leaves from.
        public let entity: String
        /// The relationship's name.
        public let relationship: String
        /// The entity it reaches.
        public let target: String
    }

    /// An aggregate over the members of a to-many relationship.
    public enum Aggregate: String, Sendable, Hashable, CaseIterable {
        case count = "@count", sum = "@sum", avg = "@avg", min = "@min", max = "@max"
    }

    /// What a path ends in, on the object its hops reach.
    public enum Tail: Sendable, Hashable {
        /// An attribute or relationship of that object.
        case attribute(String)
        /// An aggregate over its to-many `inverse`: of `attribute` of each member (`nil` for `@count`).
        case aggregate(Aggregate, inverse: InverseRelationship, attribute: String?)
    }

    /// The path as written.
    public let text: String
    /// The to-one relationships followed to reach the object the tail reads, in order.
    public let hops: [Hop]
    /// What the path reads there.
    public let tail: Tail
    /// The type of its values.
    public let type: AttributeType

    /// Resolves `text` from `entity` in `schema`.
    /// - Throws: a ``QueryError`` naming the path and the part at fault: an unknown name, an attribute where a
    ///   relationship must be, a bare to-many path, a wrong aggregate, more than three (`Limits.keyPathRelationshipsMax`)
    ///   relationships.
    ///
    /// A derived attribute's name (`headcount`) resolves to the path it names (`employees.@count`) and keeps its own
    /// name as ``text``: in a view it is that key path, named as the view names it.
    public init(_ text: String, from entity: EntityDescription, in schema: Schema) throws(QueryError) {
        let (hops, end) = try KeyPath.walk(entity.derived[text] ?? text, from: entity, in: schema, allowsMembers: false)
        self.text = text
        self.hops = hops
        switch end {
        case .attribute(let a):
            tail = .attribute(a.name)
            type = a.type
        case let .aggregate(function, inverse, attribute):
            tail = .aggregate(function, inverse: inverse, attribute: attribute?.name)
            switch function {
            case .count: type = .int
            case .sum: type = attribute!.type
            case .avg: type = .double
            case .min, .max: type = attribute!.type
            }
        case .members:
            preconditionFailure("members end a path only where they are allowed")
        }
    }

    /// What a walk of a path's names ends in.
    enum End {
        case attribute(Attribute)
        case aggregate(Aggregate, InverseRelationship, Attribute?)
        /// A to-many inverse and one attribute of its members (only inside a quantifier).
        case members(InverseRelationship, Attribute)
    }

    /// Walks `text`'s names from `entity`: the to-one hops and what the path ends in.
    static func walk(_ text: String, from entity: EntityDescription, in schema: Schema,
                     allowsMembers: Bool) throws(QueryError) -> ([Hop], End) {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func fail(_ why: String, _ code: ErrorCode = .unknownKey) -> QueryError {
            QueryError(code, "key path '\(text)' of entity '\(entity.name)': \(why)", entity: entity.name, key: text)
        }
        guard names.count >= 2, names.count <= Limits.keyPathRelationshipsMax + 3, names.allSatisfy({ !$0.isEmpty }) else {
            throw fail("not a key path")
        }
        var current = entity
        var hops: [Hop] = []
        var relationships = 0
        func count() throws(QueryError) {
            relationships += 1
            guard relationships <= Limits.keyPathRelationshipsMax else {
                throw fail("it follows more than \(Limits.keyPathRelationshipsMax) relationships", .queryTooComplex)
            }
        }
        var i = 0
        while i < names.count {  // bounded: each round consumes at least one name
            let name = names[i], isLast = i == names.count - 1
            if let inverse = schema.inverse(named: name, of: current.name) {
                guard !inverse.invertsToMany else { throw fail(manyToManyUnsupported(name, of: current.name)) }
                try count()
                let source = schema.entities[inverse.source]!
                guard !isLast else {
                    throw fail("'\(name)' of \(current.name) is a to-many relationship: it ends a path only in ANY, ALL, NONE or before @count, @sum, @avg, @min, @max")
                }
                let next = names[i + 1]
                if next.hasPrefix("@") {
                    guard let function = Aggregate(rawValue: next) else {
                        throw fail("unknown aggregate '\(next)' (expected @count, @sum, @avg, @min or @max)")
                    }
                    if function == .count {
                        guard i + 2 == names.count else { throw fail("@count ends a path") }
                        return (hops, .aggregate(.count, inverse, nil))
                    }
                    guard i + 3 == names.count else { throw fail("\(next) takes exactly one attribute of \(source.name) after it") }
                    guard let a = source.attribute(named: names[i + 2]) else {
                        throw fail(source.derived[names[i + 2]] != nil
                            ? "'\(names[i + 2])' of \(source.name) is a derived attribute: it is usable in \(source.name)'s own views, not on a key path"
                            : "\(source.name) has no attribute '\(names[i + 2])'")
                    }
                    if function == .sum || function == .avg, a.type != .int && a.type != .double {
                        throw fail("\(next) takes an int or double attribute; '\(a.name)' is \(a.type.rawValue)", .queryTypeMismatch)
                    }
                    return (hops, .aggregate(function, inverse, a))
                }
                guard i + 2 == names.count, let a = source.attribute(named: next) else {
                    throw fail("after the to-many '\(name)' comes exactly one attribute of \(source.name) or @count")
                }
                guard allowsMembers else {
                    throw fail("'\(name)' of \(current.name) is a to-many relationship: '\(text)' is allowed only in ANY, ALL or NONE (or use an aggregate)")
                }
                return (hops, .members(inverse, a))
            }
            guard let attribute = current.attribute(named: name) else {
                if current.derived[name] != nil {
                    throw fail("'\(name)' of \(current.name) is a derived attribute: it is usable in \(current.name)'s own views, not on a key path")
                }
                throw fail("\(current.name) has no attribute or relationship '\(name)'")
            }
            guard !attribute.isToMany else { throw fail(manyToManyUnsupported(name, of: current.name)) }
            if attribute.relationship != nil { try count() }
            if isLast {
                guard !allowsMembers else { throw fail("a quantifier needs a to-many relationship on its path") }
                return (hops, .attribute(attribute))
            }
            guard let r = attribute.relationship, let next = schema.entities[r.target] else {
                throw fail("'\(name)' of \(current.name) is an attribute, not a relationship")
            }
            hops.append(Hop(entity: current.name, relationship: name, target: r.target))
            current = next
            i += 1
        }
        throw fail("not a key path")
    }

    /// Why a path through a relationship of a many-to-many pair is refused: views do not follow sets yet.
    static func manyToManyUnsupported(_ name: String, of entity: String) -> String {
        "'\(name)' of \(entity) is one side of a many-to-many relationship: key paths do not follow sets of ids yet"
    }

    /// The object the hops reach from a row (`values`, `id`), or `nil` through a null hop.
    static func reach(_ hops: [Hop], from values: ObjectValues, id: ObjectID, entity: String,
                      lookup: PathLookup) -> (values: ObjectValues, key: ObjectKey)? {
        var current = values
        var key = ObjectKey(entity: entity, id: id)
        for hop in hops {  // bounded: at most Limits.keyPathRelationshipsMax hops
            guard let v = current[hop.relationship], let next = ObjectID(v) else { return nil }
            key = ObjectKey(entity: hop.target, id: next)
            guard let found = lookup.object(key) else { return nil }
            current = found
        }
        return (current, key)
    }

    /// The value of a path that ends in an attribute, for the row `id` of `entity` whose values are `values`; `null`
    /// through a null hop. (Aggregates are read from the view's aggregate tables.)
    func attributeValue(of values: ObjectValues, id: ObjectID, entity: String, lookup: PathLookup) -> Value {
        guard case .attribute(let name) = tail,
              let (reached, _) = KeyPath.reach(hops, from: values, id: id, entity: entity, lookup: lookup) else { return .null }
        return reached[name] ?? .null
    }
}

/// `ANY employees.height > 190` (also `SOME`), `ALL …`, `NONE …`: a comparison over the members of a to-many key
/// path, read as one boolean key of the row whose name is the quantified comparison's text (DESIGN §10). It decides
/// membership only: it is not a path value, never in `paths` or `changed`.
public struct QuantifiedPath: Sendable {
    /// The key's text: `ANY employees.height > 190`.
    public let text: String
    let quantifier: String
    package let hops: [KeyPath.Hop]
    package let inverse: InverseRelationship
    /// The attributes of each member the comparison reads (its key path's last name, and any key it compares with).
    package let memberAttributes: Set<String>
    /// The comparison on each member; `nil` while its variables have no values (a named view being checked).
    package let member: CompiledPredicate?

    /// Whether `key` is a quantified comparison's key.
    static func isQuantified(_ key: String) -> Bool {
        key.hasPrefix("ANY ") || key.hasPrefix("ALL ") || key.hasPrefix("NONE ")
    }

    package init(_ text: String, from entity: EntityDescription, in schema: Schema, variables: [String: Value],
         requiresVariables: Bool) throws(QueryError) {
        let space = text.firstIndex(of: " ")!
        quantifier = String(text[..<space])
        let inner = try PredicateParser.parse(String(text[text.index(after: space)...]))
        guard case let .comparison(.key(path), op, rhs, options) = inner else {
            throw QueryError(.querySyntax, "\(quantifier) needs a comparison of a to-many key path")
        }
        let (hops, end) = try KeyPath.walk(path, from: entity, in: schema, allowsMembers: true)
        guard case let .members(inverse, attribute) = end else {
            throw QueryError(.unknownKey, "key path '\(path)' of entity '\(entity.name)': \(quantifier) needs a to-many relationship followed by one attribute (employees.height)",
                             entity: entity.name, key: path)
        }
        self.text = text
        self.hops = hops
        self.inverse = inverse
        let predicate = try ViewPredicate(.comparison(.key(attribute.name), op, rhs, options))
        memberAttributes = predicate.expression.keys
        let source = schema.entities[inverse.source]!
        if requiresVariables {
            member = try predicate.compiled(for: source, variables: variables)
        } else if let compiled = try? predicate.compiled(for: source, variables: variables) {
            member = compiled
        } else {
            try predicate.validate(for: source, variables: variables)
            member = nil
        }
    }

}

/// How path values find related objects by key.
package struct PathLookup {
    /// The object of `key`, `nil` when it does not exist.
    package let object: (ObjectKey) -> ObjectValues?
    /// The first error a look-up met (a damaged row), if any: the values computed since are not to be used.
    package var failure: () -> (any Error)? = { nil }

    package init(object: @escaping (ObjectKey) -> ObjectValues?, failure: @escaping () -> (any Error)? = { nil }) {
        self.object = object
        self.failure = failure
    }

    /// A look-up through `read`, whose first error it keeps as ``failure`` (an object it could not read is absent).
    package static func recordingFailures(_ read: @escaping (ObjectKey) throws -> ObjectValues?) -> PathLookup {
        final class First { var error: (any Error)? }
        let first = First()
        return PathLookup(object: { key in
            do { return try read(key) } catch {
                if first.error == nil { first.error = error }
                return nil
            }
        }, failure: { first.error })
    }
}

extension Schema {
    /// The entity a view of `request` is made over: the request's entity, with one more optional attribute per key
    /// path the request uses (named by the path) and one boolean per quantified comparison, and those paths; the
    /// entity itself and no paths when it uses none.
    /// - Throws: ``QueryError`` for an unknown entity or a key path that does not resolve.
    public func viewEntity(of request: FetchRequest, requiresVariables: Bool = true) throws(QueryError)
        -> (entity: EntityDescription, paths: [KeyPath], quantified: [QuantifiedPath]) {
        guard let entity = entities[request.entity] else {
            throw QueryError(.unknownEntity, "unknown entity '\(request.entity)'", entity: request.entity)
        }
        // Key paths, and every derived attribute of the entity: a view's rows carry their derived values as the rest
        // of their values, whether or not the view filters, sorts or sections by them.
        func isPath(_ key: String) -> Bool { key.contains(".") || entity.derived[key] != nil }
        var texts = request.predicate.expression.keys.filter(isPath)
        for d in request.sortDescriptors where isPath(d.key) { texts.insert(d.key) }
        if let s = request.sectionKey, isPath(s) { texts.insert(s) }
        for i in request.includes where isPath(i) { texts.insert(i) }
        texts.formUnion(entity.derived.keys)
        guard !texts.isEmpty else { return (entity, [], []) }
        var paths: [KeyPath] = [], quantified: [QuantifiedPath] = []
        for text in texts.sorted() {
            if QuantifiedPath.isQuantified(text) {
                quantified.append(try QuantifiedPath(text, from: entity, in: self, variables: request.variables,
                                                     requiresVariables: requiresVariables))
            } else {
                paths.append(try KeyPath(text, from: entity, in: self))
            }
        }
        let added = paths.map { Attribute(name: $0.text, type: $0.type, isOptional: true) }
            + quantified.map { Attribute(name: $0.text, type: .bool, isOptional: false) }
        return (EntityDescription(name: entity.name, idType: entity.idType, attributes: entity.attributes + added), paths, quantified)
    }
}

extension PredicateExpression {
    /// Every key the expression names.
    package var keys: Set<String> {
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
