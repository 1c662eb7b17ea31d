@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        enum Operation { case insert, update, delete }
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        var op: Operation?
        var entity: EntityDescription?
        var idJSON: JSONValue?
        var values: (values: ObjectValues, given: UInt64)?
        var valuesAt: Int?  // where "values" is, when it came before the operation (its entity not known yet)
        // At most one each of the operation, "id" and "values"; any other key declines the line.
        let read = forEachMember(&p) { key, p in
            if let keyOp: Operation = matches(key, "insert") ? .insert : matches(key, "update") ? .update
                : matches(key, "delete") ? .delete : nil {
                guard op == nil, p.bytes[p.index] == UInt8(ascii: "\""), let name = try? p.string(),
                      let e = schema.entities[name] else { return false }
                op = keyOp
                entity = e
            } else if matches(key, "id") {
                guard idJSON == nil, let v = scalar(&p) else { return false }
                idJSON = v
            } else if matches(key, "values") {
                guard values == nil, valuesAt == nil else { return false }
                if let entity {
                    guard let v = directValues(&p, entity: entity) else { return false }
                    values = v
                } else {
                    valuesAt = p.index
                    guard forEachMember(&p, { _, p in scalar(&p) != nil }) else { return false }
                }
            } else {
                return false
            }
            return true
        }
        p.skipSpace()
        guard read, p.index == bytes.count, let op, let entity, let idJSON,
              let id = ObjectID(json: idJSON, type: entity.idType) else { return nil }
        if case .string(let s) = id, s.utf8.count > Limits.idBytesMax { return nil }
        if let valuesAt {
            var q = JSONParser(bytes: bytes)
            q.index = valuesAt
            guard let v = directValues(&q, entity: entity) else { return nil }
            values = v
        }
        switch op {
        case .delete:
            guard values == nil else { return nil }
            return Entry(line: line, author: nil, requests: [.delete(entity: entity.name, id: id)])
        case .insert:
            guard entity.attributes.count <= 64 else { return nil }  // the bit set of given attributes holds 64
            let given = values?.given ?? 0
            for (i, a) in entity.attributes.enumerated() where !a.isOptional && a.insertDefault == nil && given & (1 << i) == 0 {
                return nil  // a required attribute missing: the general reader names it
            }
            return Entry(line: line, author: nil, requests: [.insert(entity: entity.name, id: id, values: values?.values ?? [:])])
        case .update:
            guard let values, !values.values.isEmpty else { return nil }
            return Entry(line: line, author: nil, requests: [.update(entity: entity.name, id: id, values: values.values)])
        }
    }

    /// The values of the JSON object at the parser's position, read as the general reader reads them
    /// (``InputValues/values(_:what:entity:line:context:nullAlways:)``, each by ``Attribute/value(fromJSON:)``),
    /// with the set of attributes given (bit `i`: `entity.attributes[i]`); `nil` for anything the general reader
    /// would refuse or that this one does not read (an escaped name, more than 64 attributes).
    private static func directValues(_ p: inout JSONParser, entity: EntityDescription) -> (values: ObjectValues, given: UInt64)? {
        let attributes = entity.attributes
        guard attributes.count <= 64 else { return nil }
        var values = ObjectValues(minimumCapacity: attributes.count)
        var given: UInt64 = 0
        let read = forEachMember(&p) { key, p in
            // Names compared as bytes, in the schema's order: no String made and hashed per value.
            guard let i = attributes.firstIndex(where: { matches(key, $0.name) }), given & (1 << i) == 0,
                  let json = scalar(&p), let value = try? attributes[i].value(fromJSON: json) else { return false }
            given |= 1 << i
            values[attributes[i].name] = value
            return true
        }
        return read ? (values, given) : nil
    }

    /// Whether a key's bytes are those of `word`.
    private static func matches(_ key: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        key.count == word.utf8CodeUnitCount && (key.isEmpty || memcmp(key.baseAddress!, word.utf8Start, key.count) == 0)
    }

    /// Whether a key's bytes are the UTF-8 of `name`.
    private static func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: String) -> Bool {
        name.utf8.count == key.count && (name.utf8.withContiguousStorageIfAvailable { n in
            key.isEmpty || memcmp(key.baseAddress!, n.baseAddress!, key.count) == 0
        } ?? name.utf8.elementsEqual(key))
    }

    /// Walks the members of the JSON object at the parser's position: each key's bytes are read (a key with an
    /// escape declines), then `body` reads its value (returning `false` to decline). `false` for anything but a
    /// well-formed object whose values `body` read.
    private static func forEachMember(_ p: inout JSONParser, _ body: (UnsafeBufferPointer<UInt8>, inout JSONParser) -> Bool) -> Bool {
        guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "{") else { return false }
        p.index += 1
        p.skipSpace()
        if p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "}") { p.index += 1; return true }
        while true {  // one member per step: bounded by the line's length
            p.skipSpace()
            guard let key = p.plainStringBytes() else { return false }
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
