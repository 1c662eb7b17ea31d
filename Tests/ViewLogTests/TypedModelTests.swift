import Foundation
import Testing
@_spi(Engine) import ViewLog

// MARK: - Fixtures

/// An entity with an attribute of every type, required and optional.
private let thingEntity = EntityDescription(name: "Thing", idType: .string, attributes: [
    Attribute(name: "text", type: .string),
    Attribute(name: "count", type: .int),
    Attribute(name: "big", type: .int),
    Attribute(name: "small", type: .int),
    Attribute(name: "byte", type: .int),
    Attribute(name: "ratio", type: .double),
    Attribute(name: "single", type: .double),
    Attribute(name: "flag", type: .bool),
    Attribute(name: "when", type: .date),
    Attribute(name: "stamp", type: .date),
    Attribute(name: "role", type: .string),
    Attribute(name: "wholeAsDouble", type: .int),
    Attribute(name: "maybeText", type: .string, isOptional: true),
    Attribute(name: "maybeCount", type: .int, isOptional: true),
    Attribute(name: "maybeRatio", type: .double, isOptional: true),
    Attribute(name: "maybeFlag", type: .bool, isOptional: true),
    Attribute(name: "maybeWhen", type: .date, isOptional: true),
    Attribute(name: "maybeStamp", type: .date, isOptional: true),
    Attribute(name: "maybeRole", type: .string, isOptional: true),
    Attribute(name: "unused", type: .string, isOptional: true, defaultValue: .string("x")),
])

private enum Role: String, Codable, Equatable {
    case engineer, manager
}

private struct Thing: EntityType, Equatable {
    static let entityName = "Thing"
    var id: String
    var text: String
    var count: Int
    var big: Int64
    var small: Int32
    var byte: UInt8
    var ratio: Double
    var single: Float
    var flag: Bool
    var when: Date
    var stamp: Timestamp
    var role: Role
    var wholeAsDouble: Double
    var maybeText: String?
    var maybeCount: Int?
    var maybeRatio: Double?
    var maybeFlag: Bool?
    var maybeWhen: Date?
    var maybeStamp: Timestamp?
    var maybeRole: Role?
}

private func sampleThing(optionals: Bool) -> Thing {
    Thing(
        id: "t1", text: "hello", count: -42, big: .max, small: .min, byte: 255, ratio: 0.1, single: 1.5,
        // .125 s is exact in binary, so the decoded `Date` is equal, not only equal to the millisecond.
        flag: true, when: Date(timeIntervalSince1970: 1_795_341_600.125), stamp: Timestamp(milliseconds: -1),
        role: .manager, wholeAsDouble: 7,
        maybeText: optionals ? "maybe" : nil, maybeCount: optionals ? 0 : nil, maybeRatio: optionals ? -2.5 : nil,
        maybeFlag: optionals ? false : nil, maybeWhen: optionals ? Date(timeIntervalSince1970: 0) : nil,
        maybeStamp: optionals ? Timestamp(milliseconds: 86_400_000) : nil, maybeRole: optionals ? .engineer : nil)
}

/// The example of the DESIGN and of ``EntityType``'s documentation.
private struct Employee: EntityType, Equatable {
    static let entityName = "Employee"
    var id: String
    var name: String
    var height: Int?
    var hired: Date?
}

private let employeesSchemaJSON = """
{"entities": {"Employee": {"id": "string", "attributes": {
  "name": {"type": "string"}, "height": {"type": "int", "optional": true},
  "sectionName": {"type": "string", "default": ""}, "salary": {"type": "double", "default": 0},
  "active": {"type": "bool", "default": true}, "hired": {"type": "date", "optional": true}}},
 "Badge": {"id": "int", "attributes": {"label": {"type": "string"}}}}}
"""

private func employeeEntity() throws -> EntityDescription {
    try Schema(jsonText: employeesSchemaJSON).entity(named: "Employee")
}

private func badgeEntity() throws -> EntityDescription {
    try Schema(jsonText: employeesSchemaJSON).entity(named: "Badge")
}

private struct Badge: EntityType, Equatable {
    static let entityName = "Badge"
    var id: Int
    var label: String
}

private struct Badge64: EntityType, Equatable {
    static let entityName = "Badge"
    var id: Int64
    var label: String
}

private let encoder = ObjectValuesEncoder()
private let decoder = ObjectValuesDecoder()

// MARK: - Round trips

@Suite("Typed models")
struct TypedModelTests {
    @Test func roundTripOfEveryTypeWithOptionalsSet() throws {
        let thing = sampleThing(optionals: true)
        let (id, values) = try encoder.encode(thing, entity: thingEntity)
        #expect(id == .string("t1"))
        #expect(values == [
            "text": .string("hello"), "count": .int(-42), "big": .int(.max), "small": .int(Int64(Int32.min)),
            "byte": .int(255), "ratio": .double(0.1), "single": .double(1.5), "flag": .bool(true),
            "when": .date(Timestamp(milliseconds: 1_795_341_600_125)), "stamp": .date(Timestamp(milliseconds: -1)),
            "role": .string("manager"), "wholeAsDouble": .int(7),
            "maybeText": .string("maybe"), "maybeCount": .int(0), "maybeRatio": .double(-2.5),
            "maybeFlag": .bool(false), "maybeWhen": .date(Timestamp(milliseconds: 0)),
            "maybeStamp": .date(Timestamp(milliseconds: 86_400_000)), "maybeRole": .string("engineer"),
        ])
        #expect(values["unused"] == nil, "an attribute the type lacks is not set (an insert gives its default)")
        let back = try decoder.decode(Thing.self, id: id, values: values, entity: thingEntity)
        #expect(back == thing)
    }

    @Test func roundTripOfEveryTypeWithOptionalsNil() throws {
        let thing = sampleThing(optionals: false)
        let (id, values) = try encoder.encode(thing, entity: thingEntity)
        for name in ["maybeText", "maybeCount", "maybeRatio", "maybeFlag", "maybeWhen", "maybeStamp", "maybeRole"] {
            #expect(values[name] == .null, "nil encodes as null: \(name)")
        }
        #expect(try decoder.decode(Thing.self, id: id, values: values, entity: thingEntity) == thing)
    }

    @Test func absentOptionalAttributesDecodeAsNil() throws {
        var (_, values) = try encoder.encode(sampleThing(optionals: false), entity: thingEntity)
        for name in ["maybeText", "maybeCount", "maybeRatio", "maybeFlag", "maybeWhen", "maybeStamp", "maybeRole"] {
            values[name] = nil
        }
        let back = try decoder.decode(Thing.self, id: .string("t1"), values: values, entity: thingEntity)
        #expect(back == sampleThing(optionals: false))
    }

    @Test func designExampleAgainstSchema() throws {
        let entity = try employeeEntity()
        let ann = Employee(id: "e1", name: "Ann", height: 180, hired: nil)
        let (id, values) = try encoder.encode(ann, entity: entity)
        #expect(id == .string("e1"))
        #expect(values == ["name": .string("Ann"), "height": .int(180), "hired": .null])
        // A stored object has every attribute; the type reads the ones it has.
        let stored: ObjectValues = values.merging(
            ["sectionName": .string("R&D"), "salary": .double(1), "active": .bool(true)]) { a, _ in a }
        #expect(try decoder.decode(Employee.self, id: id, values: stored, entity: entity) == ann)
    }

    @Test func intIDEntities() throws {
        let entity = try badgeEntity()
        let badge = Badge(id: 42, label: "gold")
        let (id, values) = try encoder.encode(badge, entity: entity)
        #expect(id == .int(42))
        #expect(values == ["label": .string("gold")])
        #expect(try decoder.decode(Badge.self, id: id, values: values, entity: entity) == badge)

        let badge64 = Badge64(id: .min, label: "lead")
        let encoded = try encoder.encode(badge64, entity: entity)
        #expect(encoded.id == .int(.min))
        #expect(try decoder.decode(Badge64.self, id: encoded.id, values: encoded.values, entity: entity) == badge64)
    }

    @Test func intAttributeDecodesIntoDouble() throws {
        var (_, values) = try encoder.encode(sampleThing(optionals: false), entity: thingEntity)
        values["wholeAsDouble"] = .int(-9_007_199_254_740_992)  // -2^53: exact as a Double
        values["single"] = .int(3)  // an int stored in a double attribute reads into Float too
        let back = try decoder.decode(Thing.self, id: .string("t1"), values: values, entity: thingEntity)
        #expect(back.wholeAsDouble == -9_007_199_254_740_992)
        #expect(back.single == 3)
    }

    // MARK: Dates

    @Test func datesRoundTripAtMillisecondPrecision() throws {
        let entity = try employeeEntity()
        func encodedHired(_ date: Date) throws -> Value? {
            try encoder.encode(Employee(id: "e", name: "n", height: nil, hired: date), entity: entity).values["hired"]
        }
        // A date rounds to the nearest millisecond.
        #expect(try encodedHired(Date(timeIntervalSince1970: 1.0006)) == .date(Timestamp(milliseconds: 1001)))
        #expect(try encodedHired(Date(timeIntervalSince1970: -0.0004)) == .date(Timestamp(milliseconds: 0)))
        #expect(try encodedHired(Date(timeIntervalSince1970: 2.0004)) == .date(Timestamp(milliseconds: 2000)))

        // Whole milliseconds survive stored -> Date -> stored exactly, over a wide seeded sample.
        var state: UInt64 = 0x5EED_0001
        var samples: [Int64] = [0, 1, -1, 999, -999, 978_307_200_000, 978_307_200_001, 1_795_341_600_000,
                                -62_135_596_800_000, 253_402_300_799_999]
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Int64(bitPattern: state >> 1) % 400_000_000_000_000)  // about ±12,700 years
        }
        for ms in samples {
            let values: ObjectValues = ["name": .string("n"), "hired": .date(Timestamp(milliseconds: ms))]
            let employee = try decoder.decode(Employee.self, id: .string("e"), values: values, entity: entity)
            let hired = try #require(employee.hired)
            // Within a tenth of a millisecond (a Double of seconds cannot hold every millisecond exactly)...
            #expect(abs(hired.timeIntervalSince1970 - Double(ms) / 1000) < 0.000_1, "ms \(ms)")
            // ...and back to exactly the same millisecond.
            #expect(try encodedHired(hired) == .date(Timestamp(milliseconds: ms)), "ms \(ms)")
        }
    }

    @Test func datesOutOfTimestampRangeAreErrors() throws {
        let entity = try employeeEntity()
        let employee = Employee(id: "e", name: "n", height: nil, hired: .distantFuture.addingTimeInterval(1e20))
        #expect(throws: EntityCodingError.self) { try encoder.encode(employee, entity: entity) }
    }

    // MARK: Errors

    @Test func unknownProperty() throws {
        struct Stray: EntityType {
            static let entityName = "Employee"
            var id: String
            var name: String
            var nickname: String?
        }
        let entity = try employeeEntity()
        let expected = EntityCodingError.unknownProperty(entity: "Employee", property: "nickname")
        #expect(throws: expected) { try encoder.encode(Stray(id: "e", name: "n", nickname: "x"), entity: entity) }
        #expect(throws: expected) { try encoder.encode(Stray(id: "e", name: "n", nickname: nil), entity: entity) }
        #expect(throws: expected) {
            try decoder.decode(Stray.self, id: .string("e"), values: ["name": .string("n")], entity: entity)
        }
        #expect(expected.description == "property 'nickname' is not an attribute of entity 'Employee'")
    }

    @Test func wrongType() throws {
        struct Wrong: EntityType {
            static let entityName = "Employee"
            var id: String
            var name: String
            var height: String?
        }
        let entity = try employeeEntity()
        let expected = EntityCodingError.typeMismatch(
            entity: "Employee", attribute: "height", attributeType: .int, swiftType: "String")
        #expect(throws: expected) { try encoder.encode(Wrong(id: "e", name: "n", height: "tall"), entity: entity) }
        #expect(throws: expected) {
            try decoder.decode(Wrong.self, id: .string("e"), values: ["name": .string("n"), "height": .int(1)],
                               entity: entity)
        }
        #expect(expected.description == "attribute 'height' of entity 'Employee' is of type int; cannot code it as String")

        // A double attribute does not decode into an integer, and an integer property does not fit it.
        struct Salaried: EntityType {
            static let entityName = "Employee"
            var id: String
            var salary: Int
        }
        #expect(throws: EntityCodingError.typeMismatch(
            entity: "Employee", attribute: "salary", attributeType: .double, swiftType: "Int")) {
            try decoder.decode(Salaried.self, id: .string("e"), values: ["salary": .double(1)], entity: entity)
        }
        #expect(throws: EntityCodingError.typeMismatch(
            entity: "Employee", attribute: "salary", attributeType: .double, swiftType: "Int")) {
            try encoder.encode(Salaried(id: "e", salary: 1), entity: entity)
        }
    }

    @Test func missingRequiredAttributeAndNulls() throws {
        let entity = try employeeEntity()
        #expect(throws: EntityCodingError.missingAttribute(entity: "Employee", attribute: "name")) {
            try decoder.decode(Employee.self, id: .string("e"), values: ["height": .int(1)], entity: entity)
        }
        #expect(throws: EntityCodingError.nullValue(entity: "Employee", attribute: "name")) {
            try decoder.decode(Employee.self, id: .string("e"), values: ["name": .null], entity: entity)
        }
        struct NilName: EntityType {
            static let entityName = "Employee"
            var id: String
            var name: String?
        }
        #expect(throws: EntityCodingError.nullValue(entity: "Employee", attribute: "name")) {
            try encoder.encode(NilName(id: "e", name: nil), entity: entity)
        }
    }

    @Test func nestedContainers() throws {
        struct Tagged: EntityType {
            static let entityName = "Employee"
            var id: String
            var name: [String]
        }
        struct Address: Codable { var street: String }
        struct Housed: EntityType {
            static let entityName = "Employee"
            var id: String
            var name: Address
        }
        let entity = try employeeEntity()
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: "name", container: "unkeyed")) {
            try encoder.encode(Tagged(id: "e", name: ["a"]), entity: entity)
        }
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: "name", container: "keyed")) {
            try encoder.encode(Housed(id: "e", name: Address(street: "s")), entity: entity)
        }
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: "name", container: "unkeyed")) {
            try decoder.decode(Tagged.self, id: .string("e"), values: ["name": .string("a")], entity: entity)
        }
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: "name", container: "keyed")) {
            try decoder.decode(Housed.self, id: .string("e"), values: ["name": .string("a")], entity: entity)
        }

        // A type that codes as something other than a keyed container at the top level.
        struct Flat: EntityType {
            static let entityName = "Employee"
            var id: String
            init(id: String) { self.id = id }
            init(from decoder: any Decoder) throws { self.id = try decoder.singleValueContainer().decode(String.self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(id)
            }
        }
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: nil, container: "unkeyed")) {
            try encoder.encode(Flat(id: "e"), entity: entity)
        }
        #expect(throws: EntityCodingError.unsupportedContainer(entity: "Employee", attribute: nil, container: "single value")) {
            try decoder.decode(Flat.self, id: .string("e"), values: [:], entity: entity)
        }
    }

    @Test func outOfRangeNumbers() throws {
        struct Short: EntityType {
            static let entityName = "Employee"
            var id: String
            var height: Int8?
        }
        struct Huge: EntityType {
            static let entityName = "Employee"
            var id: String
            var height: UInt64?
        }
        struct Fractional: EntityType {
            static let entityName = "Employee"
            var id: String
            var height: Double?
        }
        let entity = try employeeEntity()
        #expect(throws: EntityCodingError.valueOutOfRange(
            entity: "Employee", attribute: "height", value: "300", swiftType: "Int8")) {
            try decoder.decode(Short.self, id: .string("e"), values: ["height": .int(300)], entity: entity)
        }
        #expect(throws: EntityCodingError.valueOutOfRange(
            entity: "Employee", attribute: "height", value: "-1", swiftType: "UInt64")) {
            try decoder.decode(Huge.self, id: .string("e"), values: ["height": .int(-1)], entity: entity)
        }
        #expect(throws: EntityCodingError.valueOutOfRange(
            entity: "Employee", attribute: "height", value: "\(UInt64.max)", swiftType: "Int64")) {
            try encoder.encode(Huge(id: "e", height: .max), entity: entity)
        }
        #expect(throws: EntityCodingError.valueOutOfRange(
            entity: "Employee", attribute: "height", value: "1.5", swiftType: "Int64")) {
            try encoder.encode(Fractional(id: "e", height: 1.5), entity: entity)
        }
        #expect(throws: EntityCodingError.valueOutOfRange(
            entity: "Employee", attribute: "height", value: "\(Int64.max)", swiftType: "Double")) {
            try decoder.decode(Fractional.self, id: .string("e"), values: ["height": .int(.max)], entity: entity)
        }
        // In range: fine.
        #expect(try encoder.encode(Short(id: "e", height: -128), entity: entity).values["height"] == .int(-128))
        #expect(try encoder.encode(Fractional(id: "e", height: 170), entity: entity).values["height"] == .int(170))
    }

    @Test func entityAndIDMismatches() throws {
        let employees = try employeeEntity()
        let badges = try badgeEntity()
        #expect(throws: EntityCodingError.entityMismatch(type: "Badge", entityName: "Badge", entity: "Employee")) {
            try encoder.encode(Badge(id: 1, label: "x"), entity: employees)
        }
        struct StringBadge: EntityType {
            static let entityName = "Badge"
            var id: String
            var label: String
        }
        #expect(throws: EntityCodingError.idMismatch(entity: "Badge", expected: .int, found: "String")) {
            try encoder.encode(StringBadge(id: "1", label: "x"), entity: badges)
        }
        #expect(throws: EntityCodingError.idMismatch(entity: "Badge", expected: .int, found: "String")) {
            try decoder.decode(StringBadge.self, id: .int(1), values: ["label": .string("x")], entity: badges)
        }
        #expect(throws: EntityCodingError.idMismatch(entity: "Badge", expected: .int, found: "string id 1")) {
            try decoder.decode(Badge.self, id: .string("1"), values: ["label": .string("x")], entity: badges)
        }
    }

    @Test func customIDType() throws {
        struct EmployeeNumber: EntityID {
            static var idType: IDType { .string }
            var raw: String
            init(_ raw: String) { self.raw = raw }
            var objectID: ObjectID { .string("E-" + raw) }
            init?(objectID: ObjectID) {
                guard case .string(let s) = objectID, s.hasPrefix("E-") else { return nil }
                raw = String(s.dropFirst(2))
            }
            init(from decoder: any Decoder) throws { raw = try decoder.singleValueContainer().decode(String.self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(raw)
            }
        }
        struct Numbered: EntityType, Equatable {
            static let entityName = "Employee"
            var id: EmployeeNumber
            var name: String
        }
        let entity = try employeeEntity()
        let value = Numbered(id: EmployeeNumber("7"), name: "n")
        let (id, values) = try encoder.encode(value, entity: entity)
        #expect(id == .string("E-7"))
        #expect(values == ["name": .string("n")])
        #expect(try decoder.decode(Numbered.self, id: id, values: values, entity: entity) == value)
    }

    @Test func timestampCodesAsISO8601() throws {
        let stamp = Timestamp(milliseconds: 1_795_341_600_000)
        let data = try JSONEncoder().encode([stamp])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-11-22T10:00:00.000Z"]"#)
        #expect(try JSONDecoder().decode([Timestamp].self, from: data) == [stamp])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Timestamp].self, from: Data(#"["yesterday"]"#.utf8))
        }
    }
}
