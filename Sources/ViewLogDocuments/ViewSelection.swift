@_spi(Engine) import ViewLog

/// Which view a request names: a named view of the schema, or an entity with its predicate, sort and section key;
/// with a window (`limit`, `offset`) and values of `$variables`. The CLI's view options and the server's view
/// parameters (DESIGN §7, §12) both come down to one of these.
package struct ViewSelection: Sendable {
    package var view: String?
    package var entity: String?
    package var predicate: String?
    package var sort: String?
    package var section: String?
    /// Key paths to show and follow (`include`, DESIGN §10): more than a named view's own, which it keeps.
    package var include: String?
    package var limit: Int?
    package var offset: Int?
    /// `NAME=VALUE` assignments, as given.
    package var variables: [String] = []

    package init(view: String? = nil, entity: String? = nil, predicate: String? = nil, sort: String? = nil,
                 section: String? = nil, include: String? = nil, limit: Int? = nil, offset: Int? = nil, variables: [String] = []) {
        self.view = view
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.section = section
        self.include = include
        self.limit = limit
        self.offset = offset
        self.variables = variables
    }

    /// Why the selection is incomplete or contradictory, or nil when it is fine (the CLI's usage errors; the
    /// server's 400s). `option` spells a parameter's name as the caller shows it (`--limit`, `limit`).
    package func problem(option: (String) -> String = { "--" + $0 }) -> String? {
        if view != nil, entity != nil || predicate != nil || sort != nil || section != nil {
            return "give either a view name or \(option("entity"))/\(option("where"))/\(option("sort"))/\(option("section")), not both"
        }
        if view == nil, entity == nil { return "give a view name or \(option("entity"))" }
        if let limit, limit < 0 { return "\(option("limit")) must not be negative" }
        if let offset, offset < 0 { return "\(option("offset")) must not be negative" }
        return nil
    }

    /// The fetch request, checked against `schema`.
    package func fetchRequest(schema: Schema) throws -> (FetchRequest, EntityDescription) {
        var definition: ViewDefinition
        if let view {
            guard let named = schema.views[view] else {
                let known = schema.views.keys.sorted().joined(separator: ", ")
                throw RequestError(.unknownView, "unknown view '\(view)'" + (known.isEmpty ? " (the schema has no views)" : " (views: \(known))"))
            }
            definition = named
        } else {
            guard let entity else { throw RequestError(.invalidParameter, problem() ?? "give a view name or --entity") }
            definition = ViewDefinition(entity: entity, predicate: predicate, sort: sort, sectionKey: section)
        }
        if let include {
            let own = FetchRequest.includes(definition.include)
            definition.include = (own + FetchRequest.includes(include).filter { !own.contains($0) }).joined(separator: ", ")
        }
        if let limit { definition.limit = limit }
        if let offset { definition.offset = offset }
        let entityDescription = try schema.entity(named: definition.entity)
        var request = try FetchRequest(definition)
        request.variables = try parsedVariables()
        return (request, entityDescription)
    }

    /// `NAME=VALUE`: the value read as a JSON literal when it is one (`42`, `true`, `"x"`, `null`), otherwise as
    /// text.
    package func parsedVariables() throws -> [String: Value] {
        var out: [String: Value] = [:]
        for assignment in variables {
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
                throw RequestError(.invalidParameter, "--var expects NAME=VALUE, got '\(assignment)'")
            }
            let name = String(assignment[..<eq]), text = String(assignment[assignment.index(after: eq)...])
            let value: Value
            switch try? JSONValue.parse(text) {
            case .int(let i)?: value = .int(i)
            case .double(let d)?: value = .double(d)
            case .bool(let b)?: value = .bool(b)
            case .string(let s)?: value = Timestamp(iso8601: s).map(Value.date) ?? .string(s)
            case .null?: value = .null
            default: value = Timestamp(iso8601: text).map(Value.date) ?? .string(text)
            }
            out[name.hasPrefix("$") ? String(name.dropFirst()) : name] = value
        }
        return out
    }
}
