import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The fold reader (`TransactionCodec.forEachChange`, used by time travel and deltas) against the full decoder:
/// the same changes of the wanted entity, the same errors for damaged entries, and no trap on any bytes.
@Suite struct TransactionFoldReaderTests {
    /// The changes the fold reader gives for `entity` with `updates`, or its error.
    static func folded(_ bytes: [UInt8], seq: UInt64, entity: String?, updates: UpdateValues) throws(CodecError) -> [Change] {
        var out: [Change] = []
        let name = entity.map { Array($0.utf8) }
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                try TransactionCodec.forEachChange(raw, expectedSeq: seq, entity: name, updates: updates) { out.append($0) }
            }
        }
        try result.get()
        return out
    }

    /// What the fold reader must give: the decoded entry's object changes of `entity`, updates cut to one side.
    static func expected(_ t: Transaction, entity: String?, updates: UpdateValues) -> [Change] {
        t.changes.compactMap { change -> Change? in
            guard let key = change.key, entity == nil || key.entity == entity else { return nil }
            guard case let .update(k, values, previous) = change else { return change }
            switch updates {
            case .both: return change
            case .new: return .update(k, values: values, previous: [:])
            case .previous: return .update(k, values: [:], previous: previous)
            }
        }
    }

    @Test func givesTheDecodedChangesOfTheWantedEntity() throws {
        var g = SeededGenerator(stream: 40)
        for i in 0..<800 {
            let schema = RandomSchemas.schema(using: &g)
            let t = RandomSchemas.transaction(schema: schema, seq: UInt64.random(in: 1...1_000_000, using: &g),
                                              maxChanges: 12, using: &g)
            let bytes = TransactionCodec.encode(t)
            let decoded = try TransactionCodec.decode(bytes, expectedSeq: t.seq)
            for entity in [nil] + schema.entities.keys.sorted().map(Optional.some) + ["NotAnEntity"] {
                for updates in [UpdateValues.both, .new, .previous] {
                    let got = try Self.folded(bytes, seq: t.seq, entity: entity, updates: updates)
                    // Compared through their encodings: NaN values are equal by bit pattern there.
                    let want = Self.expected(decoded, entity: entity, updates: updates)
                    #expect(got.count == want.count && zip(got, want).allSatisfy { Self.bytes($0) == Self.bytes($1) },
                            "\(g.rerunHint), transaction \(i), entity \(entity ?? "all"), \(updates)")
                }
            }
        }
    }

    /// A change's encoding (an update's sides apart: the fold reader may leave one empty).
    static func bytes(_ change: Change) -> [UInt8] {
        func encode(_ c: Change) -> [UInt8] {
            TransactionCodec.encode(Transaction(seq: 1, time: Timestamp(milliseconds: 0), author: "", changes: [c]))
        }
        guard case let .update(key, values, previous) = change else { return encode(change) }
        return [2] + encode(.insert(key, values: values)) + encode(.insert(key, values: previous))
    }

    @Test func everyTruncationAndByteFlipIsTheDecodersError() {
        EntryDamage.checkTruncationsAndFlips(stream: 41, rounds: 60, reader: "fold reader") { bytes, schema, _ throws(CodecError) in
            _ = try Self.folded(bytes, seq: 7, entity: schema.entities.keys.sorted().first, updates: .previous)
        }
    }

    @Test func resealedCorruptionsNeverTrapAndAgreeWhenBothDecode() {
        let agreed = EntryDamage.resealedCorruptions(stream: 42, rounds: 300) { corrupt, schema, g in
            let entity = schema.entities.keys.sorted().last
            let folded = try? Self.folded(corrupt, seq: 4, entity: entity, updates: .both)
            guard let decoded = try? TransactionCodec.decode(corrupt, expectedSeq: 4) else { return false }
            let want = Self.expected(decoded, entity: entity, updates: .both)
            #expect(folded.map { $0.map(Self.bytes) } == want.map(Self.bytes), "\(g.rerunHint)")
            return true
        }
        #expect(agreed > 0)
    }
}
