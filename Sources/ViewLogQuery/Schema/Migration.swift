@_spi(Engine) import ViewLogModel

/// A migration (DESIGN §13): steps applied in order to a schema, and to every object of it, as one logged schema
/// change. Read from the JSON array of `viewlog schema STORE --migrate FILE`.
public struct Migration: Sendable, Hashable {
    /// One step of a migration.
    public enum Step: Sendable, Hashable {
        /// Renames an attribute or relationship; views that use it follow the new name.
        case renameAttribute(entity: String, from: String, to: String)
        /// Renames an entity; relationships to it and views of it follow the new name.
        case renameEntity(from: String, to: String)
        /// Removes an attribute or relationship from the entity and from every object.
        case removeAttribute(entity: String, name: String)
        /// Converts an attribute's values to `to` (§13's conversions).
        case changeType(entity: String, attribute: String, to: AttributeType)
        /// Makes an optional attribute required, giving `default` to every object whose value is `null`.
        case makeRequired(entity: String, attribute: String, default: Value)
        /// Adds or replaces the named view.
        case setView(name: String, view: ViewDefinition)
        /// Removes the named view.
        case removeView(String)
    }

    /// The steps, in the order they apply.
    public var steps: [Step]

    /// Makes a migration of `steps`.
    public init(steps: [Step]) { self.steps = steps }
}

extension Migration {
    /// Reads a migration from its JSON text: an array of at least one step, each an object with one member naming
    /// the step. Names are checked against a schema by ``Schema/migrated(by:)``, not here.
    /// - Throws: ``SchemaError/invalidMigration(step:reason:)`` naming the step and what is wrong.
    public init(jsonText: String) throws(SchemaError) {
        let json: JSONValue
        do { json = try JSONValue.parse(jsonText) } catch { throw .invalidMigration(step: 0, reason: "\(error)") }
        try self.init(json: json)
    }

    /// Reads a migration from its JSON document; see ``init(jsonText:)``.
    @_spi(Engine) public init(json: JSONValue) throws(SchemaError) {
        guard case .array(let items) = json, !items.isEmpty else {
            throw .invalidMigration(step: 0, reason: "a migration is a JSON array of at least one step")
        }
        var steps: [Step] = []
        for (i, item) in items.enumerated() {
            steps.append(try Step(json: item, number: i + 1))
        }
        self.init(steps: steps)
    }

    /// The JSON document of the migration, as the log holds it: reads back with ``init(json:)`` as the same steps.
    @_spi(Engine) public var json: JSONValue { .array(steps.map(\.json)) }
}

extension Migration.Step {
    private static let kinds = ["renameAttribute", "renameEntity", "removeAttribute", "changeType", "makeRequired",
                                "setView", "removeView"]

    init(json: JSONValue, number: Int) throws(SchemaError) {
        func fail(_ reason: String) -> SchemaError { .invalidMigration(step: number, reason: reason) }
        guard case .object(let members) = json, members.count == 1 else {
            throw fail("a step is an object with one member, one of \(Self.kinds.joined(separator: ", "))")
        }
        let (kind, body) = members[0]
        func fields(_ names: [String]) throws(SchemaError) -> [String: JSONValue] {
            guard case .object(let m) = body else { throw fail("\(kind) takes an object with \(names.joined(separator: ", "))") }
            var out: [String: JSONValue] = [:]
            for (k, v) in m {
                guard names.contains(k) else { throw fail("\(kind) has no member '\(k)' (it takes \(names.joined(separator: ", ")))") }
                out[k] = v
            }
            for n in names where out[n] == nil { throw fail("\(kind) needs '\(n)'") }
            return out
        }
        func name(_ f: [String: JSONValue], _ key: String) throws(SchemaError) -> String {
            guard case .string(let s)? = f[key], Schema.isIdentifier(s) else {
                throw fail("\(kind): '\(key)' must be a name (an identifier)")
            }
            return s
        }
        switch kind {
        case "renameAttribute":
            let f = try fields(["entity", "from", "to"])
            self = .renameAttribute(entity: try name(f, "entity"), from: try name(f, "from"), to: try name(f, "to"))
        case "renameEntity":
            let f = try fields(["from", "to"])
            self = .renameEntity(from: try name(f, "from"), to: try name(f, "to"))
        case "removeAttribute":
            let f = try fields(["entity", "name"])
            self = .removeAttribute(entity: try name(f, "entity"), name: try name(f, "name"))
        case "changeType":
            let f = try fields(["entity", "attribute", "to"])
            guard case .string(let t)? = f["to"], let type = AttributeType(rawValue: t) else {
                throw fail("changeType: 'to' must be one of string, int, double, bool, date")
            }
            self = .changeType(entity: try name(f, "entity"), attribute: try name(f, "attribute"), to: type)
        case "makeRequired":
            let f = try fields(["entity", "attribute", "default"])
            let d = f["default"]!
            guard let value = Value(jsonLiteral: d), !value.isNull else {
                throw fail("makeRequired: 'default' must be a string, number or boolean (a date as its ISO-8601 string)")
            }
            self = .makeRequired(entity: try name(f, "entity"), attribute: try name(f, "attribute"), default: value)
        case "setView":
            let f = try fields(["name", "view"])
            guard case .string(let n)? = f["name"], !n.isEmpty else { throw fail("setView: 'name' must be a view name") }
            do { self = .setView(name: n, view: try Schema.view(named: n, from: f["view"]!)) } catch {
                throw fail("setView: \(error)")
            }
        case "removeView":
            guard case .string(let n) = body, !n.isEmpty else { throw fail("removeView takes a view name") }
            self = .removeView(n)
        default:
            throw fail("unknown step '\(kind)' (expected one of \(Self.kinds.joined(separator: ", ")))")
        }
    }

    var json: JSONValue {
        switch self {
        case let .renameAttribute(e, from, to):
            return .object([("renameAttribute", .object([("entity", .string(e)), ("from", .string(from)), ("to", .string(to))]))])
        case let .renameEntity(from, to):
            return .object([("renameEntity", .object([("from", .string(from)), ("to", .string(to))]))])
        case let .removeAttribute(e, n):
            return .object([("removeAttribute", .object([("entity", .string(e)), ("name", .string(n))]))])
        case let .changeType(e, a, t):
            return .object([("changeType", .object([("entity", .string(e)), ("attribute", .string(a)), ("to", .string(t.rawValue))]))])
        case let .makeRequired(e, a, d):
            return .object([("makeRequired", .object([("entity", .string(e)), ("attribute", .string(a)), ("default", d.json)]))])
        case let .setView(n, v):
            return .object([("setView", .object([("name", .string(n)), ("view", Schema.viewJSON(v))]))])
        case .removeView(let n):
            return .object([("removeView", .string(n))])
        }
    }
}

extension Value {
    /// The value of a JSON literal with no attribute to type it: strings, integers, doubles, booleans and `null`.
    init?(jsonLiteral json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array, .object: return nil
        }
    }
}

extension Migration.Step: CustomStringConvertible {
    /// The step in one line, as `log` prints it: `Employee.height → heightCm`, `- Employee.nickname`, …
    public var description: String {
        switch self {
        case let .renameAttribute(e, from, to): return "\(e).\(from) → \(to)"
        case let .renameEntity(from, to): return "entity \(from) → \(to)"
        case let .removeAttribute(e, n): return "- \(e).\(n)"
        case let .changeType(e, a, t): return "\(e).\(a) as \(t.rawValue)"
        case let .makeRequired(e, a, d): return "\(e).\(a) required, default \(d.json.text)"
        case .setView(let n, _): return "view \(n) set"
        case .removeView(let n): return "- view \(n)"
        }
    }
}
