import Testing
import TestSupport
@testable @_spi(Engine) import ViewLog
@testable @_spi(Engine) import ViewLogModel
@testable @_spi(Engine) import ViewLogQuery
@testable @_spi(Engine) import ViewLogStore
@testable @_spi(Engine) import ViewLogViews

/// A scan reads each object row's names by comparing them with the last row's (``RecordShape``): the values it
/// reads and the errors it throws are exactly those of reading every row the general way.
@Suite("Record shapes")
struct RecordShapeTests {
    /// The general reading of one record: its slots, or its error.
    static func general(_ bytes: [UInt8], _ wanted: [Attribute]) -> Result<[Value], CodecError> {
        let fetched = FetchedValues(attributes: wanted)
        return bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            do throws(CodecError) { try r.objectValues(into: fetched, names: AttributeNames(wanted)) } catch { return .failure(error) }
            return r.isAtEnd ? .success(Array(fetched.slots)) : .failure(.trailingBytes(offset: r.offset, count: r.remaining))
        }
    }

    /// Records of a few shapes — some names left out, names the scan does not want, every value type — in runs,
    /// and some of them damaged (a byte changed, cut short or grown): read one after another with one shape (into
    /// values that sometimes hold another record's), each gives the general reading's slots or error.
    @Test func aScanWithAShapeReadsAsTheGeneralWay() {
        var g = SeededGenerator(stream: 4711)
        let pool = ["a", "active", "b\u{e9}", "id2", "name", "score", "z", "\u{1F600}"]
        for round in 0..<200 {
            let wanted = pool.filter { _ in Int.random(in: 0..<3, using: &g) == 0 }.map { Attribute(name: $0, type: .string) }
            let names = AttributeNames(wanted)
            var shape = RecordShape()
            let fetched = FetchedValues(attributes: wanted)
            let shapes = (0..<Int.random(in: 1...3, using: &g)).map { _ in pool.filter { _ in Bool.random(using: &g) } }
            var run = shapes[0]
            for n in 0..<60 {
                if Int.random(in: 0..<8, using: &g) == 0 { run = shapes.randomElement(using: &g)! }
                var values = ObjectValues()
                for name in run { values[name] = KeyEncodingTests.randomValue(using: &g) }
                var w = ByteWriter(capacity: 64)
                w.objectValues(values)
                var bytes = w.finish()
                switch Int.random(in: 0..<10, using: &g) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &g)] ^= UInt8.random(in: 1...255, using: &g)
                case 1: bytes.removeLast(Int.random(in: 1...bytes.count, using: &g))
                case 2: bytes.append(UInt8.random(in: 0...255, using: &g))
                default: break
                }
                // Sometimes values read before: a slot the record lacks must still read as null.
                if Int.random(in: 0..<4, using: &g) == 0 {
                    for i in fetched.slots.indices { fetched.slots[i] = KeyEncodingTests.randomValue(using: &g) }
                }
                let expected = Self.general(bytes, wanted)
                let got: Result<[Value], CodecError> = bytes.withUnsafeBytes { raw in
                    var r = ByteReader(raw)
                    do throws(CodecError) { try r.objectValues(into: fetched, names: names, shape: &shape) } catch { return .failure(error) }
                    return r.isAtEnd ? .success(Array(fetched.slots)) : .failure(.trailingBytes(offset: r.offset, count: r.remaining))
                }
                switch (expected, got) {
                case let (.success(a), .success(b)):
                    #expect(a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) },
                            "round \(round), record \(n): \(b) instead of \(a), \(g.rerunHint)")
                case let (.failure(a), .failure(b)):
                    #expect("\(a)" == "\(b)", "round \(round), record \(n), \(g.rerunHint)")
                default:
                    Issue.record("round \(round), record \(n): \(got) instead of \(expected), \(g.rerunHint)")
                }
            }
        }
    }

    /// A record with more names than the shape keeps is read the general way, every time.
    @Test func aRecordWithTooManyNamesIsNotCached() {
        var values = ObjectValues()
        for i in 0...RecordShape.namesMax { values["n\(1000 + i)"] = .int(Int64(i)) }
        var w = ByteWriter(capacity: 64)
        w.objectValues(values)
        let bytes = w.finish()
        var shape = RecordShape()
        let wanted = [Attribute(name: "n1003", type: .int)]
        let fetched = FetchedValues(attributes: wanted)
        for _ in 0..<2 {
            bytes.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                #expect(throws: Never.self) { try r.objectValues(into: fetched, names: AttributeNames(wanted), shape: &shape) }
            }
            #expect(shape.count == 0)
            #expect(Array(fetched.slots) == [.int(3)])
        }
    }
}
