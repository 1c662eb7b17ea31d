import Foundation
import LMDB
import Testing
@_spi(Engine) import ViewLog

/// `error.localizedDescription` says what went wrong (issue 38): every public error type of every library module is a
/// `LocalizedError` whose `errorDescription` is its `description`, not Foundation's "The operation could not be
/// completed. (ViewLog.QueryError error 1.)".
@Suite("Localized errors")
struct LocalizedErrorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every public error type of the library modules, and the test target that checks its `localizedDescription`.
    static let checked: [String: String] = [
        "StoreError": "ViewLogTests", "SchemaError": "ViewLogTests", "CodecError": "ViewLogTests",
        "ValueError": "ViewLogTests", "ObjectValuesError": "ViewLogTests", "EntityCodingError": "ViewLogTests",
        "InputError": "ViewLogTests", "QueryError": "ViewLogTests", "JSONError": "ViewLogTests", "LMDBError": "ViewLogTests",
        "ChangeSetProblem": "ViewLogTestingTests", "ChangeSetValidationError": "ViewLogTestingTests",
        "ReplicationError": "ViewLogReplicationTests", "ReplicaAppendError": "ViewLogReplicationTests",
    ]

    /// The public (and SPI) error types declared in the library modules' sources: a new one must join ``checked``.
    @Test func everyPublicErrorTypeIsChecked() throws {
        let declaration = try NSRegularExpression(
            pattern: #"public (?:struct|enum|final class|class|actor) (\w+)\s*:[^{]*\b(?:Error|LocalizedError|ViewLogError)\b"#)
        var found: Set<String> = []
        for module in ["ViewLogModel", "ViewLogQuery", "ViewLogStore", "ViewLogViews", "ViewLog", "LMDB", "ViewLogTesting",
                       "ViewLogReplication", "ViewLogServer"] {
            let folder = Self.packageRoot.appendingPathComponent("Sources/\(module)")
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                for m in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    found.insert(String(text[Range(m.range(at: 1), in: text)!]))
                }
            }
        }
        #expect(found.count >= 14, "found \(found.sorted()): does the pattern still match the declarations?")
        #expect(found.subtracting(Self.checked.keys).isEmpty,
                "public error types without a localizedDescription test: \(found.subtracting(Self.checked.keys).sorted())")
    }

    /// `localizedDescription` (Foundation's, through `LocalizedError`) and `errorDescription` are the description.
    func expectLocalized<E: Error & CustomStringConvertible>(_ error: E, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((error as any Error).localizedDescription == error.description, sourceLocation: sourceLocation)
        #expect((error as? any LocalizedError)?.errorDescription == error.description, sourceLocation: sourceLocation)
    }

    @Test func theEngineErrorsSayWhatWentWrong() throws {
        let key = ObjectKey(entity: "E", id: "e1")
        expectLocalized(StoreError.positionPastHead(position: 2, head: 1))
        expectLocalized(StoreError.objectNotFound(key, position: 1))
        expectLocalized(StoreError.schema(.unknownEntity("E")))
        expectLocalized(SchemaError.invalidView(view: "v", reason: "r"))
        expectLocalized(CodecError.checksumMismatch(seq: 1, stored: 1, computed: 2))
        expectLocalized(ValueError.nullForRequired(attribute: "a"))
        expectLocalized(ObjectValuesError.missingRequired(entity: "E", attributes: ["a"]))
        expectLocalized(EntityCodingError.nullValue(entity: "E", attribute: "a"))
        expectLocalized(InputError(.malformedJSON, line: 3, message: "m"))
        expectLocalized(LMDBError(code: LMDBError.mapFull.code, context: "mdb_put"))
        // The issue's own case, and errors as the engine throws them.
        do {
            _ = try ViewPredicate("height >")
            Issue.record("a bad predicate parsed")
        } catch {
            expectLocalized(error)
            #expect(!error.localizedDescription.contains("The operation could not be completed"))
        }
        do {
            _ = try JSONValue.parse("{")
            Issue.record("a bad JSON text parsed")
        } catch {
            expectLocalized(error)
        }
        let thrown: any Error = StoreError.emptyInput
        #expect(thrown.localizedDescription == "\(thrown)")
    }
}
