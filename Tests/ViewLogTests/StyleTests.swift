import Foundation
import Testing

/// The project's own conventions, checked on the sources (TigerBeetle's "tidy").
@Suite("Style")
struct StyleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Fewest Swift files each folder the checks read holds (about two thirds of what it holds): a walk that finds
    /// fewer — a wrong root, a moved folder, sources not where `#filePath` says — fails its check rather than
    /// passing it over nothing.
    static let filesMin = ["Sources": 150, "Tests": 80, "Sources/LMDB": 6, "Sources/ViewLogModel": 24,
                           "Sources/ViewLogQuery": 20, "Sources/ViewLogStore": 40, "Sources/ViewLogViews": 11, "Sources/ViewLog": 14,
                           "Sources/ViewLogTesting": 4, "Sources/ViewLogReplication": 6, "Sources/ViewLogDocuments": 3,
                           "Sources/ViewLogServer": 6, "Sources/viewlog": 15]

    /// A walk that found fewer files than its folder's ``filesMin``.
    struct TooFewFiles: Error, CustomStringConvertible {
        let folder: String, found: Int, minimum: Int

        var description: String { "\(found) Swift files under \(folder), fewer than \(minimum): is the root right?" }
    }

    /// The Swift files under `folder` of `root`, with their lines.
    /// - Throws: ``TooFewFiles`` when it finds fewer than the folder's ``filesMin`` (1 for a folder not named there).
    static func swiftFiles(under folder: String, root: URL = StyleTests.root) throws -> [(path: String, lines: [String])] {
        let base = root.appendingPathComponent(folder)
        var out: [(String, [String])] = []
        if let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) {
            for case let url as URL in walker where url.pathExtension == "swift" {
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                out.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), text.components(separatedBy: "\n")))
            }
        }
        let minimum = filesMin[folder] ?? 1
        guard out.count >= minimum else { throw TooFewFiles(folder: folder, found: out.count, minimum: minimum) }
        return out.sorted { $0.0 < $1.0 }
    }

    /// Every check fails, rather than passes, when its walk finds too few files: a wrong root or folder.
    @Test func aWalkThatFindsTooFewFilesFails() throws {
        #expect(throws: TooFewFiles.self) {
            try Self.swiftFiles(under: "Sources/ViewLog", root: Self.root.appendingPathComponent("no-such-root"))
        }
        #expect(throws: TooFewFiles.self) { try Self.swiftFiles(under: "Sources/NoSuchModule") }
        // One level too deep, as this file would compute it from a subfolder.
        #expect(throws: TooFewFiles.self) { try Self.swiftFiles(under: "Sources", root: Self.root.appendingPathComponent("Tests")) }
        for folder in Self.filesMin.keys.sorted() { _ = try Self.swiftFiles(under: folder) }
    }

    /// The engine's layers, lowest first (README, "How it is built").
    static let engine = ["Sources/ViewLogModel", "Sources/ViewLogQuery", "Sources/ViewLogStore", "Sources/ViewLogViews",
                         "Sources/ViewLog"]
    static let libraries = ["Sources/LMDB"] + engine + ["Sources/ViewLogTesting", "Sources/ViewLogReplication",
                                                        "Sources/ViewLogDocuments", "Sources/ViewLogServer"]

    @Test func libraryCodeHasNoForcedTryAndNoPrint() throws {
        var offenders: [String] = []
        for folder in Self.libraries {
            for file in try Self.swiftFiles(under: folder) {
                for (i, line) in file.lines.enumerated() {
                    let code = line.components(separatedBy: "//").first ?? ""
                    if code.contains("try!") || code.range(of: #"(^|[^A-Za-z_.])print\("#, options: .regularExpression) != nil {
                        offenders.append("\(file.path):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// Engine internals stay out of the public API and its docs: they are `@_spi(Engine)`, for the CLI, tests,
    /// benchmarks and fuzzers only.
    @Test func engineInternalsAreSPI() throws {
        let internals = ["enum CRC32C", "enum TransactionCodec", "enum ObjectRecordCodec", "enum JSONValue",
                         "struct JSONError", "enum Limits", "enum AppendInput", "func apply(_ delta: Delta)",
                         "func checkInvariants(", "var treeWork", "func reload<S"]
        var found: Set<String> = [], offenders: [String] = []
        for file in try Self.engine.flatMap({ try Self.swiftFiles(under: $0) }) {
            for line in file.lines {
                for name in internals where line.contains("public \(name)") {
                    found.insert(name)
                    if !line.contains("@_spi(Engine)") { offenders.append("\(file.path): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        #expect(found.count == internals.count, "not found: \(Set(internals).subtracting(found))")
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// Only the store and the contexts above it read LMDB: the model, the query language and the views are values and
    /// pure functions (the package's target dependencies keep that too; this says it where a reader looks).
    @Test func theValueLayersDoNotImportLMDB() throws {
        var offenders: [String] = []
        for folder in ["Sources/ViewLogModel", "Sources/ViewLogQuery", "Sources/ViewLogViews"] {
            for file in try Self.swiftFiles(under: folder)
            where file.lines.contains(where: { $0.range(of: #"^(@\S+ )*import LMDB\b"#, options: .regularExpression) != nil }) {
                offenders.append(file.path)
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    @Test func onlyTheLMDBModuleImportsCLMDB() throws {
        var offenders: [String] = []
        for file in try Self.swiftFiles(under: "Sources") + Self.swiftFiles(under: "Tests") where !file.path.hasPrefix("Sources/LMDB/") {
            if file.lines.contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("import CLMDB") }) {
                offenders.append(file.path)
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    /// Range scans go through `LMDBTransaction.scan` (one bounded loop, its cursor closed by it): no layer above
    /// `LMDB` walks a cursor by hand.
    @Test func onlyTheLMDBModuleWalksCursors() throws {
        var offenders: [String] = []
        for folder in Self.libraries + ["Sources/viewlog"] where folder != "Sources/LMDB" {
            for file in try Self.swiftFiles(under: folder) {
                for (i, line) in file.lines.enumerated() where line.contains("withCursor(") {
                    offenders.append("\(file.path):\(i + 1)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    /// NATS stays in replication (DESIGN §1): only `ViewLogReplication` imports the C client.
    @Test func onlyViewLogReplicationImportsCNATS() throws {
        var offenders: [String] = []
        for file in try Self.swiftFiles(under: "Sources") where !file.path.hasPrefix("Sources/ViewLogReplication/") {
            if file.lines.contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("import CNATS") }) {
                offenders.append(file.path)
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    /// Every public declaration has a DocC comment, except the implementations of standard protocol
    /// requirements (`description`, `==`, `<`, `hash(into:)`, Codable), whose meaning is the protocol's.
    @Test func everyPublicDeclarationIsDocumented() throws {
        let declaration = #"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*public\s+(static\s+|final\s+|convenience\s+|indirect\s+|nonisolated\s+|override\s+|mutating\s+)*(func|var|let|init|struct|enum|class|protocol|typealias|subscript|case|actor)\b"#
        let exempt = [#"var description\b"#, #"var debugDescription\b"#, #"func (==|<|hash\(into)"#, #"static func [<>=!]"#,
                      #"init\(from decoder"#, #"func encode\(to encoder"#, #"func makeIterator"#, #"func next\(\)"#,
                      #"var (codingPath|userInfo)\b"#, #"func (container|unkeyedContainer|singleValueContainer|superEncoder|superDecoder|nestedContainer|nestedUnkeyedContainer)\b"#,
                      #"func (encode|decode|encodeNil|decodeNil|contains)\("#, #"var (allKeys|count|isAtEnd|currentIndex)\b"#,
                      #"init\?\((stringValue|intValue)"#, #"var (stringValue|intValue)\b"#, #"let rawValue\b"#, #"init\(rawValue"#,
                      #"func controller"#]
        var offenders: [String] = []
        for folder in Self.libraries {
            for file in try Self.swiftFiles(under: folder) {
                for (i, line) in file.lines.enumerated() where line.range(of: declaration, options: .regularExpression) != nil {
                    if exempt.contains(where: { line.range(of: $0, options: .regularExpression) != nil }) { continue }
                    var j = i - 1
                    while j >= 0, file.lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") { j -= 1 }
                    let previous = j >= 0 ? file.lines[j].trimmingCharacters(in: .whitespaces) : ""
                    if !(previous.hasPrefix("///") || previous.hasSuffix("*/")) {
                        offenders.append("\(file.path):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.count) undocumented:\n\(offenders.joined(separator: "\n"))")
    }
}
