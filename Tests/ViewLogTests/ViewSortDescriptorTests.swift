import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite("Sort descriptors")
struct SortDescriptorTests {
    static let good: [(String, [ViewSortDescriptor])] = [
        ("", []), ("   ", []),
        ("name", [ViewSortDescriptor(key: "name")]),
        ("sectionName, height desc, name", [ViewSortDescriptor(key: "sectionName"), ViewSortDescriptor(key: "height", ascending: false),
                                           ViewSortDescriptor(key: "name")]),
        ("height DESC", [ViewSortDescriptor(key: "height", ascending: false)]),
        ("height Descending,name ascending", [ViewSortDescriptor(key: "height", ascending: false), ViewSortDescriptor(key: "name")]),
        ("  id asc ,\tname  ", [ViewSortDescriptor(key: "id"), ViewSortDescriptor(key: "name")]),
        ("_a1 desc", [ViewSortDescriptor(key: "_a1", ascending: false)]),
    ]

    @Test(arguments: good)
    func parses(text: String, expected: [ViewSortDescriptor]) throws {
        #expect(try ViewSortDescriptor.parse(text) == expected)
    }

    static let bad: [(String, String, Int)] = [
        ("name,", "expected a sort key after ',', found end of input", 6),
        (",name", "expected a sort key, found ','", 1),
        ("name,,height", "expected a sort key after ',', found ','", 6),
        ("name up", "expected ASC, DESC, ',' or end of input after 'name', found 'up'", 6),
        ("name desc extra", "expected ',' or end of input after 'name desc', found 'extra'", 11),
        ("name asc, 3x", "expected a sort key after ',', found '3x'", 11),
        ("na-me", "expected ',' or end of input after 'na', found '-me'", 3),
        ("héight", "expected ',' or end of input after 'h', found 'éight'", 2),
    ]

    @Test(arguments: bad)
    func errors(text: String, message: String, column: Int) {
        #expect(throws: QueryError(.querySyntax, message, column: column)) { try ViewSortDescriptor.parse(text) }
    }

    @Test func description() {
        #expect(ViewSortDescriptor(key: "height", ascending: false).description == "height desc")
        #expect(ViewSortDescriptor(key: "name").description == "name")
    }
}

@Suite("Fetch request and view validation")
struct FetchRequestValidationTests {
    static let schema = Schema(entities: ["Employee": Fixture.employee, "Item": Fixture.item])

    @Test func validRequests() throws {
        try FetchRequest(entity: "Employee", predicate: ViewPredicate("height > 170"),
                         sortDescriptors: ViewSortDescriptor.parse("sectionName, height desc, id"),
                         sectionKey: "sectionName").validate(against: Self.schema)
        try FetchRequest(entity: "Item", sectionKey: "id").validate(against: Self.schema)
        try FetchRequest(entity: "Employee", predicate: ViewPredicate("height > $min"), variables: ["min": .int(1)])
            .validate(against: Self.schema)
    }

    @Test func invalidRequests() throws {
        #expect(throws: QueryError(.unknownEntity, "unknown entity 'Nope'", entity: "Nope")) { try FetchRequest(entity: "Nope").validate(against: Self.schema) }
        #expect(throws: QueryError(.unknownKey, "unknown sort key 'heigth' of entity 'Employee'", entity: "Employee", key: "heigth")) {
            try FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "heigth")]).validate(against: Self.schema)
        }
        #expect(throws: QueryError(.unknownKey, "unknown section key 'section' of entity 'Employee'", entity: "Employee",
                                         key: "section")) {
            try FetchRequest(entity: "Employee", sectionKey: "section").validate(against: Self.schema)
        }
        #expect(throws: QueryError(.missingVariable, "no value for variable $min")) {
            try FetchRequest(entity: "Employee", predicate: ViewPredicate("height > $min")).validate(against: Self.schema)
        }
        #expect(throws: QueryError(.unknownKey, "unknown attribute 'nope' of entity 'Item'", entity: "Item", key: "nope")) {
            try FetchRequest(entity: "Item", predicate: ViewPredicate("nope == 1")).validate(against: Self.schema)
        }
    }

    static func schemaText(view: String) -> String {
        """
        {"entities": {"Employee": {"id": "string", "attributes": {
            "name": {"type": "string"}, "height": {"type": "int", "optional": true},
            "sectionName": {"type": "string", "default": ""}, "hired": {"type": "date", "optional": true}}}},
         "views": {"v": \(view)}}
        """
    }

    @Test func namedViewsAreCheckedAtSchemaLoad() throws {
        let ok = try Schema(jsonText: Self.schemaText(view: """
            {"entity": "Employee", "where": "height > 170 AND hired < '2026-01-01T00:00:00Z' AND name BEGINSWITH $p",
             "sort": "sectionName, height desc, name", "section": "sectionName"}
            """))
        #expect(ok.views["v"]?.predicate != nil)
        let cases: [(String, String)] = [
            (#"{"entity": "Employee", "where": "heigth > 170"}"#, "view 'v': unknown attribute 'heigth' of entity 'Employee'"),
            (#"{"entity": "Employee", "where": "height > 'tall'"}"#,
             "view 'v': type mismatch: 'height' of Employee is int, compared with string \"tall\""),
            (#"{"entity": "Employee", "where": "height >"}"#,
             "view 'v': where: expected a key or a value after '>', found end of input (at column 9)"),
            (#"{"entity": "Employee", "where": "name MATCHES '(a)\\\\1'"}"#,
             "view 'v': regular expression \"(a)\\\\1\" is refused: backreferences are not allowed"),
            (#"{"entity": "Employee", "sort": "name up"}"#,
             "view 'v': sort: expected ASC, DESC, ',' or end of input after 'name', found 'up' (at column 6)"),
            (#"{"entity": "Employee", "sort": "name, salary"}"#, "view 'v': unknown sort key 'salary' of entity 'Employee'"),
            (#"{"entity": "Employee", "section": "nope"}"#, "view 'v': unknown section attribute 'nope' of Employee"),
        ]
        for (view, message) in cases {
            #expect(throws: SchemaError.invalidView(view: "v", reason: String(message.dropFirst("view 'v': ".count)))) {
                try Schema(jsonText: Self.schemaText(view: view))
            }
            do { _ = try Schema(jsonText: Self.schemaText(view: view)) } catch { #expect(error.description == message) }
        }
    }
}
