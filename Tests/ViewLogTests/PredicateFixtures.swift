import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The small schema the query tests use.
enum Fixture {
    static let employee = EntityDescription(name: "Employee", idType: .string, attributes: [
        Attribute(name: "name", type: .string),
        Attribute(name: "height", type: .int, isOptional: true),
        Attribute(name: "salary", type: .double, defaultValue: .double(0)),
        Attribute(name: "active", type: .bool, defaultValue: .bool(true)),
        Attribute(name: "hired", type: .date, isOptional: true),
        Attribute(name: "sectionName", type: .string, defaultValue: .string("")),
        Attribute(name: "nick", type: .string, isOptional: true),
    ])

    /// An entity with int ids and an attribute spelled like a keyword.
    static let item = EntityDescription(name: "Item", idType: .int, attributes: [
        Attribute(name: "like", type: .int),
        Attribute(name: "weight", type: .double, isOptional: true),
    ])

    static func date(_ iso: String) -> Value { .date(Timestamp(iso8601: iso)!) }

    static func values(name: String = "Ann", height: Int64? = 180, salary: Double = 1000, active: Bool = true,
                       hired: String? = "2024-03-01T09:00:00.000Z", sectionName: String = "A",
                       nick: String? = nil) -> ObjectValues {
        [
            "name": .string(name),
            "height": height.map { .int($0) } ?? .null,
            "salary": .double(salary),
            "active": .bool(active),
            "hired": hired.map { date($0) } ?? .null,
            "sectionName": .string(sectionName),
            "nick": nick.map { .string($0) } ?? .null,
        ]
    }

    static let ann = values()
    /// Every optional attribute null.
    static let nulls = values(name: "Bob", height: nil, hired: nil, nick: nil)

    /// Parses, compiles against Employee and evaluates.
    static func eval(_ format: String, _ values: ObjectValues = ann, id: ObjectID = .string("e1"),
                     variables: [String: Value] = [:]) throws -> Bool {
        try ViewPredicate(format).compiled(for: employee, variables: variables).evaluate(values, id: id)
    }

    /// The error of parsing `format`, or of compiling it against `entity`.
    static func error(_ format: String, entity: EntityDescription = employee,
                      variables: [String: Value] = [:]) -> QueryError? {
        do {
            _ = try ViewPredicate(format).compiled(for: entity, variables: variables)
            return nil
        } catch {
            return error
        }
    }
}
