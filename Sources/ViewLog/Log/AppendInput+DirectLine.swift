extension AppendInput {
    /// Reads a line of the common shape — one change, `{"insert"|"update"|"delete": ENTITY, "id": ID,
    /// "values": {NAME: SCALAR, …}}` with its keys in any order — straight from its bytes into a ``ChangeRequest``:
    /// no `JSONValue` tree, no member lists filtered and searched, no key checks by name lists.
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
        guard p.index < bytes.count, bytes[p.index] == UInt8(ascii: "{") else { return nil }
        p.index += 1
        var op: String?, entityName: String?
        var idJSON: JSONValue?
        var valuesStart: Int?
        // The top-level members (at most one each of the operation, "id" and "values"); "values" is read after
        // them, once the entity is known, from where it starts.
        while true {  // one member per step: bounded by the line's length
            p.skipSpace()
            guard p.index < bytes.count, bytes[p.index] == UInt8(ascii: "\""), let key = try? p.string() else { return nil }
            p.skipSpace()
            guard p.index < bytes.count, bytes[p.index] == UInt8(ascii: ":") else { return nil }
            p.index += 1
            p.skipSpace()
            guard p.index < bytes.count else { return nil }
            switch key {
            case "insert", "update", "delete":
                guard op == nil, bytes[p.index] == UInt8(ascii: "\""), let name = try? p.string() else { return nil }
                op = key
                entityName = name
            case "id":
                guard idJSON == nil, bytes[p.index] != UInt8(ascii: "{"), bytes[p.index] != UInt8(ascii: "["),
                      let v = try? p.value(depth: 1) else { return nil }
                idJSON = v
            case "values":
                guard valuesStart == nil, bytes[p.index] == UInt8(ascii: "{") else { return nil }
                valuesStart = p.index
                guard skipFlatObject(&p) else { return nil }
            default:
                return nil
            }
            p.skipSpace()
            guard p.index < bytes.count else { return nil }
            if bytes[p.index] == UInt8(ascii: ",") { p.index += 1; continue }
            guard bytes[p.index] == UInt8(ascii: "}") else { return nil }
            p.index += 1
            break
        }
        p.skipSpace()
        guard p.index == bytes.count, let op, let entityName, let idJSON,
              let entity = schema.entities[entityName],
              let id = ObjectID(json: idJSON, type: entity.idType) else { return nil }
        if case .string(let s) = id, s.utf8.count > Limits.idBytesMax { return nil }
        switch op {
        case "delete":
            guard valuesStart == nil else { return nil }
            return Entry(line: line, author: nil, requests: [.delete(entity: entity.name, id: id)])
        case "insert":
            var values: ObjectValues = [:]
            if let start = valuesStart {
                p.index = start
                guard let v = flatValues(&p, entity: entity) else { return nil }
                values = v
            }
            guard entity.missingRequired(in: values).isEmpty else { return nil }
            return Entry(line: line, author: nil, requests: [.insert(entity: entity.name, id: id, values: values)])
        default:
            guard let start = valuesStart else { return nil }
            p.index = start
            guard let values = flatValues(&p, entity: entity), !values.isEmpty else { return nil }
            return Entry(line: line, author: nil, requests: [.update(entity: entity.name, id: id, values: values)])
        }
    }

    /// Steps over an object whose members are all scalars (no nested object or array); `false` for anything else.
    private static func skipFlatObject(_ p: inout JSONParser) -> Bool {
        p.index += 1
        p.skipSpace()
        if p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "}") { p.index += 1; return true }
        while true {  // one member per step: bounded by the line's length
            p.skipSpace()
            guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "\""), (try? p.string()) != nil else { return false }
            p.skipSpace()
            guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: ":") else { return false }
            p.index += 1
            p.skipSpace()
            guard p.index < p.bytes.count, p.bytes[p.index] != UInt8(ascii: "{"), p.bytes[p.index] != UInt8(ascii: "["),
                  (try? p.value(depth: 2)) != nil else { return false }
            p.skipSpace()
            guard p.index < p.bytes.count else { return false }
            if p.bytes[p.index] == UInt8(ascii: ",") { p.index += 1; continue }
            guard p.bytes[p.index] == UInt8(ascii: "}") else { return false }
            p.index += 1
            return true
        }
    }

    /// The values of a flat object (checked by ``skipFlatObject(_:)`` already), each read by its attribute's type
    /// as ``InputValues/values(_:what:entity:line:context:nullAlways:)`` reads it; `nil` where that would throw.
    private static func flatValues(_ p: inout JSONParser, entity: EntityDescription) -> ObjectValues? {
        var values = ObjectValues(minimumCapacity: entity.attributes.count)
        p.index += 1
        p.skipSpace()
        if p.bytes[p.index] == UInt8(ascii: "}") { return values }
        while true {  // one member per step: bounded by the line's length
            p.skipSpace()
            guard let name = try? p.string() else { return nil }
            p.skipSpace()
            p.index += 1  // ':'
            p.skipSpace()
            guard let json = try? p.value(depth: 2), let attribute = entity.attribute(named: name), values[name] == nil,
                  let value = try? attribute.value(fromJSON: json) else { return nil }
            values[name] = value
            p.skipSpace()
            if p.bytes[p.index] == UInt8(ascii: ",") { p.index += 1; continue }
            return values  // '}'
        }
    }
}
