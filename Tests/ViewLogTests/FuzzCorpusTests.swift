import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The fuzzers' seed corpora (`tools/fuzz/corpus/<target>/`) run through the same checks as the libFuzzer
/// targets (`tools/fuzz/Sources/`), in every `swift test`: an input that once crashed a target is added to its
/// corpus (named `crash-…`) and stays a regression test here.
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../tools/fuzz/corpus").standardized

    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpus.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { ($0, [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }

    @Test func decode() throws {
        let inputs = try Self.inputs("decode")
        #expect(inputs.count >= 10)
        var decoded = 0
        for (name, bytes) in inputs {
            guard let t = try? TransactionCodec.decode(bytes, expectedSeq: nil) else { continue }
            decoded += 1
            let again = TransactionCodec.encode(t)
            let hasSchema = t.changes.contains { if case .schema = $0 { return true } else { return false } }
            #expect(hasSchema || again == bytes, "\(name): decode → encode is not the identity")
            #expect(try TransactionCodec.decode(again, expectedSeq: t.seq) == t, "\(name)")
            // Every truncation and every single-bit flip of a good entry is an error, never a crash.
            for n in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 64)) {
                #expect(throws: CodecError.self) { try TransactionCodec.decode(Array(bytes.prefix(n)), expectedSeq: nil) }
            }
            for i in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 64)) {
                var flipped = bytes
                flipped[i] ^= 0x10
                #expect(throws: CodecError.self) { try TransactionCodec.decode(flipped, expectedSeq: nil) }
            }
        }
        #expect(decoded >= 10, "the seed entries decode")
    }

    @Test func predicate() throws {
        let subjects: [ObjectValues] = [
            Fixture.ann, Fixture.nulls,
            Fixture.values(name: String(repeating: "a", count: 4096)),  // regex worst cases
            Fixture.values(name: "Crème Brûlée 🇫🇷", height: Int64.min, salary: .nan, sectionName: "Ω"),
        ]
        let variables: [String: Value] = ["s": .string("Ann"), "i": .int(170), "d": .double(2.5), "b": .bool(true),
                                          "n": .null, "t": .date(Timestamp(milliseconds: 0)), "p": .string("A.*")]
        var keyPathPredicates = 0
        defer { #expect(keyPathPredicates >= 4, "the seeds with key paths resolve") }
        for (name, bytes) in try Self.inputs("predicate") {
            let text = String(decoding: bytes, as: UTF8.self)
            guard let predicate = try? ViewPredicate(text) else { continue }
            #expect((try? ViewPredicate(predicate.expression.description)) != nil, "\(name): canonical text does not parse")
            if let compiled = try? predicate.compiled(for: Fixture.employee, variables: variables) {
                for values in subjects { _ = compiled.evaluate(values, id: .string("e1")) }
            }
            if let compiled = try? predicate.compiled(for: Fixture.item, variables: variables) {
                _ = compiled.evaluate(["like": .int(3), "weight": .null], id: .int(7))
            }
            // Key paths, quantifiers and aggregates (DESIGN §10): resolved against a schema with relationships and
            // compiled against the view's entity; refused with an error, never a trap.
            for entity in ["Employee", "Department", "Project"] {
                let request = FetchRequest(entity: entity, predicate: predicate, variables: variables)
                guard let (viewEntity, paths, quantified) = try? graphSchema().viewEntity(of: request),
                      let compiled = try? predicate.compiled(for: viewEntity, variables: variables) else { continue }
                if !paths.isEmpty || !quantified.isEmpty { keyPathPredicates += 1 }
                _ = compiled.evaluate([:], id: .int(1))
            }
        }
    }

    @Test func appendLine() throws {
        let schema = try Schema(jsonText: Fixtures.employeesJSON)
        var parsed = 0
        for (name, bytes) in try Self.inputs("append-line") {
            let text = String(decoding: bytes, as: UTF8.self)
            if let entry = try? AppendInput.parseLine(text, lineNumber: 1, schema: schema) {
                #expect(!entry.requests.isEmpty, "\(name)")
                parsed += 1
            }
            _ = try? AppendInput.parse(text, schema: schema)
        }
        #expect(parsed >= 5)
    }
}
