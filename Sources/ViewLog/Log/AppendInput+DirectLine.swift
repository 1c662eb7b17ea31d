extension AppendInput {
    /// Reads a line of the common shape — one change, `{"insert"|"update"|"delete": ENTITY, "id": ID,
    /// "values": {NAME: SCALAR, …}}` with its keys in any order — straight from its bytes into a ``ChangeRequest``:
    /// no tree of the whole line, no member lists filtered and searched, no key checks by name lists.
    ///
    /// It accepts a line only when the general reader (``InputLines/json(_:lineNumber:)`` then
    /// ``entry(_:line:schema:)``) accepts it too, and then gives the same entry; for anything else — another shape,
    /// a nested value, any error — it returns `nil` and the caller reads the line the general way, which also
    /// names the error. `text` is the line without its `\n`.
    static func directEntry(_ text: Substring, line: Int, schema: Schema) -> Entry? {
        guard text.utf8.count <= Limits.lineBytesMax else { return nil }
        var text = text
        if text.utf8.last == 0x0D { text = Substring(text.utf8.dropLast()) }  // a "\r\n" line end
        return text.withUTF8 { directEntry($0, line: line, schema: schema) }
    }

    static func directEntry(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, schema: Schema) -> Entry? {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        var op: String?, entityName: String?
        var idJSON: JSONValue?
        var valueMembers: [(String, JSONValue)]?
        // At most one each of the operation, "id" and "values"; any other key declines the line.
        let read = forEachMember(&p) { key, p in
            switch key {
            case "insert", "update", "delete":
                guard op == nil, p.bytes[p.index] == UInt8(ascii: "\""), let name = try? p.string() else { return false }
                op = key
                entityName = name
            case "id":
                guard idJSON == nil, let v = scalar(&p) else { return false }
                idJSON = v
            case "values":
                guard valueMembers == nil else { return false }
                var members: [(String, JSONValue)] = []
                guard forEachMember(&p, { name, p in
                    guard let v = scalar(&p) else { return false }
                    members.append((name, v))
                    return true
                }) else { return false }
                valueMembers = members
            default:
                return false
            }
            return true
        }
        p.skipSpace()
        guard read, p.index == bytes.count, let op, let entityName, let idJSON,
              let entity = schema.entities[entityName],
              let id = ObjectID(json: idJSON, type: entity.idType) else { return nil }
        if case .string(let s) = id, s.utf8.count > Limits.idBytesMax { return nil }
        // The values as the general reader reads them; any error declines the line (the general reader names it).
        func values() -> ObjectValues? {
            guard let valueMembers else { return [:] }
            return try? InputValues.values(.object(valueMembers), what: "values", entity: entity, line: line, context: "")
        }
        switch op {
        case "delete":
            guard valueMembers == nil else { return nil }
            return Entry(line: line, author: nil, requests: [.delete(entity: entity.name, id: id)])
        case "insert":
            guard let values = values(), entity.missingRequired(in: values).isEmpty else { return nil }
            return Entry(line: line, author: nil, requests: [.insert(entity: entity.name, id: id, values: values)])
        default:
            guard valueMembers != nil, let values = values(), !values.isEmpty else { return nil }
            return Entry(line: line, author: nil, requests: [.update(entity: entity.name, id: id, values: values)])
        }
    }

    /// Walks the members of the JSON object at the parser's position: each key is read, then `body` reads its
    /// value (returning `false` to decline). `false` for anything but a well-formed object whose values `body` read.
    private static func forEachMember(_ p: inout JSONParser, _ body: (String, inout JSONParser) -> Bool) -> Bool {
        guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "{") else { return false }
        p.index += 1
        p.skipSpace()
        if p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "}") { p.index += 1; return true }
        while true {  // one member per step: bounded by the line's length
            p.skipSpace()
            guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "\""), let key = try? p.string() else { return false }
            p.skipSpace()
            guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: ":") else { return false }
            p.index += 1
            p.skipSpace()
            guard p.index < p.bytes.count, body(key, &p) else { return false }
            p.skipSpace()
            guard p.index < p.bytes.count else { return false }
            if p.bytes[p.index] == UInt8(ascii: ",") { p.index += 1; continue }
            guard p.bytes[p.index] == UInt8(ascii: "}") else { return false }
            p.index += 1
            return true
        }
    }

    /// A scalar value (not an object or an array), or `nil`.
    private static func scalar(_ p: inout JSONParser) -> JSONValue? {
        guard p.bytes[p.index] != UInt8(ascii: "{"), p.bytes[p.index] != UInt8(ascii: "[") else { return nil }
        return try? p.value(depth: 2)
    }
}
