@_spi(Engine) import ViewLog

/// The JSON documents of the CLI's `--json` output (DESIGN §7) that are made outside the library's own types, in
/// one place: the CLI prints them, the server (DESIGN §12) serves them unchanged.
package enum Documents {
    /// One document per named view of `schema`, in name order (`views --json`).
    package static func views(_ schema: Schema, stored: [String: StoredViewStatistics] = [:]) -> [JSONValue] {
        schema.views.keys.sorted().map { name in
            guard case .object(let definition) = Schema.viewJSON(schema.views[name]!) else { preconditionFailure("a view is an object") }
            var members: [(String, JSONValue)] = [("name", .string(name))] + definition
            // `views --storage`: the stored rows and bytes of each view (DESIGN §11).
            if let s = stored[name] {
                members += [("stored", .bool(s.isStored)), ("rows", .int(Int64(s.rows))), ("bytes", .int(Int64(s.bytes)))]
            }
            return .object(members)
        }
    }

    /// The object `idText` of `entityName` at `position` (checked against the head by the caller), for `get`, its derived
    /// values (``Context/derivedValues(of:)``) among its own.
    /// Throws when the entity is unknown, the id is not of its type, or the object is absent there.
    package static func lookUp(_ store: LogStore, entity entityName: String, id idText: String,
                               at position: UInt64) throws -> (EntityDescription, ObjectID, ObjectValues) {
        let schema = try store.schema(at: position)
        let entity = try schema.entity(named: entityName)
        guard let objectID = ObjectID(text: idText, type: entity.idType) else {
            throw RequestError(.invalidID, "id '\(idText)' is not an integer (\(entity.name) ids are integers)")
        }
        let key = ObjectKey(entity: entity.name, id: objectID)
        guard var values = try store.object(key, at: position) else {
            throw StoreError.objectNotFound(key, position: position)
        }
        if !entity.derived.isEmpty, let derived = try Context(store: store, name: "viewlog", at: position).derivedValues(of: key) {
            values.merge(derived) { own, _ in own }
        }
        return (entity, objectID, values)
    }

    /// The `get` document of `entityName` `idText` at `position`: `{"position": 9, "entity": "Employee", "id":
    /// "e1", "values": {…}}` (see ``lookUp(_:entity:id:at:)``).
    package static func object(_ store: LogStore, entity entityName: String, id idText: String,
                               at position: UInt64) throws -> JSONValue {
        let (entity, objectID, values) = try lookUp(store, entity: entityName, id: idText, at: position)
        return .object([
            ("position", .int(Int64(position))), ("entity", .string(entity.name)), ("id", objectID.json),
            ("values", entity.stateJSON(values)),
        ])
    }

    /// The `stats` document.
    package static func stats(_ s: StoreStatistics) -> JSONValue {
        let entities = s.objectsByEntity.keys.sorted().map { ($0, JSONValue.int(Int64(s.objectsByEntity[$0]!))) }
        var fields: [(String, JSONValue)] = [
            ("head", .int(Int64(s.head))), ("horizon", .int(Int64(s.horizon))), ("objects", .int(Int64(s.objects))),
            ("entities", .object(entities)),
            ("logBytes", .int(Int64(s.logBytes))), ("objectBytes", .int(Int64(s.objectBytes))),
            ("usedBytes", .int(Int64(s.usedBytes))), ("mapSizeBytes", .int(Int64(s.mapSizeBytes))),
        ]
        // Shown only when the store has some, so a small store's output is as it always was.
        if !s.checkpoints.isEmpty || s.checkpointBuilding != nil {
            fields.append(("checkpoints", checkpoints(s)))
        }
        return .object(fields)
    }

    /// The checkpoints as `checkpoints --json` and `stats --json` print them.
    package static func checkpoints(_ s: StoreStatistics) -> JSONValue {
        .object([
            ("complete", .array(s.checkpoints.map { .int(Int64($0)) })),
            ("building", s.checkpointBuilding.map { .int(Int64($0)) } ?? .null),
            ("bytes", .int(Int64(s.checkpointBytes))),
        ])
    }

    /// The `verify` document.
    package static func verify(_ report: VerifyReport) -> JSONValue {
        .object([
            ("ok", .bool(report.isOK)), ("transactions", .int(Int64(report.transactions))),
            ("objects", .int(Int64(report.objects))), ("problems", .array(report.problems.map { .string($0) })),
        ])
    }

    /// The `log` documents of transactions `from`+1 … `to` (both checked against the head by the caller), at most
    /// `limit` of them, each as `log --json` prints it (with the schema of its own position), to `body`.
    /// - Returns: the seq of the last transaction given.
    @discardableResult
    package static func log(_ store: LogStore, from: UInt64, to: UInt64, limit: UInt64 = .max,
                            _ body: (JSONValue) throws -> Void) throws -> UInt64 {
        guard from < to, limit > 0 else { return from }
        let end = limit >= to - from ? to : from + limit
        var schema = try store.schema(at: from)
        try store.forEachTransaction(after: from, through: end) { t in
            for s in t.changes.compactMap(\.newSchema) { schema = s }
            try body(t.json(schema: schema))
        }
        return end
    }
}

extension EntityDescription {
    /// An object's values for output of its state (`get`, `query`): every attribute of the entity, its absent value
    /// for one the object has no value of (an attribute added by a schema update after it was written: `null`, or
    /// `[]` for a to-many), and every derived attribute, in code-point order.
    package func stateJSON(_ values: ObjectValues) -> JSONValue {
        .object(valueNames.map { name in (name, (values[name] ?? attribute(named: name)?.absentValue ?? .null).json) })
    }
}

