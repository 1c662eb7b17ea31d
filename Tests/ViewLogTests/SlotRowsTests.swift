import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `SlotRows` keeps each row's values as a tag byte and an 8-byte payload per slot (strings aside, their places
/// reused). Random batches of sets, merges and removes — values of every type, NaN payloads, -0.0, empty and repeated
/// strings, nulls — against a dictionary model: every value reads back exactly (a double by its bit pattern), and
/// the seq and existence of every row.
@Suite("Slot rows")
struct SlotRowsTests {
    static let attributes: [Attribute] = [
        Attribute(name: "a", type: .string, isOptional: true), Attribute(name: "b", type: .int, isOptional: true),
        Attribute(name: "c", type: .double, isOptional: true), Attribute(name: "d", type: .bool, isOptional: true),
        Attribute(name: "e", type: .date, isOptional: true), Attribute(name: "f", type: .string, isOptional: true),
        Attribute(name: "g", type: .int, isOptional: true), Attribute(name: "h", type: .double, isOptional: true),
        Attribute(name: "i", type: .string, isOptional: true),  // nine slots: two tag words
    ]

    /// A value comparable exactly: a double by its bit pattern.
    static func exact(_ v: Value?) -> String {
        switch v {
        case .double(let d)?: return "d\(d.bitPattern)"
        case let v?: return "\(v)"
        case nil: return "absent"
        }
    }

    static func randomValue(_ type: AttributeType, using g: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<8, using: &g) {
        case 0: return .null
        case 1 where type == .double: return .double([Double.nan, -Double.nan, -0.0, .infinity, Double(bitPattern: 0x7FF0_0000_0000_0001)].randomElement(using: &g)!)
        case 2 where type == .string: return .string(["", "x", "x"].randomElement(using: &g)!)
        default: return RandomValues.value(of: type, jsonSafe: false, using: &g)
        }
    }

    @Test func valuesReadBackExactlyThroughRandomBatches() {
        var g = SeededGenerator(stream: 77)
        for round in 0..<40 {
            let keeping = Bool.random(using: &g) ? nil : Self.attributes.filter { _ in Bool.random(using: &g) }
            let layout = SlotLayout(attributes: Self.attributes, keeping: keeping)
            var rows = SlotRows(layout: layout, capacity: Int.random(in: 0...8, using: &g))
            // The model: per id, whether it exists, its seq and its values by slot.
            var model: [ObjectID: (exists: Bool, seq: UInt64, slots: [Value?])] = [:]
            var order: [ObjectID] = []
            func row(of id: ObjectID) -> Int { order.firstIndex(of: id)! }
            // Some existing rows first, as a fold from the head starts.
            for n in 0..<Int.random(in: 0...10, using: &g) {
                let id = ObjectID.int(Int64(n * 3))
                let slots = layout.kept.map { Self.randomValue($0.type, using: &g) }
                let fetched = FetchedValues(attributes: layout.kept)
                for (i, v) in slots.enumerated() { fetched.slots[i] = v }
                rows.appendExisting(id, fetched)
                model[id] = (true, 0, slots)
                order.append(id)
            }
            var seq: UInt64 = 0
            for _ in 0..<30 {
                var batch = SlotChanges()
                for _ in 0..<Int.random(in: 0...40, using: &g) {
                    seq += 1
                    let id = ObjectID.int(Int64.random(in: 0...40, using: &g))
                    let kind = [SlotChanges.Kind.set, .merge, .remove].randomElement(using: &g)!
                    var entry = model[id] ?? (false, 0, Array(repeating: nil, count: layout.width))
                    if model[id] == nil { order.append(id) }
                    let start = batch.values.count
                    if kind != .remove {
                        for slot in 0..<layout.width where Bool.random(using: &g) {
                            batch.append(slot: slot, value: Self.randomValue(layout.kept[slot].type, using: &g))
                        }
                    }
                    if kind != .merge { entry.slots = Array(repeating: nil, count: layout.width) }
                    for v in batch.values[start...] {
                        entry.slots[v.slot] = batch.value(of: v)
                    }
                    entry.exists = kind != .remove
                    entry.seq = seq
                    model[id] = entry
                    batch.end(kind, id: id, seq: seq)
                }
                rows.apply(batch)
                #expect(rows.count == order.count, "round \(round)")
                let output = rows.output(layout.kept)
                for id in order {
                    let expected = model[id]!
                    let r = row(of: id)
                    #expect(rows.seq(ofRow: r) == expected.seq, "round \(round), \(id)")
                    let got = rows.values(ofRow: r, canonicalFor: output)
                    #expect((got != nil) == expected.exists, "round \(round), \(id)")
                    if let got {
                        for (slot, attribute) in layout.kept.enumerated() {
                            #expect(Self.exact(got[attribute.name]) == Self.exact(expected.slots[slot] ?? .null),
                                    "round \(round), \(id), \(attribute.name)")
                        }
                    }
                }
                var seen = 0, accepted = 0
                let fetched = FetchedValues(attributes: layout.kept)
                rows.forEachExistingRow(reading: output, into: fetched, all: output, visit: { id, read in
                    seen += 1
                    let expected = model[id]!
                    #expect(read.slots.map { Self.exact($0) } == expected.slots.map { Self.exact($0 ?? .null) }, "round \(round), \(id)")
                    return seen % 2 == 0  // every other row accepted: only those get their whole values
                }, member: { id, values in
                    accepted += 1
                    let expected = model[id]!
                    #expect(values.map { Self.exact($0) } == expected.slots.map { Self.exact($0 ?? .null) }, "round \(round), \(id)")
                })
                #expect(seen == model.values.filter(\.exists).count, "round \(round)")
                #expect(accepted == seen / 2, "round \(round)")
                #expect(rows.existingRows(canonicalFor: output).map(\.id) == model.filter(\.value.exists).map(\.key).sorted(),
                        "round \(round)")
            }
        }
    }
}

extension SlotRowsTests {
    /// A layout compares a logged name with its names by their first 8 bytes as a word, then by length or bytes:
    /// the same order as comparing the bytes, for names of every length (NUL bytes, bytes above 0x7F, prefixes of
    /// each other) and with fewer than 8 bytes readable past the name.
    @Test func aLayoutComparesNamesAsTheirBytesDo() {
        var g = SeededGenerator(stream: 812)
        let alphabet: [UInt8] = [0, 1, 0x61, 0x62, 0x7F, 0x80, 0xC3, 0xFF]
        func name() -> [UInt8] { (0..<Int.random(in: 1...12, using: &g)).map { _ in alphabet.randomElement(using: &g)! } }
        for _ in 0..<300 {
            // The layout's names are attribute names: sorted and distinct (as valid UTF-8 they need not be here).
            let names = Set((0..<Int.random(in: 1...6, using: &g)).map { _ in name() }).sorted { $0.lexicographicallyPrecedes($1) }
            let layout = SlotLayout(attributes: names.map { Attribute(name: String(decoding: $0, as: UTF8.self), type: .int) })
            for _ in 0..<20 {
                var raw = Bool.random(using: &g) ? names.randomElement(using: &g)! : name()
                if Bool.random(using: &g), let n = names.randomElement(using: &g) { raw = Array(n.prefix(Int.random(in: 1...n.count, using: &g))) }
                let slack = Int.random(in: 0...9, using: &g)
                let buffer = raw + (0..<slack).map { _ in alphabet.randomElement(using: &g)! }
                buffer.withUnsafeBytes { b in
                    let r = UnsafeRawBufferPointer(rebasing: b[..<raw.count])
                    let word = ByteReader.leadingWord(r, available: b.count)
                    for (j, n) in layout.names.enumerated() {
                        let expected = n.withUnsafeBytes { ByteReader.compare(r, $0) }.signum()
                        #expect(layout.compare(r, word: word, toName: j).signum() == expected, "\(raw) vs \(n), \(g.rerunHint)")
                    }
                }
            }
        }
    }
}
