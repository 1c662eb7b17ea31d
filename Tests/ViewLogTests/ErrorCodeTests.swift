import Foundation
import Testing
import TestSupport
@_spi(Engine) import ViewLog

/// Every error has a stable code: the codes are unique, listed in the DocC article, and what real failures carry.
@Suite("Error codes")
struct ErrorCodeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `name → raw value` of every `static let … = ErrorCode(rawValue: "…")` in the sources.
    static func declaredCodes() throws -> [String: String] {
        var codes: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: #"public static let (\w+) = ErrorCode\(rawValue: "([^"]+)"\)"#)
        for file in ["Sources/ViewLogModel/Support/ErrorCode.swift", "Sources/ViewLogReplication/ReplicationError.swift"] {
            let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(m.range(at: 1), in: text)!])
                #expect(codes[name] == nil, "\(name) declared twice")
                codes[name] = String(text[Range(m.range(at: 2), in: text)!])
            }
        }
        return codes
    }

    @Test func codesAreUniqueAndWellFormed() throws {
        let codes = try Self.declaredCodes()
        #expect(codes.count >= 60)
        #expect(Set(codes.values).count == codes.count, "two members share a raw value")
        for raw in codes.values {
            #expect(raw.wholeMatch(of: /[a-z]+\.[a-z]+(-[a-z]+)*/) != nil, "\(raw) is not domain.name in kebab case")
        }
    }

    @Test func theArticleListsExactlyTheDeclaredCodes() throws {
        let article = try String(contentsOf: Self.packageRoot.appendingPathComponent("Sources/ViewLog/ViewLog.docc/ErrorCodes.md"),
                                 encoding: .utf8)
        var listed: [String: String] = [:]
        for line in article.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let raw = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let member = cells[1].replacingOccurrences(of: "``ErrorCode/", with: "").replacingOccurrences(of: "`ErrorCode.", with: "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            listed[member] = raw
        }
        #expect(listed == (try Self.declaredCodes()))
    }

    /// One error of each case of the enum error types: a case added without a code fails to compile (the `code`
    /// switches are exhaustive); a case sharing another's code shows here.
    @Test func eachCaseHasItsOwnCode() {
        let key = ObjectKey(entity: "E", id: "e1")
        let store: [StoreError] = [
            .notAStore(path: "p", reason: "r"), .alreadyExists(path: "p"),
            .unsupportedFormat(path: "p", found: 3, supported: 2), .unsupportedFeatures(path: "p", features: ["f"]),
            .invalidChange(transaction: 0, change: 0, reason: "r"),
            .invalidStagedChange(key, operation: "insert", reason: "r"), .emptyTransaction(transaction: 0), .emptyInput,
            .positionPastHead(position: 2, head: 1), .compacted(position: 1, horizon: 2), .compactionUnderWay(path: "p"), .objectNotFound(key, position: 1), .corrupt(seq: 1, reason: "r"),
            .conflict([]), .storage("s"), .replica(path: "p", stream: "s"), .viewRemoved("v", seq: 1), .acrossMigration(position: 1, seq: 2),
        ]
        let schema: [SchemaError] = [
            .malformed("m"), .invalid("i"), .unknownEntity("E"), .unknownAttribute(entity: "E", attribute: "a"),
            .unknownType(entity: "E", attribute: "a", type: "t"), .invalidName(entity: "E", attribute: nil),
            .duplicateAttribute(entity: "E", attribute: "a"), .invalidDefault(entity: "E", attribute: "a", expected: .int),
            .invalidView(view: "v", reason: "r"), .breakingChange("b"), .invalidMigration(step: 1, reason: "r"),
            .migrationRefused("r"),
        ]
        let codec: [CodecError] = [
            .truncated(field: "f", offset: 0), .invalid(field: "f", offset: 0, reason: "r"),
            .tooLarge(field: "f", offset: 0, value: 2, limit: 1), .badMagic, .unsupportedVersion(9),
            .lengthMismatch(declared: 1, actual: 2), .checksumMismatch(seq: 1, stored: 1, computed: 2),
            .unexpectedSeq(expected: 1, found: 2), .trailingBytes(offset: 1, count: 1),
        ]
        let value: [ValueError] = [
            .typeMismatch(attribute: "a", expected: .int, got: "string"),
            .relationshipTypeMismatch(relationship: "r", target: "E", expected: .int, got: "a string"), .nullForRequired(attribute: "a"),
            .malformedDate(attribute: "a", text: "t"), .duplicateMember(relationship: "r", id: "1"),
        ]
        let objectValues: [ObjectValuesError] = [
            .unknownAttribute(entity: "E", attribute: "a"), .missingRequired(entity: "E", attributes: ["a"]),
            .stringTooLong(entity: "E", attribute: "a", bytes: 1), .invalidID(entity: "E", id: "e1", reason: "r"),
        ]
        let coding: [EntityCodingError] = [
            .entityMismatch(type: "T", entityName: "E", entity: "F"), .idMismatch(entity: "E", expected: .int, found: "s"),
            .unknownProperty(entity: "E", property: "p"),
            .typeMismatch(entity: "E", attribute: "a", attributeType: .int, swiftType: "String"),
            .nullValue(entity: "E", attribute: "a"), .missingAttribute(entity: "E", attribute: "a"),
            .valueOutOfRange(entity: "E", attribute: "a", value: "1", swiftType: "UInt8"),
            .unsupportedContainer(entity: "E", attribute: nil, container: "array"),
        ]
        for group in [store.map(\.code), schema.map(\.code), codec.map(\.code), value.map(\.code), objectValues.map(\.code),
                      coding.map(\.code)] {
            #expect(Set(group).count == group.count, "\(group)")
        }
        // Wrapping errors take the code of what they wrap.
        #expect(StoreError.schema(.breakingChange("b")).code == .breakingChange)
        #expect(ObjectValuesError.invalidValue(entity: "E", .nullForRequired(attribute: "a")).code == .nullForRequired)
        // The codes of different types for one kind of failure agree.
        #expect(SchemaError.unknownAttribute(entity: "E", attribute: "a").code
            == ObjectValuesError.unknownAttribute(entity: "E", attribute: "a").code)
    }

    // MARK: Real failures carry their codes

    static let schema = Schema(entities: ["Employee": Fixture.employee])

    func inputError(_ line: String) -> InputError? {
        do {
            _ = try AppendInput.parse(line, schema: Self.schema)
            return nil
        } catch {
            return error
        }
    }

    @Test func inputErrorsHaveTheirCodes() {
        #expect(inputError("")?.code == .noLines)
        #expect(inputError("{")?.code == .malformedJSON)
        #expect(inputError("[1]")?.code == .invalidInput)
        #expect(inputError(#"{"insert": "Nope", "id": "x", "values": {}}"#)?.code == .unknownEntity)
        #expect(inputError(#"{"insert": "Employee", "id": "x", "values": {"nope": 1}}"#)?.code == .unknownAttribute)
        #expect(inputError(#"{"insert": "Employee", "id": "x", "values": {"height": "tall"}}"#)?.code == .typeMismatch)
        #expect(inputError(#"{"insert": "Employee", "id": 3, "values": {}}"#)?.code == .invalidID)
        #expect(inputError(#"{"insert": "Employee", "id": "x", "values": {}}"#)?.code == .missingRequired)
        #expect(inputError(String(repeating: " ", count: Limits.lineBytesMax + 1))?.code == .lineTooLong)
        let shorthand = { (op: String, entity: String, assignments: [String]) -> ErrorCode? in
            do {
                _ = try AppendInput.shorthand(op: op, entity: entity, id: "x", assignments: assignments, schema: Self.schema)
                return nil
            } catch let error as InputError { return error.code } catch { return nil }
        }
        #expect(shorthand("upsert", "Employee", []) == .unknownOperation)
        #expect(shorthand("insert", "Nope", []) == .unknownEntity)
        #expect(shorthand("update", "Employee", ["nope=1"]) == .unknownAttribute)
        #expect(shorthand("update", "Employee", ["height=tall"]) == .typeMismatch)
    }

    @Test func storeAndQueryErrorsHaveTheirCodes() throws {
        let scratch = TestScratch.newPath("error-codes")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let store = try LogStore.create(at: scratch, schema: Self.schema)
        func code(_ body: () throws -> Void) -> ErrorCode? {
            do {
                try body()
                return nil
            } catch let error as any ViewLogError {
                return error.code
            } catch {
                Issue.record("\(error) is not a ViewLogError")
                return nil
            }
        }
        #expect(code { try store.append([.update(entity: "Employee", id: "e9", values: ["height": 1])], author: "t") } == .invalidChange)
        #expect(code { try store.append([ChangeRequest](), author: "t") } == .emptyTransaction)
        #expect(code { try store.append([TransactionRequest]()) } == .emptyInput)
        #expect(code { _ = try store.objects(of: "Employee", at: 5) } == .positionPastHead)
        #expect(code { _ = try LogStore.create(at: scratch, schema: Self.schema) } == .alreadyExists)
        #expect(code { _ = try LogStore.open(at: scratch + "/nope") } == .notAStore)
        #expect(code { _ = try ViewPredicate("height >") } == .querySyntax)
        #expect(code { _ = try ViewPredicate("height > 1").compiled(for: Fixture.employee) } == nil)
        #expect(code { _ = try ViewPredicate("height > 'x'").compiled(for: Fixture.employee) } == .queryTypeMismatch)
        #expect(code { _ = try ViewPredicate("name MATCHES '(a)\\\\1'").compiled(for: Fixture.employee) } == .refusedRegex)
        #expect(code { try FetchRequest(entity: "Nope").validate(against: Self.schema) } == .unknownEntity)
        #expect(code { _ = try Schema(jsonText: "{") } == .schemaMalformed)
    }
}
