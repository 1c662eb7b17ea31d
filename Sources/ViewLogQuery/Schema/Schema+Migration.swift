@_spi(Engine) import ViewLogModel

extension Schema {
    /// The schema after `migration`'s steps, in order. A rename is carried into every view of the entity that uses
    /// the name (its `where`, `sort` and `section`); any view, relationship or inverse the result would break refuses
    /// the whole migration, naming why.
    /// - Throws: ``SchemaError/invalidMigration(step:reason:)`` for a step naming what the schema lacks (or a name
    ///   it already has); ``SchemaError/migrationRefused(_:)`` for a result that does not validate.
    public func migrated(by migration: Migration) throws(SchemaError) -> Schema {
        try stages(of: migration).last ?? self
    }

    /// The schema after each step of `migration` (checked as ``migrated(by:)`` checks the last).
    package func stages(of migration: Migration) throws(SchemaError) -> [Schema] {
        var s = self
        var out: [Schema] = []
        for (i, step) in migration.steps.enumerated() {
            try s.apply(step, number: i + 1)
            out.append(s)
        }
        do { try s.validate() } catch { throw .migrationRefused("it would break the schema: \(error)") }
        return out
    }

    private func existing(_ entity: String, _ attribute: String, step: Int) throws(SchemaError) -> (EntityDescription, Attribute) {
        guard let e = entities[entity] else { throw .invalidMigration(step: step, reason: "unknown entity '\(entity)'") }
        guard let a = e.attribute(named: attribute) else {
            throw .invalidMigration(step: step, reason: "unknown attribute '\(attribute)' of entity '\(entity)'")
        }
        return (e, a)
    }

    /// Refuses a step on `entity` when it has relationships or is the target of one: their reverse index and
    /// inverses are not carried through a migration yet.
    private func checkNoRelationships(_ entity: String, step: Int) throws(SchemaError) {
        for e in entities.values {
            for a in e.attributes {
                guard let r = a.relationship, e.name == entity || r.target == entity else { continue }
                throw .migrationRefused("step \(step): entity '\(entity)' takes part in relationship '\(a.name)' of '\(e.name)'; a migration cannot change an entity with relationships")
            }
        }
    }

    private mutating func apply(_ step: Migration.Step, number n: Int) throws(SchemaError) {
        switch step {
        case let .renameAttribute(entity, from, to):
            let (e, a) = try existing(entity, from, step: n)
            guard e.attribute(named: to) == nil, to != "id" else {
                throw .invalidMigration(step: n, reason: "entity '\(entity)' already has an attribute '\(to)'")
            }
            try checkNoRelationships(entity, step: n)
            var renamed = a
            renamed.name = to
            entities[entity] = EntityDescription(name: entity, idType: e.idType,
                                                 attributes: e.attributes.filter { $0.name != from } + [renamed])
            for (name, view) in views where view.entity == entity {
                views[name] = view.renaming(from, to: to)
            }
        case let .renameEntity(from, to):
            guard let e = entities[from] else { throw .invalidMigration(step: n, reason: "unknown entity '\(from)'") }
            guard entities[to] == nil else { throw .invalidMigration(step: n, reason: "the schema already has an entity '\(to)'") }
            try checkNoRelationships(from, step: n)
            entities[from] = nil
            entities[to] = EntityDescription(name: to, idType: e.idType, attributes: e.attributes)
            for (name, view) in views where view.entity == from { views[name]!.entity = to }
        case let .removeAttribute(entity, name):
            let (e, _) = try existing(entity, name, step: n)
            try checkNoRelationships(entity, step: n)
            entities[entity] = EntityDescription(name: entity, idType: e.idType, attributes: e.attributes.filter { $0.name != name })
        case let .changeType(entity, attribute, to):
            let (e, a) = try existing(entity, attribute, step: n)
            guard a.relationship == nil else {
                throw .invalidMigration(step: n, reason: "'\(attribute)' of entity '\(entity)' is a relationship; its type is its target's id type")
            }
            guard a.type != to else { throw .invalidMigration(step: n, reason: "'\(attribute)' of entity '\(entity)' is a \(to.rawValue) already") }
            guard Attribute.converts(from: a.type, to: to) else {
                throw .invalidMigration(step: n, reason: "no conversion from \(a.type.rawValue) to \(to.rawValue) (only int to double, double to int, any type to string, string to any type)")
            }
            var changed = a
            changed.type = to
            if let d = a.defaultValue, !d.isNull {
                guard let converted = changed.converted(d) else {
                    throw .migrationRefused("step \(n): the default of '\(attribute)' of entity '\(entity)' (\(d)) does not convert to \(to.rawValue)")
                }
                changed.defaultValue = converted
            }
            entities[entity] = EntityDescription(name: entity, idType: e.idType,
                                                 attributes: e.attributes.filter { $0.name != attribute } + [changed])
        case let .makeRequired(entity, attribute, value):
            let (e, a) = try existing(entity, attribute, step: n)
            guard a.relationship == nil else {
                throw .invalidMigration(step: n, reason: "'\(attribute)' of entity '\(entity)' is a relationship; a default cannot name an object")
            }
            guard a.isOptional else { throw .invalidMigration(step: n, reason: "'\(attribute)' of entity '\(entity)' is required already") }
            // Read as the attribute reads JSON: a date default is its ISO-8601 string.
            guard let d = try? a.value(fromJSON: value.json), !d.isNull else {
                throw .invalidMigration(step: n, reason: "the default for '\(attribute)' of entity '\(entity)' is not a \(a.type.rawValue)")
            }
            var changed = a
            changed.isOptional = false
            changed.defaultValue = d
            entities[entity] = EntityDescription(name: entity, idType: e.idType,
                                                 attributes: e.attributes.filter { $0.name != attribute } + [changed])
        case let .setView(name, view):
            views[name] = view
        case .removeView(let name):
            guard views[name] != nil else { throw .invalidMigration(step: n, reason: "unknown view '\(name)'") }
            views[name] = nil
        }
    }
}

extension ViewDefinition {
    /// The view with the entity's attribute `from` called `to` wherever the view reads it directly (a key path's
    /// first name). A name reached through a relationship is left: validation refuses what that breaks.
    func renaming(_ from: String, to: String) -> ViewDefinition {
        func key(_ k: String) -> String { Migration.key(k) { $0 == from ? to : $0 } ?? k }
        var v = self
        if let p = predicate, let parsed = try? PredicateParser.parse(p) {
            let renamed = parsed.mappingKeys(key)
            if renamed != parsed { v.predicate = renamed.description }
        }
        if let s = sort, let parsed = try? ViewSortDescriptor.parse(s) {
            let renamed = parsed.map { ViewSortDescriptor(key: key($0.key), ascending: $0.ascending) }
            if renamed != parsed { v.sort = renamed.map(\.description).joined(separator: ", ") }
        }
        if let k = sectionKey { v.sectionKey = key(k) }
        return v
    }
}

extension PredicateExpression {
    /// The expression with every key operand mapped by `transform`.
    func mappingKeys(_ transform: (String) -> String) -> PredicateExpression {
        switch self {
        case .constant: return self
        case .not(let e): return .not(e.mappingKeys(transform))
        case .and(let es): return .and(es.map { $0.mappingKeys(transform) })
        case .or(let es): return .or(es.map { $0.mappingKeys(transform) })
        case let .comparison(l, op, r, options):
            return .comparison(l.mappingKeys(transform), op, r.mappingKeys(transform), options)
        }
    }
}

extension PredicateOperand {
    func mappingKeys(_ transform: (String) -> String) -> PredicateOperand {
        switch self {
        case .key(let k): return .key(transform(k))
        case .list(let items): return .list(items.map { $0.mappingKeys(transform) })
        case .value, .variable: return self
        }
    }
}

extension Attribute {
    /// Whether §13 converts values of type `from` to `to`: int → double, double → int, any → string, string → any.
    static func converts(from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.int, .double), (.double, .int), (_, .string), (.string, _): return true
        default: return false
        }
    }

    /// `value` (of this attribute's type before a ``Migration/Step/changeType(entity:attribute:to:)``) converted to
    /// ``type``, or `nil` when it does not convert: a double that is not integral (or out of range) to int, an int
    /// beyond 2⁵³ to double, a string that does not read as the type. `null` stays `null`. Any value becomes a string
    /// as `query` prints it.
    package func converted(_ value: Value) -> Value? {
        switch (value, type) {
        case (.null, _): return .null
        case (_, .string): return .string(value.description)
        case (.int(let i), .double):
            let d = Double(i)
            return Int64(exactly: d) == i ? .double(d) : nil
        case (.double(let d), .int):
            return Int64(exactly: d).map { .int($0) }
        case (.string(let s), _):
            return try? self.value(fromText: s)
        default:
            return nil
        }
    }
}

extension Migration {
    /// An object of entity `entity` with `values` in `schema` (the schema before the migration) after the steps:
    /// its entity and values; `stages` are `schema.stages(of: self)`.
    /// - Throws: ``SchemaError/migrationRefused(_:)`` naming the object and the value that does not convert.
    package func rewrite(entity: String, id: ObjectID, values: ObjectValues,
                         stages: [Schema]) throws(SchemaError) -> (entity: String, values: ObjectValues) {
        var entity = entity, values = values
        for (step, after) in zip(steps, stages) {
            switch step {
            case let .renameAttribute(e, from, to) where e == entity:
                if let v = values.removeValue(forKey: from) { values[to] = v }
            case let .renameEntity(from, to) where from == entity:
                entity = to
            case let .removeAttribute(e, name) where e == entity:
                values[name] = nil
            case let .changeType(e, attribute, to) where e == entity:
                guard let v = values[attribute] else { continue }
                let a = after.entities[e]!.attribute(named: attribute)!
                guard let converted = a.converted(v) else {
                    throw .migrationRefused("\(entity) \(id.json.text): '\(attribute)' \(v.json.text) does not convert to \(to.rawValue)")
                }
                values[attribute] = converted
            case let .makeRequired(e, attribute, _) where e == entity:
                if values[attribute] ?? .null == .null { values[attribute] = after.entities[e]!.attribute(named: attribute)!.defaultValue }
            default:
                continue
            }
        }
        return (entity, values)
    }
}

extension Schema {
    /// This schema with the entities of `previous` it lacks (renamed or removed by a migration): what the deletes of
    /// a migration's rewrite are resolved against.
    package func keeping(entitiesOf previous: Schema) -> Schema {
        var s = self
        for (name, e) in previous.entities where s.entities[name] == nil { s.entities[name] = e }
        return s
    }
}

extension Migration {
    /// An object's entity and values with the names the steps give them (renames; removed attributes drop out), its
    /// values otherwise as they are: what carries a row through the migration in a change set, so that a rename alone
    /// is no change and a converted value that differs is one. `backward` carries from after the migration to before
    /// it (an attribute it removed is then absent).
    public func carryNames(entity: String, values: ObjectValues?, backward: Bool = false) -> (entity: String, values: ObjectValues?) {
        var entity = entity, values = values
        for step in backward ? steps.reversed() : steps {
            switch step {
            case let .renameEntity(from, to):
                if backward, entity == to { entity = from } else if !backward, entity == from { entity = to }
            case let .renameAttribute(e, from, to):
                let (old, new) = backward ? (to, from) : (from, to)
                // Going backward, the entity is already named as it was before this step.
                guard e == entity, let v = values?.removeValue(forKey: old) else { continue }
                values?[new] = v
            case let .removeAttribute(e, name) where e == entity && !backward:
                values?[name] = nil
            default:
                continue
            }
        }
        return (entity, values)
    }
}

extension Migration {
    /// The key `k` of a view (an attribute, `id`, or a key path) with its first name — the entity's own attribute —
    /// given by `name`; `nil` when `name` gives none (an attribute removed). What carries a view's names through a
    /// migration, for a stored view's definition and a live controller's request alike.
    static func key(_ k: String, _ name: (String) -> String?) -> String? {
        guard k != "id" else { return k }
        let dot = k.firstIndex(of: ".") ?? k.endIndex
        return name(String(k[..<dot])).map { $0 + k[dot...] }
    }
}

/// The migrations a move of a position passes (DESIGN §13), in the order it passes them, and how names at the move's
/// start are carried to its end: what a ``Delta`` across migrations holds, so that a results controller renames its
/// request, keeps its rows, and reports only values that differ.
@_spi(Engine) public struct MigrationCarry: Sendable, Hashable {
    /// A migration of the log and its seq.
    public struct Logged: Sendable, Hashable {
        /// The seq of its transaction.
        public var seq: UInt64
        /// Its steps.
        public var migration: Migration
        /// Makes a logged migration.
        public init(seq: UInt64, migration: Migration) {
            self.seq = seq
            self.migration = migration
        }
    }

    /// The migrations, in the order the move passes them: oldest first forwards, newest first backwards.
    public var passed: [Logged]
    /// Whether the move goes backwards (names are carried from after each migration to before it).
    public var backward: Bool

    /// Makes the carry of a move over `migrations` (oldest first, as logged).
    public init(migrations: [Logged], backward: Bool) {
        passed = backward ? migrations.reversed() : migrations
        self.backward = backward
    }

    /// An entity's name at the move's end, from its name at the start.
    public func entity(_ name: String) -> String { carry(entity: name, values: nil).entity }

    /// An object's values with the names of the move's end (``Migration/carryNames(entity:values:backward:)`` through
    /// each migration); `entity` is its entity's name at the start.
    public func values(_ values: ObjectValues, of entity: String) -> ObjectValues {
        carry(entity: entity, values: values).values ?? values
    }

    /// An attribute's name at the move's end, `nil` when a migration removed it; `entity` is named as at the start.
    public func attribute(_ name: String, of entity: String) -> String? {
        guard name != "id" else { return name }
        return carry(entity: entity, values: [name: .null]).values?.keys.first
    }

    private func carry(entity: String, values: ObjectValues?) -> (entity: String, values: ObjectValues?) {
        var out = (entity: entity, values: values)
        for m in passed { out = m.migration.carryNames(entity: out.entity, values: out.values, backward: backward) }
        return out
    }

    /// `request` with the names of the move's end: its entity, and every key of its predicate, sort, section and
    /// includes; `nil` when it reads an attribute a migration removed.
    public func request(_ request: FetchRequest) -> FetchRequest? {
        var removed = false
        func key(_ k: String) -> String {
            guard let carried = Migration.key(k, { attribute($0, of: request.entity) }) else { removed = true; return k }
            return carried
        }
        var r = request
        r.entity = entity(request.entity)
        let predicate = request.predicate.expression.mappingKeys(key)
        if predicate != request.predicate.expression {
            guard let parsed = try? ViewPredicate(predicate.description) else { return nil }
            r.predicate = parsed
        }
        r.sortDescriptors = request.sortDescriptors.map { ViewSortDescriptor(key: key($0.key), ascending: $0.ascending) }
        r.sectionKey = request.sectionKey.map(key)
        r.includes = request.includes.map(key)
        return removed ? nil : r
    }

    /// The seq of the last migration passed that sets or removes the named view `name`, `nil` when none does.
    public func seqChanging(view name: String) -> UInt64? {
        passed.last { logged in
            logged.migration.steps.contains { step in
                switch step {
                case .setView(let n, _), .removeView(let n): return n == name
                default: return false
                }
            }
        }?.seq
    }
}

extension MigrationCarry {
    /// Every name the entity named `name` at the move's start has along it (its name at the start first): a move
    /// reads its objects under each, as a migration's rewrite deletes them under one name and inserts them under the
    /// next.
    public func namesAlong(_ name: String) -> [String] {
        var names = [name], entity = name
        for m in passed {
            entity = m.migration.carryNames(entity: entity, values: nil, backward: backward).entity
            if !names.contains(entity) { names.append(entity) }
        }
        return names
    }
}
