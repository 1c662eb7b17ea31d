@_spi(Engine) import ViewLog

/// Random values for property-based tests, drawn from a seeded generator (see ``SeededGenerator``).
///
/// `jsonSafe` restricts values to those the JSON form can carry exactly: finite doubles, dates in years
/// 0001…9999. Without it, values include NaN (several payloads), infinities, -0.0 and any 64-bit date.
public enum RandomValues {
    /// Pieces of random strings: ASCII, multi-byte and astral scalars, a combining mark, controls, quotes.
    public static let stringPieces: [String] = [
        "a", "Z", "0", "_", " ", "é", "e\u{301}", "ß", "日本", "😀", "\u{0}", "\n", "\t", "\"", "\\", "\u{7F}",
        "\u{2028}", "\u{FFFD}", "\u{10FFFF}", "Ann", "x-y", "{}", "null",
    ]

    /// A random string of up to `maxPieces` pieces of ``stringPieces`` (possibly empty).
    public static func string(maxPieces: Int = 6, using g: inout some RandomNumberGenerator) -> String {
        let n = Int.random(in: 0...maxPieces, using: &g)
        var s = ""
        for _ in 0..<n { s += stringPieces[Int.random(in: 0..<stringPieces.count, using: &g)] }
        return s
    }

    /// A random 64-bit integer: small, extreme, or any.
    public static func int(using g: inout some RandomNumberGenerator) -> Int64 {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return Int64.random(in: -3...3, using: &g)
        case 1: return [Int64.min, Int64.max, Int64.min + 1, Int64.max - 1, 0][Int.random(in: 0..<5, using: &g)]
        case 2: return Int64.random(in: -1000...1000, using: &g)
        default: return Int64(bitPattern: g.next())
        }
    }

    /// A random double: simple, tiny, huge, any bit pattern (finite when `jsonSafe`).
    public static func double(jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<8, using: &g) {
        case 0: return Double(Int.random(in: -100...100, using: &g))
        case 1: return Double(Int.random(in: -100_000...100_000, using: &g)) / 100
        case 2: return [0.0, -0.0, 1e-300, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -1.5e300, 0.1][Int.random(in: 0..<7, using: &g)]
        case 3 where !jsonSafe:
            return [Double.nan, -Double.nan, Double.infinity, -Double.infinity,
                    Double(nan: 0x1234, signaling: false), Double(bitPattern: 0x7FF8_0000_DEAD_BEEF)][Int.random(in: 0..<6, using: &g)]
        default:
            let d = Double(bitPattern: g.next())
            return d.isFinite ? d : 1.25
        }
    }

    /// A random timestamp; within years 0001…9999 when `jsonSafe`.
    public static func timestamp(jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> Timestamp {
        if jsonSafe || Bool.random(using: &g) {
            // 0001-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z
            return Timestamp(milliseconds: Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &g))
        }
        return Timestamp(milliseconds: int(using: &g))
    }

    /// A random value of `attribute`'s type; `null` now and then when it is optional.
    public static func value(for attribute: Attribute, jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> Value {
        if attribute.isOptional, Int.random(in: 0..<5, using: &g) == 0 { return .null }
        return value(of: attribute.type, jsonSafe: jsonSafe, using: &g)
    }

    /// A random non-null value of `type`.
    public static func value(of type: AttributeType, jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> Value {
        switch type {
        case .string: return .string(string(using: &g))
        case .int: return .int(int(using: &g))
        case .double: return .double(double(jsonSafe: jsonSafe, using: &g))
        case .bool: return .bool(Bool.random(using: &g))
        case .date: return .date(timestamp(jsonSafe: jsonSafe, using: &g))
        }
    }

    /// A full object of `entity`: a value for every attribute.
    public static func values(for entity: EntityDescription, jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> ObjectValues {
        var values = ObjectValues(minimumCapacity: entity.attributes.count)
        for a in entity.attributes { values[a.name] = value(for: a, jsonSafe: jsonSafe, using: &g) }
        return values
    }

    /// Values for a random subset of `entity`'s attributes (non-empty when the entity has attributes).
    public static func someValues(for entity: EntityDescription, jsonSafe: Bool, using g: inout some RandomNumberGenerator) -> ObjectValues {
        var values: ObjectValues = [:]
        guard !entity.attributes.isEmpty else { return values }
        for a in entity.attributes where Bool.random(using: &g) { values[a.name] = value(for: a, jsonSafe: jsonSafe, using: &g) }
        if values.isEmpty, let a = entity.attributes.randomElement(using: &g) {
            values[a.name] = value(for: a, jsonSafe: jsonSafe, using: &g)
        }
        return values
    }

    /// A random id of `entity`'s id type.
    public static func id(for entity: EntityDescription, using g: inout some RandomNumberGenerator) -> ObjectID {
        switch entity.idType {
        case .string: return .string(string(using: &g))
        case .int: return .int(int(using: &g))
        }
    }
}

/// Random valid schemas and transactions for property-based tests.
public enum RandomSchemas {
    /// A random identifier (letters, digits, `_`; not starting with a digit; never `id`).
    public static func identifier(using g: inout some RandomNumberGenerator) -> String {
        let first = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
        let rest = first + Array("0123456789")
        var s = String(first[Int.random(in: 0..<first.count, using: &g)])
        for _ in 0..<Int.random(in: 0...10, using: &g) { s.append(rest[Int.random(in: 0..<rest.count, using: &g)]) }
        return s == "id" ? "id_" : s
    }

    /// A random attribute: any type, sometimes optional, sometimes with a default (JSON-safe, since schemas are
    /// stored as JSON).
    public static func attribute(named name: String, using g: inout some RandomNumberGenerator) -> Attribute {
        let type = AttributeType.allCases[Int.random(in: 0..<AttributeType.allCases.count, using: &g)]
        let optional = Int.random(in: 0..<3, using: &g) == 0
        var a = Attribute(name: name, type: type, isOptional: optional)
        if Int.random(in: 0..<3, using: &g) == 0 {
            a.defaultValue = optional && Bool.random(using: &g) ? .null : RandomValues.value(of: type, jsonSafe: true, using: &g)
        }
        return a
    }

    /// A random valid schema: 1…`maxEntities` entities of 0…`maxAttributes` attributes, and a few views.
    public static func schema(maxEntities: Int = 4, maxAttributes: Int = 8, using g: inout some RandomNumberGenerator) -> Schema {
        var entities: [String: EntityDescription] = [:]
        for _ in 0..<Int.random(in: 1...maxEntities, using: &g) {
            let name = identifier(using: &g)
            var attributes: [String: Attribute] = [:]
            for _ in 0..<Int.random(in: 0...maxAttributes, using: &g) {
                let attributeName = identifier(using: &g)
                attributes[attributeName] = attribute(named: attributeName, using: &g)
            }
            let idType: IDType = Bool.random(using: &g) ? .string : .int
            entities[name] = EntityDescription(name: name, idType: idType, attributes: Array(attributes.values))
        }
        var views: [String: ViewDefinition] = [:]
        let names = entities.keys.sorted()
        for _ in 0..<Int.random(in: 0...2, using: &g) {
            guard let entityName = names.randomElement(using: &g), let entity = entities[entityName] else { continue }
            let section = Bool.random(using: &g) ? entity.attributes.randomElement(using: &g)?.name : nil
            views[identifier(using: &g)] = ViewDefinition(
                entity: entityName,
                predicate: Bool.random(using: &g) ? "id != nil" : nil,
                sort: Bool.random(using: &g) ? (entity.attributes.randomElement(using: &g).map { "\($0.name) desc" } ?? "id desc") : nil,
                sectionKey: section,
                limit: Bool.random(using: &g) ? Int.random(in: 0...100, using: &g) : nil,
                offset: Bool.random(using: &g) ? Int.random(in: 0...100, using: &g) : nil)
        }
        return Schema(entities: entities, views: views)
    }

    /// A random transaction of 1…`maxChanges` changes against `schema`: inserts of full objects, updates with
    /// previous values, deletes with the removed object, and now and then a schema change (after which later
    /// changes use the new schema, as the log does).
    public static func transaction(schema: Schema, seq: UInt64, maxChanges: Int = 8, jsonSafe: Bool = false,
                                   using g: inout some RandomNumberGenerator) -> Transaction {
        var current = schema
        var changes: [Change] = []
        for _ in 0..<Int.random(in: 1...max(1, maxChanges), using: &g) {
            let roll = Int.random(in: 0..<100, using: &g)
            if roll < 3 {
                let next = self.schema(using: &g)
                changes.append(.schema(next, previous: current))
                current = next
                continue
            }
            guard let name = current.entityNames.randomElement(using: &g), let entity = current.entities[name] else { continue }
            let key = ObjectKey(entity: name, id: RandomValues.id(for: entity, using: &g))
            switch roll {
            case ..<45:
                changes.append(.insert(key, values: RandomValues.values(for: entity, jsonSafe: jsonSafe, using: &g)))
            case ..<80:
                let values = RandomValues.someValues(for: entity, jsonSafe: jsonSafe, using: &g)
                var previous = ObjectValues(minimumCapacity: values.count)
                for k in values.keys {
                    if let a = entity.attribute(named: k) { previous[k] = RandomValues.value(for: a, jsonSafe: jsonSafe, using: &g) }
                }
                changes.append(.update(key, values: values, previous: previous))
            default:
                changes.append(.delete(key, previous: RandomValues.values(for: entity, jsonSafe: jsonSafe, using: &g)))
            }
        }
        if changes.isEmpty { changes.append(.schema(current, previous: schema)) }
        let time = RandomValues.timestamp(jsonSafe: jsonSafe, using: &g)
        return Transaction(seq: seq, time: time, author: RandomValues.string(using: &g), changes: changes)
    }
}
