@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The JSON document of a transaction, as `viewlog log --json` and `export` print it and `import` reads it
///:
///
/// ```
/// {"seq": 3, "time": "2026-11-22T10:00:00.000Z", "author": "cli", ("reverts": [2, 1], only for a revert)
///  "changes": [{"op": "insert", "entity": "Employee", "id": "e1", "values": {…}},
///              {"op": "update", "entity": "Employee", "id": "e1", "values": {…}, "previous": {…}},
///              {"op": "delete", "entity": "Employee", "id": "e1", "previous": {…}},
///              {"op": "schema", "schema": {…}, "previous": {…}},
///              {"op": "migrate", "steps": [{"renameAttribute": {…}}, …], "schema": {…}, "previous": {…}}]}
/// ```
///
/// Ids keep their schema type; values are in attribute order. A schema change applies to the changes after it
/// in the same transaction, when writing and when reading.
extension Transaction {
    /// The JSON document of this transaction; `schema` is the schema in force before it (values of entities the
    /// schema lacks are written with their keys sorted).
    @_spi(Engine) public func json(schema: Schema) -> JSONValue {
        var current = (deletes: schema, others: schema)
        var documents: [JSONValue] = []
        documents.reserveCapacity(changes.count)
        for change in changes {
            if case .delete = change { documents.append(change.json(schema: current.deletes)) } else { documents.append(change.json(schema: current.others)) }
            if let next = change.schemasOfRest { current = next }
        }
        var members: [(String, JSONValue)] = [
            ("seq", .int(Int64(clamping: seq))),
            ("time", .string(time.iso8601)),
            ("author", .string(author)),
        ]
        // Only a revert has the member (DESIGN §14): an ordinary transaction's document is as it always was.
        if !reverts.isEmpty { members.append(("reverts", .array(reverts.map { .int(Int64(clamping: $0)) }))) }
        members.append(("changes", .array(documents)))
        return .object(members)
    }

    /// Reads a transaction from its JSON document (one line of `export`), checking it against `schema`, the schema
    /// in force before it.
    ///
    /// Checks the document's shape and every value's type, not the store's state (whether an inserted object is
    /// new, or an update's `previous` matches): that is the store's job.
    /// - Parameters:
    ///   - line: the 1-based input line the document came from, for errors; `0` when there is none.
    /// - Throws: ``InputError`` naming the line, the change and what is wrong.
    @_spi(Engine) public init(json: JSONValue, schema: Schema, line: Int = 0) throws(InputError) {
        let members = try InputValues.members(json, what: "a transaction", line: line, context: "")
        try InputValues.checkKeys(members, allowed: ["seq", "time", "author", "reverts", "changes"], line: line, context: "")
        guard case .int(let s)? = json["seq"], s >= 1 else {
            throw InputError(line: line, message: "\"seq\" must be an integer of at least 1")
        }
        let seq = UInt64(s)
        let context = "seq \(seq)"
        guard case .string(let timeText)? = json["time"] else {
            throw InputValues.error("\"time\" must be an ISO-8601 date string", line: line, context: context)
        }
        guard let time = Timestamp(iso8601: timeText) else {
            throw InputValues.error("\"time\": '\(timeText)' \(Timestamp.problem(iso8601: timeText))", line: line, context: context,
                                    code: .malformedDate)
        }
        guard case .string(let author)? = json["author"] else {
            throw InputValues.error("\"author\" must be a string", line: line, context: context)
        }
        var reverts: [UInt64] = []
        if let list = json["reverts"] {
            guard case .array(let items) = list, !items.isEmpty, items.count <= Limits.revertsMax else {
                throw InputValues.error("\"reverts\" must be an array of 1 to \(Limits.revertsMax) seqs", line: line, context: context)
            }
            for item in items {
                guard case .int(let r) = item, r >= 1, UInt64(r) < seq, reverts.last.map({ UInt64(r) < $0 }) ?? true else {
                    throw InputValues.error("\"reverts\" must list seqs below \(seq), descending", line: line, context: context)
                }
                reverts.append(UInt64(r))
            }
        }
        guard case .array(let documents)? = json["changes"] else {
            throw InputValues.error("\"changes\" must be an array of changes", line: line, context: context)
        }
        guard !documents.isEmpty else {
            throw InputValues.error("a transaction needs at least one change", line: line, context: context)
        }
        guard documents.count <= Limits.transactionChangesMax else {
            throw InputValues.error("more than \(Limits.transactionChangesMax) changes", line: line, context: context,
                                    code: .tooManyChanges)
        }
        var current = (deletes: schema, others: schema)
        var changes: [Change] = []
        changes.reserveCapacity(documents.count)
        for (i, document) in documents.enumerated() {
            let isDelete = document["op"] == .string("delete")
            let change = try Change(json: document, schema: isDelete ? current.deletes : current.others, line: line,
                                    context: "\(context), change \(i + 1)")
            if let next = change.schemasOfRest { current = next }
            changes.append(change)
        }
        self.init(seq: seq, time: time, author: author, changes: changes, reverts: reverts)
    }
}

extension Change {
    /// The JSON document of this change (see ``Transaction/json(schema:)``); `schema` gives the attribute order.
    @_spi(Engine) public func json(schema: Schema) -> JSONValue {
        func entity(_ key: ObjectKey) -> EntityDescription {
            schema.entities[key.entity] ?? EntityDescription(name: key.entity, idType: key.id.type, attributes: [])
        }
        switch self {
        case let .insert(key, values):
            return .object([("op", .string("insert")), ("entity", .string(key.entity)), ("id", key.id.json),
                            ("values", entity(key).json(values))])
        case let .update(key, values, previous):
            let e = entity(key)
            var members: [(String, JSONValue)] = [("op", .string("update")), ("entity", .string(key.entity)), ("id", key.id.json)]
            // A set's pair is the members added and removed (DESIGN §10): printed as "add" and "remove", each
            // naming the sets the update added to or removed from (a pair that did neither, in "add", as []).
            let sets = values.filter { $0.value.isSet }
            if sets.count < values.count || sets.isEmpty {
                members += [("values", e.json(values.filter { sets[$0.key] == nil })),
                            ("previous", e.json(previous.filter { sets[$0.key] == nil }))]
            }
            let removed = previous.filter { sets[$0.key] != nil && !$0.value.memberIDs.isEmpty }
            let added = sets.filter { !$0.value.memberIDs.isEmpty || removed[$0.key] == nil }
            if !added.isEmpty { members.append(("add", e.json(added))) }
            if !removed.isEmpty { members.append(("remove", e.json(removed))) }
            return .object(members)
        case let .delete(key, previous):
            return .object([("op", .string("delete")), ("entity", .string(key.entity)), ("id", key.id.json),
                            ("previous", entity(key).json(previous))])
        case let .schema(new, previous):
            return .object([("op", .string("schema")), ("schema", new.json), ("previous", previous.json)])
        case let .migration(migration, new, previous):
            return .object([("op", .string("migrate")), ("steps", migration.json), ("schema", new.json),
                            ("previous", previous.json)])
        }
    }

    /// Reads one change of a transaction document against `schema`.
    init(json: JSONValue, schema: Schema, line: Int, context prefix: String) throws(InputError) {
        let members = try InputValues.members(json, what: "a change", line: line, context: prefix)
        guard case .string(let op)? = json["op"] else {
            throw InputValues.error("\"op\" must be \"insert\", \"update\", \"delete\" or \"schema\"", line: line, context: prefix)
        }
        if op == "schema" || op == "migrate" {
            let keys = op == "schema" ? ["op", "schema", "previous"] : ["op", "steps", "schema", "previous"]
            try InputValues.checkKeys(members, allowed: keys, line: line, context: prefix + ": " + op)
            func read(_ key: String) throws(InputError) -> Schema {
                guard let document = json[key] else {
                    throw InputValues.error("missing \"\(key)\"", line: line, context: prefix + ": schema")
                }
                do { return try Schema(json: document) } catch {
                    throw InputValues.error("\"\(key)\": \(error.description)", line: line, context: prefix + ": schema")
                }
            }
            if op == "schema" {
                self = .schema(try read("schema"), previous: try read("previous"))
                return
            }
            guard let steps = json["steps"] else { throw InputValues.error("missing \"steps\"", line: line, context: prefix + ": migrate") }
            let migration: Migration
            do { migration = try Migration(json: steps) } catch {
                throw InputValues.error("\"steps\": \(error.description)", line: line, context: prefix + ": migrate")
            }
            self = .migration(migration, schema: try read("schema"), previous: try read("previous"))
            return
        }
        let allowed: [String]
        switch op {
        case "insert": allowed = ["op", "entity", "id", "values"]
        case "update": allowed = ["op", "entity", "id", "values", "previous", "add", "remove"]
        case "delete": allowed = ["op", "entity", "id", "previous"]
        default:
            throw InputValues.error("unknown op \(JSONValue.string(op).text) (expected \"insert\", \"update\", \"delete\" or \"schema\")",
                                    line: line, context: prefix)
        }
        try InputValues.checkKeys(members, allowed: allowed, line: line, context: prefix + ": " + op)
        guard let entityJSON = json["entity"] else {
            throw InputValues.error("missing \"entity\"", line: line, context: prefix + ": " + op)
        }
        let entity = try InputValues.entity(entityJSON, key: "entity", schema: schema, line: line, context: prefix + ": " + op)
        let id = try InputValues.id(json["id"], entity: entity, line: line,
                                    context: InputValues.context(prefix, op, entity.name, nil))
        let key = ObjectKey(entity: entity.name, id: id)
        let context = InputValues.context(prefix, op, entity.name, id)
        func values(_ name: String, nullAlways: Bool = false) throws(InputError) -> ObjectValues {
            guard let document = json[name] else { throw InputValues.error("missing \"\(name)\"", line: line, context: context) }
            return try InputValues.values(document, what: name, entity: entity, line: line, context: context, nullAlways: nullAlways)
        }
        switch op {
        case "insert":
            self = .insert(key, values: try values("values"))
        case "update":
            // An update that changed only sets logs no "values" and "previous".
            let setsOnly = (json["add"] != nil || json["remove"] != nil) && json["values"] == nil && json["previous"] == nil
            var new: ObjectValues = try setsOnly ? [:] : values("values")
            var previous: ObjectValues = try setsOnly ? [:] : values("previous", nullAlways: true)
            guard new.count == previous.count, new.keys.allSatisfy({ previous[$0] != nil }) else {
                throw InputValues.error("\"previous\" must have exactly the attributes of \"values\"", line: line, context: context)
            }
            if let name = new.keys.sorted().first(where: { entity.attribute(named: $0)?.isToMany == true }) {
                throw InputValues.error("relationship '\(name)' is a set: an update logs what it did to it in \"add\" and \"remove\"",
                                        line: line, context: context)
            }
            let added = try json["add"].map { j throws(InputError) in
                try InputValues.values(j, what: "add", entity: entity, line: line, context: context)
            } ?? [:]
            let removed = try json["remove"].map { j throws(InputError) in
                try InputValues.values(j, what: "remove", entity: entity, line: line, context: context)
            } ?? [:]
            for name in Set(added.keys).union(removed.keys).sorted() {
                guard entity.attribute(named: name)?.isToMany == true else {
                    throw InputValues.error("\"add\" and \"remove\" name sets, and '\(name)' is not a to-many relationship",
                                            line: line, context: context)
                }
                let a = added[name] ?? .set([]), r = removed[name] ?? .set([])
                if let both = r.sharedMember(with: a) {
                    throw InputValues.error("relationship '\(name)': \(both.json.text) is both added and removed", line: line, context: context)
                }
                new[name] = a
                previous[name] = r
            }
            self = .update(key, values: new, previous: previous)
        default:
            self = .delete(key, previous: try values("previous"))
        }
    }
}
