@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The input of `viewlog append`: JSON lines, each one transaction, and the command-line shorthand.
///
/// ```
/// {"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180}}
/// {"update": "Employee", "id": "e1", "values": {"height": 182}}
/// {"delete": "Employee", "id": "e1"}
/// {"author": "sync", "changes": [ …changes as above… ]}
/// ```
///
/// Lines are read by ``InputLines`` (as `import` reads them): blank lines are skipped but still count for line
/// numbers, a line may end with `\r\n`. Reading checks everything the schema can tell — JSON syntax, keys, entities, attributes, value and id
/// types, `null` for required attributes, required attributes without a default missing from an insert, empty
/// transactions, line length — and nothing that depends on the store's state (whether an object exists): the
/// store checks that when it applies the requests. Insert values are kept as given: defaults are filled by the
/// store (``EntityDescription/completeInsert(_:)``).
@_spi(Engine) public enum AppendInput {
    /// One transaction read from one line.
    public struct Entry: Sendable, Hashable {
        /// The 1-based line it was read from.
        public var line: Int
        /// The `"author"` of a `{"author": …, "changes": […]}` line; `nil` otherwise (the CLI's `--author` applies).
        public var author: String?
        /// Its changes, in order; never empty.
        public var requests: [ChangeRequest]

        /// Makes an entry.
        public init(line: Int, author: String?, requests: [ChangeRequest]) {
            self.line = line
            self.author = author
            self.requests = requests
        }
    }

    /// Reads every line of `text`.
    /// - Returns: one entry per non-blank line, in order.
    /// - Throws: ``InputError`` for the first bad line, or ``InputError/noLines`` when no line is non-blank.
    public static func parse(_ text: String, schema: Schema) throws(InputError) -> [Entry] {
        var reader = Reader(text, schema: schema)
        var entries: [Entry] = []
        while let batch = try reader.next(upTo: Int.max) { entries += batch }  // two steps: the lines, then the end
        return entries
    }

    /// Reads the lines of a text a batch at a time, so that a caller can write each batch before reading the next
    /// (a bulk load then holds one batch of requests in memory, not the whole input's).
    public struct Reader {
        private var lines: InputLines
        private let schema: Schema
        /// Entries read so far.
        public private(set) var entryCount = 0
        /// The error of a bad line read after some good ones, thrown by the next call (after the caller has
        /// checked the good ones: the first bad line is named whatever is wrong with it).
        private var pending: InputError?

        /// Reads `text` against `schema`.
        public init(_ text: String, schema: Schema) {
            self.lines = InputLines(text)
            self.schema = schema
        }

        /// The entries of the next non-blank lines, at most `limit` (at least 1), or `nil` after the last. A batch
        /// ends before a bad line; the next call throws its error.
        /// - Throws: ``InputError`` for a bad line; ``InputError/noLines`` at the end when no line was non-blank.
        public mutating func next(upTo limit: Int) throws(InputError) -> [Entry]? {
            precondition(limit > 0, "a batch of no entries")
            if let pending { throw pending }
            var entries: [Entry] = []
            while entries.count < limit, let (number, line) = lines.nextLine() {  // one step per line: bounded by the text
                do {
                    if let entry = try AppendInput.parseLine(line, lineNumber: number, schema: schema) { entries.append(entry) }
                } catch {
                    pending = error
                    if entries.isEmpty { throw error }
                    break
                }
            }
            entryCount += entries.count
            guard entries.isEmpty else { return entries }
            if entryCount == 0 { throw .noLines }
            return nil
        }
    }

    /// Reads one line (without its `\n`; a trailing `\r` is ignored), for callers that stream a large input.
    /// A caller that streams must itself throw ``InputError/noLines`` when no line gave an entry.
    /// - Returns: the transaction of the line, or `nil` for a blank line.
    /// - Throws: ``InputError`` at `lineNumber`.
    public static func parseLine(_ text: Substring, lineNumber: Int, schema: Schema) throws(InputError) -> Entry? {
        // The common one-change line straight from its bytes; any other line, and every error, the general way.
        if let entry = directEntry(text, line: lineNumber, schema: schema) { return entry }
        guard let json = try InputLines.json(text, lineNumber: lineNumber) else { return nil }
        return try entry(json, line: lineNumber, schema: schema)
    }

    /// Reads one line; the same as the `Substring` overload.
    public static func parseLine(_ text: String, lineNumber: Int, schema: Schema) throws(InputError) -> Entry? {
        try parseLine(Substring(text), lineNumber: lineNumber, schema: schema)
    }

    /// Reads the transaction of one line's JSON document.
    static func entry(_ json: JSONValue, line: Int, schema: Schema) throws(InputError) -> Entry {
        guard case .object(let members) = json else {
            throw InputError(line: line, message: "expected a JSON object, got \(json.typeName)")
        }
        guard json["changes"] != nil || json["author"] != nil else {
            return Entry(line: line, author: nil, requests: [try request(json, line: line, prefix: "", schema: schema)])
        }
        if json["changes"] == nil, members.contains(where: { operations.contains($0.0) }) {
            throw InputError(line: line, message: #""author" goes only with "changes": {"author": …, "changes": [ …changes… ]}"#)
        }
        try InputValues.checkKeys(members, allowed: ["author", "changes"], line: line, context: "")
        var author: String?
        if let a = json["author"] {
            guard case .string(let s) = a else {
                throw InputError(line: line, message: "\"author\" must be a string, got \(a.typeName)")
            }
            author = s
        }
        guard let changesJSON = json["changes"] else {
            throw InputError(line: line, message: "a transaction needs \"changes\": an array of at least one change")
        }
        guard case .array(let documents) = changesJSON else {
            throw InputError(line: line, message: "\"changes\" must be an array of changes, got \(changesJSON.typeName)")
        }
        guard !documents.isEmpty else { throw InputError(line: line, message: "a transaction needs at least one change") }
        guard documents.count <= Limits.transactionChangesMax else {
            throw InputError(.tooManyChanges, line: line, message: "more than \(Limits.transactionChangesMax) changes in one transaction")
        }
        var requests: [ChangeRequest] = []
        requests.reserveCapacity(documents.count)
        for (i, document) in documents.enumerated() {
            requests.append(try request(document, line: line, prefix: "change \(i + 1)", schema: schema))
        }
        return Entry(line: line, author: author, requests: requests)
    }

    static let operations = ["insert", "update", "delete"]

    /// Reads one change: `{"insert"|"update"|"delete": ENTITY, "id": ID, "values": {…}}`; an update may add to and
    /// remove from sets beside or instead of its values (`"add": {"tags": [4]}, "remove": {"tags": [1]}`).
    static func request(_ json: JSONValue, line: Int, prefix: String, schema: Schema) throws(InputError) -> ChangeRequest {
        let members = try InputValues.members(json, what: "a change", line: line, context: prefix)
        let ops = members.filter { operations.contains($0.0) }
        guard ops.count == 1, let (op, entityJSON) = ops.first else {
            if ops.count > 1 {
                let names = ops.map { "\"\($0.0)\"" }.joined(separator: " and ")
                throw InputValues.error("more than one operation (\(names))", line: line, context: prefix)
            }
            if let (unknown, _) = members.first(where: { $0.0 != "id" && $0.0 != "values" }) {
                throw InputValues.error("unknown key \(JSONValue.string(unknown).text) (expected \"insert\", \"update\", \"delete\" or \"changes\")",
                                        line: line, context: prefix)
            }
            throw InputValues.error("missing the operation: \"insert\", \"update\" or \"delete\"", line: line, context: prefix)
        }
        let entity = try InputValues.entity(entityJSON, key: op, schema: schema, line: line,
                                            context: prefix.isEmpty ? op : prefix + ": " + op)
        if let whereJSON = json["where"] {
            return try requestByPredicate(json, op: op, entity: entity, whereJSON: whereJSON, members: members, line: line,
                                          prefix: prefix, schema: schema)
        }
        let allowed = op == "delete" ? [op, "id"] : op == "update" ? [op, "id", "values", "add", "remove"] : [op, "id", "values"]
        try InputValues.checkKeys(members, allowed: allowed, line: line, context: InputValues.context(prefix, op, entity.name, nil))
        let id = try InputValues.id(json["id"], entity: entity, line: line, context: InputValues.context(prefix, op, entity.name, nil))
        // Made only when an error needs it.
        func context() -> String { InputValues.context(prefix, op, entity.name, id) }
        switch op {
        case "insert":
            var values: ObjectValues = [:]
            if let v = json["values"] {
                values = try InputValues.values(v, what: "values", entity: entity, line: line, context: context())
            }
            try InputValues.checkRequired(values, entity: entity, line: line, context: context())
            return .insert(entity: entity.name, id: id, values: values)
        case "update":
            // Sets to add to and remove from (DESIGN §10): what they name is checked where the update is resolved.
            let add = try json["add"].map { j throws(InputError) in
                try InputValues.values(j, what: "add", entity: entity, line: line, context: context())
            }
            let remove = try json["remove"].map { j throws(InputError) in
                try InputValues.values(j, what: "remove", entity: entity, line: line, context: context())
            }
            guard add == nil, remove == nil else {
                let values = try json["values"].map { j throws(InputError) in
                    try InputValues.values(j, what: "values", entity: entity, line: line, context: context())
                }
                return .updateMembers(entity: entity.name, id: id, values: values ?? [:], add: add ?? [:], remove: remove ?? [:])
            }
            guard let v = json["values"] else { throw InputValues.error("missing \"values\"", line: line, context: context()) }
            let values = try InputValues.values(v, what: "values", entity: entity, line: line, context: context())
            guard !values.isEmpty else {
                throw InputValues.error("\"values\" is empty: an update needs at least one attribute", line: line, context: context())
            }
            return .update(entity: entity.name, id: id, values: values)
        default:
            return .delete(entity: entity.name, id: id)
        }
    }

    /// Reads a change by predicate (DESIGN §14): `{"update": ENTITY, "where": PREDICATE, "values": {…}, "max": N}`
    /// or `{"delete": ENTITY, "where": PREDICATE, "max": N}` (`max` optional). The predicate is checked against the
    /// schema here (the language of §4 and §10, no variables, no `id`); which objects it matches, the store decides
    /// inside the append's write.
    static func requestByPredicate(_ json: JSONValue, op: String, entity: EntityDescription, whereJSON: JSONValue,
                                   members: [(String, JSONValue)], line: Int, prefix: String,
                                   schema: Schema) throws(InputError) -> ChangeRequest {
        let context = InputValues.context(prefix, op, entity.name, nil) + " where"
        guard op != "insert" else {
            throw InputValues.error("an insert names its object by \"id\"; \"where\" goes with update and delete", line: line,
                                    context: InputValues.context(prefix, op, entity.name, nil))
        }
        if json["id"] != nil {
            throw InputValues.error("give either \"id\" or \"where\", not both", line: line, context: context)
        }
        try InputValues.checkKeys(members, allowed: op == "delete" ? [op, "where", "max"] : [op, "where", "values", "max"],
                                  line: line, context: context)
        guard case .string(let format) = whereJSON else {
            throw InputValues.error("\"where\" must be a predicate string, got \(whereJSON.typeName)", line: line, context: context)
        }
        let predicate: ViewPredicate
        do {
            predicate = try ViewPredicate(format)
            _ = try ObjectMatcher(entity: entity.name, predicate: predicate, schema: schema)
        } catch {
            throw InputValues.error(error.description, line: line, context: context, code: error.code)
        }
        var max: Int?
        if let m = json["max"] {
            guard case .int(let n) = m, n >= 0 else {
                throw InputValues.error("\"max\" must be a non-negative integer, got \(m.text)", line: line, context: context)
            }
            max = Int(n)
        }
        if op == "delete" { return .deleteMatching(entity: entity.name, predicate: predicate, max: max) }
        guard let v = json["values"] else { throw InputValues.error("missing \"values\"", line: line, context: context) }
        let values = try InputValues.values(v, what: "values", entity: entity, line: line, context: context)
        guard !values.isEmpty else {
            throw InputValues.error("\"values\" is empty: an update needs at least one attribute", line: line, context: context)
        }
        return .updateMatching(entity: entity.name, predicate: predicate, values: values, max: max)
    }

    /// The change of the command-line shorthand `viewlog append STORE OP ENTITY ID [KEY=VALUE …]`.
    ///
    /// - Parameters:
    ///   - op: `insert`, `update` or `delete`.
    ///   - id: the id as text, read by the entity's id type (`e1`, `42`).
    ///   - assignments: `KEY=VALUE`, the value read by the attribute's type (``Attribute/value(fromText:)``), or
    ///     `KEY:=JSON`, a JSON literal (`nick:=null`, `name:="Ann"`). Each attribute at most once; none for a
    ///     delete.
    /// - Throws: ``InputError`` (with line 0) naming the entity, attribute or assignment at fault.
    public static func shorthand(op: String, entity entityName: String, id idText: String, assignments: [String],
                                 schema: Schema) throws(InputError) -> ChangeRequest {
        guard operations.contains(op) else {
            throw InputError(.unknownOperation, line: 0, message: "unknown operation '\(op)' (expected insert, update or delete)")
        }
        guard let entity = schema.entities[entityName] else {
            throw InputError(.unknownEntity, line: 0, message: "\(op): unknown entity '\(entityName)'")
        }
        let entityContext = InputValues.context("", op, entity.name, nil)
        guard let id = ObjectID(text: idText, type: entity.idType) else {
            throw InputValues.error("id '\(idText)' is not an integer (\(entity.name) ids are integers)", line: 0, context: entityContext,
                                    code: .invalidID)
        }
        try InputValues.checkLength(id, line: 0, context: entityContext)
        let context = InputValues.context("", op, entity.name, id)
        if op == "delete" {
            guard assignments.isEmpty else {
                throw InputValues.error("a delete takes no KEY=VALUE assignments", line: 0, context: context)
            }
            return .delete(entity: entity.name, id: id)
        }
        guard assignments.count <= Limits.attributesMax else {
            throw InputValues.error("more than \(Limits.attributesMax) assignments", line: 0, context: context)
        }
        var values = ObjectValues(minimumCapacity: assignments.count)
        for assignment in assignments {
            let (name, value) = try assignmentValue(assignment, entity: entity, context: context)
            guard values[name] == nil else {
                throw InputValues.error("attribute '\(name)' is given twice", line: 0, context: context)
            }
            values[name] = value
        }
        if op == "insert" {
            try InputValues.checkRequired(values, entity: entity, line: 0, context: context)
            return .insert(entity: entity.name, id: id, values: values)
        }
        guard !values.isEmpty else {
            throw InputValues.error("an update needs at least one KEY=VALUE assignment", line: 0, context: context)
        }
        return .update(entity: entity.name, id: id, values: values)
    }

    /// Reads `KEY=VALUE` or `KEY:=JSON`.
    static func assignmentValue(_ assignment: String, entity: EntityDescription, context: String) throws(InputError) -> (String, Value) {
        // Split on bytes, not Characters: "=" followed by a combining mark is one Character.
        let utf8 = assignment.utf8
        guard let eq = utf8.firstIndex(of: UInt8(ascii: "=")) else {
            throw InputValues.error("'\(assignment)' is not KEY=VALUE or KEY:=JSON", line: 0, context: context)
        }
        var nameBytes = utf8[..<eq]
        let text = String(Substring(utf8[utf8.index(after: eq)...]))
        let isJSON = nameBytes.last == UInt8(ascii: ":")
        if isJSON { nameBytes = nameBytes.dropLast() }
        let name = String(Substring(nameBytes))
        guard !name.isEmpty else {
            throw InputValues.error("'\(assignment)' has no attribute name before '='", line: 0, context: context)
        }
        guard let attribute = entity.attribute(named: name) else {
            let e = entity.unknownAttributeError(name)
            throw InputValues.error(e.description, line: 0, context: context, code: e.code)
        }
        if isJSON {
            let json: JSONValue
            do { json = try JSONValue.parse(text) } catch {
                throw InputValues.error("\(name):=\(text): \(error.description)", line: 0, context: context, code: .malformedJSON)
            }
            do { return (name, try attribute.value(fromJSON: json)) } catch {
                throw InputValues.error(error.description, line: 0, context: context, code: error.code)
            }
        }
        do { return (name, try attribute.value(fromText: text)) } catch {
            throw InputValues.error(error.description, line: 0, context: context, code: error.code)
        }
    }
}
