import Testing
@testable @_spi(Testing) @_spi(Engine) import ViewLog
@testable @_spi(Testing) @_spi(Engine) import ViewLogModel
@testable @_spi(Testing) @_spi(Engine) import ViewLogQuery
@testable @_spi(Testing) @_spi(Engine) import ViewLogStore
@testable @_spi(Testing) @_spi(Engine) import ViewLogViews
import ViewLogTesting
import TestSupport

/// The byte keys of views: `memcmp` order of encoded keys is exactly the view order of DESIGN §4.
@Suite struct KeyEncodingTests {
    static func bytes(_ v: Value, ascending: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        KeyEncoding.append(v, ascending: ascending, to: &out)
        return out
    }

    static func sign(_ x: Int) -> Int { x < 0 ? -1 : (x == 0 ? 0 : 1) }

    static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int {
        sign(a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareBytes(x, y) } })
    }

    /// Checks one pair in both directions against ``Value/compare(_:_:)``.
    static func check(_ a: Value, _ b: Value, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = sign(Value.compare(a, b))
        #expect(byteOrder(bytes(a), bytes(b)) == expected, "\(a) vs \(b) ascending", sourceLocation: sourceLocation)
        #expect(byteOrder(bytes(a, ascending: false), bytes(b, ascending: false)) == -expected,
                "\(a) vs \(b) descending", sourceLocation: sourceLocation)
    }

    static func randomValue(using g: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<7, using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2: return .int(RandomValues.int(using: &g))
        case 3: return .double(RandomValues.double(jsonSafe: false, using: &g))
        case 4: return .string(RandomValues.string(using: &g))
        case 5: return .date(RandomValues.timestamp(jsonSafe: false, using: &g))
        default:
            // An int and a double near each other, also beyond 2^53 where doubles skip integers.
            let i = RandomValues.int(using: &g)
            return Bool.random(using: &g) ? .double(Double(i)) : .int(i &+ Int64.random(in: -2...2, using: &g))
        }
    }

    @Test func randomPairsOrderAsValueCompareBothDirections() {
        var g = SeededGenerator(stream: 41)
        for _ in 0..<40_000 {
            let a = Self.randomValue(using: &g)
            let b = Bool.random(using: &g) ? Self.randomValue(using: &g) : a
            Self.check(a, b)
        }
    }

    @Test func numbersAcrossIntAndDoubleAreExact() {
        let ints: [Int64] = [.min, .min + 1, -(1 << 53) - 1, -(1 << 53), -1, 0, 1, (1 << 53), (1 << 53) + 1,
                             (1 << 62), .max - 1, .max]
        let doubles: [Double] = [-.infinity, -9.223372036854775808e18, -9007199254740994, -9007199254740992, -1.5,
                                 -0.0, 0.0, .leastNonzeroMagnitude, 0.5, 1, 9007199254740992, 9.223372036854775807e18,
                                 .greatestFiniteMagnitude, .infinity, .nan]
        let all = ints.map(Value.int) + doubles.map(Value.double)
        for a in all { for b in all { Self.check(a, b) } }
        // Equal values encode the same: an int and a double of equal value, -0.0 and 0.0, every NaN.
        #expect(Self.bytes(.int(Int64.min)) == Self.bytes(.double(-9.223372036854775808e18)))
        #expect(Self.bytes(.int(1 << 53)) == Self.bytes(.double(9007199254740992)))
        #expect(Self.bytes(.int(0)) == Self.bytes(.double(-0.0)))
        #expect(Self.bytes(.double(-0.0)) == Self.bytes(.double(0.0)))
        #expect(Self.bytes(.double(.nan)) == Self.bytes(.double(-Double.nan)))
        // Int64.max (2^63 - 1) is below the double 2^63; 2^53 + 1 is above the double 2^53.
        #expect(Self.byteOrder(Self.bytes(.int(.max)), Self.bytes(.double(9.223372036854775807e18))) == -1)
        #expect(Self.byteOrder(Self.bytes(.int((1 << 53) + 1)), Self.bytes(.double(9007199254740992))) == 1)
    }

    @Test func stringsCompareByCodePointWithPrefixesFirst() {
        let strings = ["", "\u{0}", "\u{0}\u{0}", "a", "a\u{0}", "a\u{0}b", "ab", "b", "e", "e\u{301}", "\u{e9}", "\u{e9}x",
                       "\u{FFFD}", "😀", "\u{10FFFF}", "\u{1}"]
        for a in strings { for b in strings { Self.check(.string(a), .string(b)) } }
        // Canonically equivalent strings are different keys, ordered by code point (U+0065 U+0301 < U+00E9).
        #expect(Self.bytes(.string("\u{e9}")) != Self.bytes(.string("e\u{301}")))
        #expect(Self.byteOrder(Self.bytes(.string("e\u{301}")), Self.bytes(.string("\u{e9}"))) == -1)
    }

    @Test func valuesReadBackFromTheirBytes() {
        var g = SeededGenerator(stream: 42)
        for _ in 0..<20_000 {
            let v = Self.randomValue(using: &g)
            for ascending in [true, false] {
                let b = Self.bytes(v, ascending: ascending)
                let type: AttributeType? = if case .double = v { .double } else { v.type }
                let back = b.withUnsafeBytes { KeyEncoding.value($0, at: 0, ascending: ascending, type: type) }
                #expect(b.withUnsafeBytes { KeyEncoding.componentEnd($0, from: 0, ascending: ascending) } == b.count)
                if case .double(let d) = v, d.isNaN {
                    #expect(back.isNaNDouble)
                } else if case .double(let d) = v, d == 0 {
                    #expect(back == .double(0))  // -0.0 reads back as 0.0: one section, one name
                } else {
                    #expect(Value.identical(back, v), "\(v) read back as \(back)")
                }
            }
        }
    }

    /// Whole keys (several values with directions, then the id): `memcmp` order is the view order.
    @Test func wholeKeysOrderAsTheViewOrder() {
        var g = SeededGenerator(stream: 43)
        for _ in 0..<300 {
            let width = Int.random(in: 0...3, using: &g)
            let ascending = (0..<width).map { _ in Bool.random(using: &g) }
            let order = RowOrder(ascending: ascending, isSectioned: width > 0, keyPaths: (0..<width).map { "k\($0)" })
            var rows: [(values: [Value], id: ObjectID)] = []
            for n in 0..<40 {
                // Few distinct values, so that ties fall through to later values and the id.
                let values = (0..<width).map { _ in
                    [Value.null, .int(1), .double(1), .double(-0.0), .string(""), .string("a"), .string("a\u{0}"),
                     .string("\u{e9}"), .string("e\u{301}"), .bool(true)].randomElement(using: &g)!
                }
                let id: ObjectID = Bool.random(using: &g) ? .int(Int64(n) - 20)
                    : .string(["", "a", "\u{e9}", "e\u{301}", "a\u{0}"][n % 5] + String(n))
                rows.append((values, id))
            }
            for a in rows {
                for b in rows {
                    let expected = Self.sign(OrderedRowsTests.compare(order, a, b))
                    let ka = order.key(id: a.id, keyValues: a.values), kb = order.key(id: b.id, keyValues: b.values)
                    #expect(Self.byteOrder(ka.bytes, kb.bytes) == expected, "\(a) vs \(b), ascending \(ascending)")
                    #expect(ka.id == a.id)
                }
            }
        }
    }

    /// Sections are identified by code points: "é" as U+00E9 and as e + U+0301 are two sections, and a batch
    /// moving a row between them is a valid change set.
    @Test func canonicallyEquivalentSectionsAreDistinct() throws {
        let entity = EntityDescription(name: "Row", idType: .int, attributes: [Attribute(name: "s", type: .string)])
        let request = FetchRequest(entity: "Row", sortDescriptors: [ViewSortDescriptor(key: "s")], sectionKey: "s")
        let objects: [(ObjectID, ObjectValues)] = [(.int(1), ["s": .string("e\u{301}")]), (.int(2), ["s": .string("\u{e9}")]),
                                                    (.int(3), ["s": .string("\u{e9}")])]
        let c = try ResultsController(fetchRequest: request, entity: entity, objects: objects)
        #expect(c.sections.map { Array(($0.name ?? "").unicodeScalars) } == [["e", "\u{301}"], ["\u{e9}"]])
        #expect(c.sections.map(\.numberOfObjects) == [1, 2])
        let before = c.snapshot
        let delta = Delta(from: 0, to: 1, objects: [
            ObjectDelta(key: ObjectKey(entity: "Row", id: .int(2)), before: ["s": .string("\u{e9}")],
                        after: ["s": .string("e\u{301}")], seq: 1),
            ObjectDelta(key: ObjectKey(entity: "Row", id: .int(3)), before: ["s": .string("\u{e9}")],
                        after: ["s": .string("e\u{301}")], seq: 1),
        ])
        let cs = c.apply(delta)
        c.checkInvariants(deep: true)
        #expect(cs.sectionChanges.count == 1 && cs.sectionChanges.first?.kind == .delete && cs.sectionChanges.first?.index == 1)
        #expect(cs.rowChanges.count == 2 && cs.rowChanges.allSatisfy { $0.kind == .move })
        #expect(c.sections.map(\.numberOfObjects) == [3])
        #expect(cs.applied(to: before)?.sections.map(\.rows) == c.snapshot.sections.map(\.rows))
    }
}

extension Value {
    fileprivate var isNaNDouble: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }
}

extension KeyEncodingTests {
    /// A key written into a reused ``ByteWriter`` (a load's rows) has the bytes of one appended to an array.
    /// A string's bytes are its UTF-8 with each 0x00 followed by 0xFF, then 0x00 0x01 — whether it is copied whole
    /// (no 0x00) or byte by byte, small (inline) or long, into either sink.
    @Test func stringsAreEscapedByteForByte() {
        let long = String(repeating: "item-\u{e9}", count: 40)
        for s in ["", "a", "item-12345", "\u{0}", "a\u{0}b", long, long + "\u{0}", "\u{0}" + long, String(long.reversed())] {
            var expected: [UInt8] = [KeyEncoding.stringTag]
            for b in s.utf8 { expected += b == 0 ? [0, 0xFF] : [b] }
            expected += [0, 1]
            var array: [UInt8] = []
            var writer = ByteWriter(capacity: 1)
            KeyEncoding.append(.string(s), ascending: true, to: &array)
            KeyEncoding.append(.string(s), ascending: true, to: &writer)
            #expect(array == expected, "\(s.utf8.count) bytes")
            #expect(writer.withBytes(0..<writer.count) { Array($0) } == expected, "\(s.utf8.count) bytes")
        }
    }

    @Test func aByteWriterSinkWritesTheArraysBytes() {
        var g = SeededGenerator(stream: 44)
        var writer = ByteWriter(capacity: 1)
        for _ in 0..<2_000 {
            var array: [UInt8] = []
            writer.truncate(to: 0)
            for _ in 0..<Int.random(in: 0...3, using: &g) {
                let v = Self.randomValue(using: &g), ascending = Bool.random(using: &g)
                KeyEncoding.append(v, ascending: ascending, to: &array)
                KeyEncoding.append(v, ascending: ascending, to: &writer)
            }
            let id: ObjectID = Bool.random(using: &g) ? .int(RandomValues.int(using: &g)) : .string(RandomValues.string(using: &g))
            KeyEncoding.append(id: id, to: &array)
            KeyEncoding.append(id: id, to: &writer)
            #expect(writer.withBytes(0..<writer.count) { Array($0) } == array)
        }
    }
}
