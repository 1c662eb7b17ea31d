import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The JSON parser's rules that its fast paths must keep: duplicate keys refused in small and large objects (by
/// String equality, canonical equivalence included, as before), and strings validated as UTF-8 unless ASCII.
@Suite struct JSONParserTests {
    @Test func duplicateKeysAreRefusedAtEverySize() throws {
        for n in [1, 2, 15, 16, 17, 40] {
            let members = (0..<n).map { "\"k\($0)\": \($0)" }
            let ok = "{" + members.joined(separator: ", ") + "}"
            #expect(throws: Never.self) { try JSONValue.parse(ok) }
            for dup in [0, n - 1] {
                let text = "{" + (members + ["\"k\(dup)\": 0"]).joined(separator: ", ") + "}"
                #expect(throws: JSONError.self, "\(n) keys, duplicate of k\(dup)") { try JSONValue.parse(text) }
            }
        }
        // Keys equal as Strings (canonically equivalent) are duplicates, in a small object and past 16 keys.
        #expect(throws: JSONError.self) { try JSONValue.parse("{\"\u{e9}\": 1, \"e\u{301}\": 2}") }
        let many = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        #expect(throws: JSONError.self) { try JSONValue.parse("{" + many + ", \"\u{e9}\": 1, \"e\u{301}\": 2}") }
    }

    @Test func stringsAreValidatedUnlessASCII() throws {
        #expect(try JSONValue.parse("\"abc\"") == .string("abc"))
        #expect(try JSONValue.parse("\"h\u{e9}\u{1F600}\"") == .string("h\u{e9}\u{1F600}"))
        let invalid: [[UInt8]] = [[0x22, 0xC3, 0x22], [0x22, 0x61, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]]
        for bytes in invalid {
            #expect(throws: JSONError.self, "\(bytes)") {
                try bytes.withUnsafeBufferPointer { b throws(JSONError) in _ = try JSONValue.parse(b) }
            }
        }
    }
}
