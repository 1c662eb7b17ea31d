import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog

/// `JSONWriter` writes the same bytes as the `JSONValue` tree's text, for every kind of value.
@Suite struct JSONWriterTests {
    static let types: [AttributeType] = [.string, .int, .double, .bool, .date]

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func valuesAsTheTreeWritesThem(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        for _ in 0..<2000 {
            // JSON-safe dates (Timestamp.iso8601 traps outside years -9999…9999, in both writers); NaN and infinities in edgeCases.
            let value: Value = Int.random(in: 0..<8, using: &g) == 0
                ? .null
                : RandomValues.value(of: Self.types[Int.random(in: 0..<Self.types.count, using: &g)],
                                     jsonSafe: true, using: &g)
            var w = JSONWriter()
            w.value(value)
            #expect(String(decoding: w.bytes, as: UTF8.self) == value.json.text, "\(value)")
            #expect(w.bytes == Array(value.json.text.utf8))
        }
    }

    @Test func edgeCases() {
        let values: [Value] = [.double(-0.0), .double(0), .double(1e300), .double(-1.5e-300), .double(.nan),
                               .double(.infinity), .int(.min), .int(.max), .int(0), .int(-7), .int(10),
                               .string(""), .string("\u{0}\u{1F}\u{7F}\u{80}\"\\\n\r\t/é😀\u{2028}"),
                               .date(Timestamp(milliseconds: 0)), .date(Timestamp(milliseconds: -62_135_596_800_000)), .bool(true)]
        for value in values {
            var w = JSONWriter()
            w.value(value)
            #expect(String(decoding: w.bytes, as: UTF8.self) == value.json.text, "\(value)")
        }
    }

    @Test(arguments: [UInt64(5), 6])
    func idsAndStrings(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        for _ in 0..<1000 {
            let s = RandomValues.string(maxPieces: 10, using: &g)
            let i = RandomValues.int(using: &g)
            var w = JSONWriter()
            w.id(.string(s))
            w.raw(", ")
            w.id(.int(i))
            let tree = JSONValue.array([ObjectID.string(s).json, ObjectID.int(i).json]).text
            #expect("[" + String(decoding: w.bytes, as: UTF8.self) + "]" == tree)
        }
    }
}
