import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The slot reader (`TransactionCodec.slotChanges`, what replay and time travel fold by) against the full decoder:
/// the same changes of the wanted entity with each value in its attribute's slot, the inverses for an undo, the
/// same errors for damaged entries, `false` exactly when a change names an attribute the layout lacks, and no
/// trap on any bytes.
@Suite struct SlotFoldReaderTests {
    /// One decoded change, comparable: its kind, id and (slot, value) pairs (a double by its bit pattern, so NaN
    /// and -0.0 compare exactly).
    struct Flat: Equatable, CustomStringConvertible {
        var kind: String
        var id: ObjectID
        var values: [String]
        var description: String { "\(kind) \(id) \(values)" }
    }

    static func text(_ slot: Int, _ v: Value) -> String {
        if case let .double(d) = v { return "\(slot)=d\(d.bitPattern)" }
        return "\(slot)=\(v)"
    }

    /// What the slot reader gives, or `nil` when it reports an unresolved name.
    static func read(_ bytes: [UInt8], seq: UInt64, entity: String, layout: SlotLayout, undo: Bool) throws(CodecError) -> [Flat]? {
        var out = SlotChanges()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                try TransactionCodec.slotChanges(raw, expectedSeq: seq, entity: Array(entity.utf8), layout: layout, undo: undo, into: &out)
            }
        }
        guard try result.get() else { return nil }
        return out.changes.indices.map { i in
            let c = out.changes[i]
            return Flat(kind: "\(c.kind)", id: out.ids[i], values: out.values[out.valueRange(of: i)].map { text($0.slot, out.value(of: $0)) })
        }
    }

    /// What it must give: the decoded entry's changes of `entity` (for an undo their inverses, last first: the
    /// order an undo applies them in), each value of a kept attribute in its slot; `nil` when one of them names an
    /// attribute the layout lacks.
    static func expected(_ t: Transaction, entity: String, layout: SlotLayout, undo: Bool) -> [Flat]? {
        var out: [Flat] = []
        for change in t.changes {
            guard let key = change.key, key.entity == entity else { continue }
            let c = undo ? change.inverse : change
            let named: ObjectValues
            let kind: String
            switch c {
            case let .insert(_, values): kind = "set"; named = values
            case let .update(_, values, _): kind = "merge"; named = values
            case .delete: kind = "remove"; named = [:]
            case .schema, .migration: continue
            }
            var pairs: [(Int, Value)] = []
            for (name, value) in named {
                guard let j = layout.attributes.firstIndex(where: { $0.name == name }) else { return nil }
                if layout.slotOf[j] >= 0 { pairs.append((layout.slotOf[j], value)) }
            }
            pairs.sort { $0.0 < $1.0 }
            out.append(Flat(kind: kind, id: key.id, values: pairs.map { text($0.0, $0.1) }))
        }
        return undo ? out.reversed() : out
    }

    @Test func givesEachChangeBySlotAndTheInversesForAnUndo() throws {
        var g = SeededGenerator(stream: 50)
        var unresolved = 0, compared = 0
        for i in 0..<600 {
            let schema = RandomSchemas.schema(using: &g)
            let t = RandomSchemas.transaction(schema: schema, seq: UInt64.random(in: 1...1_000_000, using: &g),
                                              maxChanges: 12, using: &g)
            let bytes = TransactionCodec.encode(t)
            let decoded = try TransactionCodec.decode(bytes, expectedSeq: t.seq)
            for entity in schema.entities.keys.sorted() + ["NotAnEntity"] {
                var attributes = schema.entities[entity]?.attributes ?? []
                // Sometimes a layout that lacks some names (as under a schema that was not additive).
                if Int.random(in: 0..<4, using: &g) == 0 { attributes = attributes.filter { _ in Bool.random(using: &g) } }
                let keeping = Bool.random(using: &g) ? nil : attributes.filter { _ in Bool.random(using: &g) }
                let layout = SlotLayout(attributes: attributes, keeping: keeping)
                for undo in [false, true] {
                    let got = try Self.read(bytes, seq: t.seq, entity: entity, layout: layout, undo: undo)
                    let want = Self.expected(decoded, entity: entity, layout: layout, undo: undo)
                    #expect(got == want, "\(g.rerunHint), transaction \(i), entity \(entity), undo \(undo)")
                    if want == nil { unresolved += 1 } else { compared += 1 }
                }
            }
        }
        // Both outcomes were exercised.
        #expect(unresolved > 0 && compared > 1000, "unresolved \(unresolved), compared \(compared)")
    }

    @Test func everyTruncationAndByteFlipIsTheDecodersError() {
        EntryDamage.checkTruncationsAndFlips(stream: 51, rounds: 60, reader: "slot reader") { bytes, schema, g throws(CodecError) in
            let entity = schema.entities.keys.sorted().first!
            _ = try Self.read(bytes, seq: 7, entity: entity, layout: SlotLayout(attributes: schema.entities[entity]!.attributes),
                              undo: Bool.random(using: &g))
        }
    }

    @Test func resealedCorruptionsNeverTrapAndAgreeWhenBothDecode() {
        let agreed = EntryDamage.resealedCorruptions(stream: 52, rounds: 300) { corrupt, schema, g in
            let entity = schema.entities.keys.sorted().last!
            let layout = SlotLayout(attributes: schema.entities[entity]!.attributes)
            let undo = Bool.random(using: &g)
            let got = try? Self.read(corrupt, seq: 4, entity: entity, layout: layout, undo: undo)
            guard let decoded = try? TransactionCodec.decode(corrupt, expectedSeq: 4),
                  let want = Self.expected(decoded, entity: entity, layout: layout, undo: undo) else { return false }
            #expect(got == .some(want), "\(g.rerunHint)")
            return true
        }
        #expect(agreed > 0)
    }
}
