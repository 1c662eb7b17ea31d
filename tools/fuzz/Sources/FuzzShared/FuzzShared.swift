@_spi(Engine) import ViewLog

/// Fixtures shared by the fuzz targets: built once, used by every input.
public enum FuzzShared {
    /// The example schema of DESIGN §2 plus an entity with int ids.
    public static let schema: Schema = {
        let text = """
            {"entities": {
              "Employee": {"id": "string", "attributes": {
                "name": {"type": "string"}, "height": {"type": "int", "optional": true},
                "sectionName": {"type": "string", "default": ""}, "salary": {"type": "double", "default": 0},
                "active": {"type": "bool", "default": true}, "hired": {"type": "date", "optional": true},
                "nick": {"type": "string", "optional": true}}},
              "Badge": {"id": "int", "attributes": {"label": {"type": "string", "optional": true}}}}}
            """
        do { return try Schema(jsonText: text) } catch { fatalError("fuzz schema: \(error)") }
    }()

    /// A schema with relationships (DESIGN §10): key paths, quantifiers and aggregates resolve against it.
    public static let graphSchema: Schema = {
        let text = """
            {"entities": {
              "Employee": {"id": "string", "attributes": {"name": {"type": "string"}, "height": {"type": "int", "optional": true},
                "salary": {"type": "double", "default": 0}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"},
                                  "manager": {"to": "Employee", "optional": true, "inverse": "reports"}}},
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}, "floor": {"type": "int", "optional": true}}}}}
            """
        do { return try Schema(jsonText: text) } catch { fatalError("fuzz graph schema: \(error)") }
    }()

    /// Objects a compiled predicate is evaluated against: ordinary, nulls, extremes, non-ASCII.
    public static let employees: [(ObjectID, ObjectValues)] = [
        (.string("e1"), ["name": .string("Ann"), "height": .int(180), "sectionName": .string("A"), "salary": .double(1000.5),
                         "active": .bool(true), "hired": .date(Timestamp(milliseconds: 1_700_000_000_000)), "nick": .null]),
        (.string(""), ["name": .string(""), "height": .null, "sectionName": .string(""), "salary": .double(-0.0),
                       "active": .bool(false), "hired": .null, "nick": .string("x")]),
        (.string("Crème Brûlée 🇫🇷"), ["name": .string("Crème Brûlée 🇫🇷 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
                                      "height": .int(Int64.min), "sectionName": .string("Ω"), "salary": .double(.nan),
                                      "active": .bool(true), "hired": .date(Timestamp(milliseconds: Int64.max)),
                                      "nick": .string(String(repeating: "a", count: 300))]),
        (.string("e4"), ["name": .string("Bob"), "height": .int(Int64.max), "salary": .double(.infinity)]),  // missing keys read as null
        // The worst case of backtracking patterns (`.*a.*a.*b`): a long run of one letter.
        (.string("e5"), ["name": .string(String(repeating: "a", count: 4096)),
                         "nick": .string(String(repeating: "a", count: 1000) + "!")]),
    ]

    /// Values for `$variables` of the predicates.
    public static let variables: [String: Value] = [
        "s": .string("Ann"), "i": .int(170), "d": .double(2.5), "b": .bool(true), "n": .null,
        "t": .date(Timestamp(milliseconds: 0)), "p": .string("A.*"),
    ]
}
