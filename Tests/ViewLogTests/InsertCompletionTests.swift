import TestSupport
import Testing
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

/// An append completes an insert by walking the given dictionary (names matched without hashing) and falls back to
/// the walk in attribute order only to name a refusal: both must give the same object, and the same error.
@Suite("Insert completion")
struct InsertCompletionTests {
    static let types: [AttributeType] = [.string, .int, .double, .bool, .date]

    static func randomValue(of type: AttributeType, using g: inout SeededGenerator) -> Value {
        switch type {
        case .string: return .string(RandomValues.string(using: &g))
        case .int: return .int(RandomValues.int(using: &g))
        case .double: return .double(Double(Int.random(in: -1000...1000, using: &g)) / 8)
        case .bool: return .bool(Bool.random(using: &g))
        case .date: return .date(Timestamp(milliseconds: Int64.random(in: 0...4_000_000_000_000, using: &g)))
        }
    }

    /// An entity of 1…24 attributes (past the 16 whose names are compared rather than hashed), sometimes 60…70
    /// (past the 64 the dictionary walk takes), of random types, optional or required, some with defaults.
    static func randomEntity(using g: inout SeededGenerator) -> EntityDescription {
        let n = Int.random(in: 0..<10, using: &g) == 0 ? Int.random(in: 60...70, using: &g) : Int.random(in: 1...24, using: &g)
        let attributes = (0..<n).map { i -> Attribute in
            let type = types.randomElement(using: &g)!
            let optional = Bool.random(using: &g)
            let defaultValue = Int.random(in: 0..<3, using: &g) == 0 ? randomValue(of: type, using: &g) : nil
            // Names of several lengths, some sharing a length and a prefix.
            return Attribute(name: ["a", "ab", "b", "x", "é", "zz"][i % 6] + String(i), type: type,
                             isOptional: optional, defaultValue: defaultValue)
        }
        return EntityDescription(name: "E", idType: .int, attributes: attributes)
    }

    /// Values for an insert of `entity`: a random subset of its attributes, mostly of their type, sometimes an int
    /// for a double, `null`, a value of another type, or a name the entity lacks.
    static func randomValues(for entity: EntityDescription, using g: inout SeededGenerator) -> ObjectValues {
        var values: ObjectValues = [:]
        for a in entity.attributes where Int.random(in: 0..<4, using: &g) != 0 {
            switch Int.random(in: 0..<20, using: &g) {
            case 0: values[a.name] = .null
            case 1: values[a.name] = randomValue(of: types.randomElement(using: &g)!, using: &g)
            case 2, 3: values[a.name] = a.type == .double ? .int(Int64.random(in: -9...9, using: &g)) : randomValue(of: a.type, using: &g)
            // Values of the type that the type still refuses: not finite, out of the dates' range.
            case 4: values[a.name] = [.double(.infinity), .double(.nan), .date(Timestamp(milliseconds: .max))].randomElement(using: &g)!
            default: values[a.name] = randomValue(of: a.type, using: &g)
            }
        }
        if Int.random(in: 0..<10, using: &g) == 0 { values["unknown" + String(Int.random(in: 0..<3, using: &g))] = .int(1) }
        return values
    }

    @Test func theDictionaryWalkGivesTheObjectAndTheErrorOfTheWalkInAttributeOrder() {
        var g = SeededGenerator(seed: 0x1A5E47)
        var accepted = 0, unchanged = 0, refused = 0
        for _ in 0..<4000 {
            let entity = Self.randomEntity(using: &g)
            let values = Self.randomValues(for: entity, using: &g)
            var slots: [Value] = [], expectedSlots: [Value] = []
            let result = Result { () throws(ObjectValuesError) in try entity.completeInsert(values, into: &slots) }
            let expected = Result { () throws(ObjectValuesError) in
                try entity.completeInsertInAttributeOrder(values, into: &expectedSlots)
            }
            switch (result, expected) {
            case let (.success(object), .success(expectedKept)):
                accepted += 1
                #expect(slots == expectedSlots, "\(values)")
                // The object is the slots by name; the given dictionary is kept exactly when it is that object.
                let complete = Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), slots))
                #expect(object == complete, "\(values)")
                #expect(expectedKept == (complete == values), "\(values)")
                #expect((try? entity.completeInsert(values)) == complete)
                if expectedKept { unchanged += 1 }
            case let (.failure(error), .failure(expectedError)):
                refused += 1
                #expect(error == expectedError, "\(values)")
            default:
                Issue.record("\(values): \(result) against \(expected)")
            }
        }
        // The generator reaches every case.
        #expect(accepted > 200 && unchanged > 50 && refused > 200, "\(accepted) \(unchanged) \(refused)")
    }
}
