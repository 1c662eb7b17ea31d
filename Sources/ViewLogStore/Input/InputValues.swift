@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Reading entities, ids and values from JSON input against a schema, shared by ``AppendInput`` and
/// ``Transaction/init(json:schema:line:)``. Each failure is an ``InputError`` whose message starts with
/// `context` (e.g. `insert Employee "e1"`), so that it names the change at fault. The context is made only for
/// an error (an autoclosure): formatting it for every line of a large input cost more than reading the line.
enum InputValues {
    /// `context: message`, or `message` when the context is empty.
    static func error(_ message: String, line: Int, context: String, code: ErrorCode = .invalidInput) -> InputError {
        InputError(code, line: line, message: context.isEmpty ? message : "\(context): \(message)")
    }

    /// The context of a change: `insert Employee "e1"` (the id as JSON, so its type shows).
    static func context(_ prefix: String, _ op: String, _ entity: String, _ id: ObjectID?) -> String {
        var c = prefix.isEmpty ? "" : prefix + ": "
        c += op + " " + entity
        if let id { c += " " + id.json.text }
        return c
    }

    /// The members of a JSON object, or an error naming what was given instead.
    static func members(_ json: JSONValue, what: String, line: Int, context: @autoclosure () -> String) throws(InputError) -> [(String, JSONValue)] {
        guard case .object(let m) = json else {
            throw error("\(what) must be a JSON object, got \(json.typeName)", line: line, context: context())
        }
        return m
    }

    /// Throws for the first key of `members` that is not in `allowed`.
    static func checkKeys(_ members: [(String, JSONValue)], allowed: [String], line: Int, context: @autoclosure () -> String) throws(InputError) {
        for (k, _) in members where !allowed.contains(k) {
            let expected = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            throw error("unknown key \(JSONValue.string(k).text) (expected \(expected))", line: line, context: context())
        }
    }

    /// The entity named by a JSON string.
    package static func entity(_ json: JSONValue, key: String, schema: Schema, line: Int, context: @autoclosure () -> String) throws(InputError) -> EntityDescription {
        guard case .string(let name) = json else {
            throw error("\"\(key)\" must be an entity name (a string), got \(json.typeName)", line: line, context: context())
        }
        guard let entity = schema.entities[name] else {
            throw error("unknown entity '\(name)'", line: line, context: context(), code: .unknownEntity)
        }
        return entity
    }

    /// The id `json` of an object of `entity`: of the entity's id type, a string id at most
    /// ``Limits/idBytesMax`` bytes.
    package static func id(_ json: JSONValue?, entity: EntityDescription, line: Int, context: @autoclosure () -> String) throws(InputError) -> ObjectID {
        guard let json else { throw error("missing \"id\"", line: line, context: context()) }
        guard let id = ObjectID(json: json, type: entity.idType) else {
            let expected = entity.idType == .string ? "strings" : "integers"
            throw error("\(entity.name) ids are \(expected), got \(json.typeName) (\(json.text))", line: line, context: context(),
                        code: .invalidID)
        }
        try checkLength(id, line: line, context: context())
        return id
    }

    static func checkLength(_ id: ObjectID, line: Int, context: @autoclosure () -> String) throws(InputError) {
        if case .string(let s) = id, s.utf8.count > Limits.idBytesMax {
            throw error("id is longer than \(Limits.idBytesMax) bytes", line: line, context: context(), code: .invalidID)
        }
    }

    /// The values of a JSON object, each read by its attribute's type (``Attribute/value(fromJSON:)``).
    /// With `nullAlways`, `null` is accepted for every attribute: an update's previous value of an attribute
    /// that a schema change added is `null` (the object had no value before the attribute existed).
    static func values(_ json: JSONValue, what: String, entity: EntityDescription, line: Int, context: @autoclosure () -> String,
                       nullAlways: Bool = false) throws(InputError) -> ObjectValues {
        let members = try members(json, what: "\"\(what)\"", line: line, context: context())
        var values = ObjectValues(minimumCapacity: members.count)
        for (name, v) in members {
            guard let attribute = entity.attribute(named: name) else {
                let e = entity.unknownAttributeError(name)
                throw error(e.description, line: line, context: context(), code: e.code)
            }
            guard values[name] == nil else {
                throw error("attribute '\(name)' is given twice", line: line, context: context())
            }
            if nullAlways, v == .null {
                values[name] = .null
                continue
            }
            do {
                values[name] = try attribute.value(fromJSON: v)
            } catch {
                throw InputValues.error(error.description, line: line, context: context(), code: error.code)
            }
        }
        return values
    }

    /// Throws when an insert lacks required attributes that have no default, naming them.
    static func checkRequired(_ values: ObjectValues, entity: EntityDescription, line: Int, context: @autoclosure () -> String) throws(InputError) {
        let missing = entity.missingRequired(in: values)
        guard missing.isEmpty else {
            let names = missing.map { "'\($0)'" }.joined(separator: ", ")
            let noun = missing.count == 1 ? "attribute" : "attributes"
            throw error("missing required \(noun) \(names) (no default)", line: line, context: context(), code: .missingRequired)
        }
    }
}
