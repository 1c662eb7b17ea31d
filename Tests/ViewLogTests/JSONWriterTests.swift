import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `JSONWriter` writes the same bytes as the `JSONValue` tree's text, for every kind of value, and its strings are
/// escaped as the CLI contract's JSON always was (checked against an independent escaper, scalar by scalar, since
/// the tree's text is written by `JSONWriter` too).
@Suite struct JSONWriterTests {
    /// The escapes of the CLI's JSON, written independently of `JSONWriter`: `\"`, `\\`, `\n`, `\r`, `\t`,
    /// `\u00xx` for other control characters and DEL, every other scalar as it is.
    static func referenceText(of s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    @Test func everyASCIICharacterIsEscapedAsTheContractSays() {
        for b in UInt8(0)...0x7F {
            let s = String(UnicodeScalar(b))
            var w = JSONWriter()
            w.string(s)
            #expect(String(decoding: w.bytes, as: UTF8.self) == Self.referenceText(of: s), "byte \(b)")
        }
        #expect(JSONValue.string("a\u{1}\"\\").text == #""a\u0001\"\\""#)
    }

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
            #expect("[" + String(decoding: w.bytes, as: UTF8.self) + "]" == "[\(Self.referenceText(of: s)), \(i)]")
        }
    }

    /// Integers of every length of digits, both signs, against Swift's own decimal text.
    @Test func integersOfEveryLength() {
        var g = SeededGenerator(seed: 7)
        var samples: [Int64] = [0, 9, 10, 99, 100, .max, .min, .max - 1, .min + 1]
        for digits in 1...18 {
            let p = (0..<digits).reduce(Int64(1)) { r, _ in r * 10 }
            samples += [p - 1, p, p + 1, -p, Int64.random(in: (p / 10)..<p, using: &g)]
        }
        for i in samples {
            var w = JSONWriter()
            w.int(i)
            #expect(String(decoding: w.bytes, as: UTF8.self) == String(i))
        }
    }

    /// Member keys written once are the keys ``JSONWriter/key(_:first:)`` writes, escapes included.
    @Test func memberKeysAreTheKeysWrittenByName() {
        let names = ["a", "", "é\"q\"", "tab\t", "name", "😀"]
        let keys = JSONWriter.MemberKeys(names)
        var byName = JSONWriter(), byIndex = JSONWriter()
        for (j, name) in names.enumerated() {
            byName.key(name, first: j == 0)
            byName.int(Int64(j))
            byIndex.key(j, of: keys)
            byIndex.int(Int64(j))
        }
        #expect(byIndex.bytes == byName.bytes)
    }

    /// The reservations of the unchecked writer hold the worst cases: a string whose every byte is escaped to six,
    /// and the longest texts of doubles and dates (it would trap past them).
    @Test func reservationsHoldTheWorstCases() {
        let worst = [UInt8](repeating: 0x01, count: 1000)
        var w = JSONWriter()
        worst.withUnsafeBytes { w.string(utf8: $0) }
        #expect(w.bytes.count == JSONWriter.Unchecked.stringBytesMax(worst.count))
        let extremes: [Value] = [.double(-1.7976931348623157e308), .double(-Double.leastNonzeroMagnitude), .double(-2.2250738585072014e-308),
                                 .double(-0.0), .double(.nan), .double(-.infinity), .int(.min), .bool(false), .null,
                                 .date(Timestamp(milliseconds: .min)), .date(Timestamp(milliseconds: .max))]
        for value in extremes {
            var u = JSONWriter()
            u.appendUnchecked(atMost: JSONWriter.Unchecked.scalarBytesMax) { $0.value(value) }
            #expect(String(decoding: u.bytes, as: UTF8.self) == value.json.text, "\(value)")
        }
    }
}
