import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The initial fetch decodes an object row straight into its entity's canonical form (a merge walk over the
/// record's names): it must give what decoding then ``EntityDescription/canonical(_:)`` gives, and the same
/// error for every truncated or changed record.
@Suite("Canonical record decode")
struct CanonicalRecordDecodeTests {
    /// Old path: the general decode, then `canonical`; new path: the merge walk. Results compared as bytes (NaN).
    static func check(_ bytes: [UInt8], key: [UInt8], format: Int, entity: EntityDescription, _ note: String) {
        bytes.withUnsafeBytes { raw in
            key.withUnsafeBytes { kb in
                let old = Result { () throws(CodecError) in
                    entity.canonical(try ObjectRecordCodec.decode(raw, key: kb, format: format).values)
                }
                let new = Result { () throws(CodecError) in
                    try ObjectRecordCodec.decode(raw, key: kb, format: format, canonicalFor: entity.attributes)
                }
                switch (old, new) {
                case (.success(let a), .success(let b)):
                    #expect(ObjectRecordCodec.encode(values: a, seq: 1) == ObjectRecordCodec.encode(values: b, seq: 1), "\(note)")
                case (.failure(let a), .failure(let b)):
                    #expect(a == b, "\(note)")
                default:
                    Issue.record("old \(old) vs new \(new): \(note)")
                }
            }
        }
    }

    @Test func equalsDecodeThenCanonicalOnRandomRecordsAndEveryTruncationOrFlip() {
        var g = SeededGenerator(stream: 1010)
        for round in 0..<150 {
            let schema = RandomSchemas.schema(using: &g)
            guard let entity = schema.entities.values.first else { continue }
            var values = RandomValues.values(for: entity, jsonSafe: false, using: &g)
            // Some attributes missing (an older schema's row), some names the schema lacks (a dropped attribute).
            for name in Array(values.keys) where Bool.random(using: &g) && Int.random(in: 0..<3, using: &g) == 0 {
                values[name] = nil
            }
            for extra in ["", "a", "zz", "é", "\u{7F}x"] where Int.random(in: 0..<3, using: &g) == 0 {
                values["\(extra)\(Int.random(in: 0..<3, using: &g))x"] = .int(RandomValues.int(using: &g))
            }
            let id = RandomValues.id(for: entity, using: &g)
            let key = ObjectRecordCodec.key(ObjectKey(entity: entity.name, id: id))
            let seq = UInt64.random(in: 1...UInt64(Int64.max), using: &g)
            key.withUnsafeBytes { kb in
                #expect((try? ObjectRecordCodec.decodeID(kb, prefixCount: entity.name.utf8.count + 1)) == id, "\(g.rerunHint)")
            }
            for format in [1, 2] {
                let bytes = ObjectRecordCodec.encode(values: values, seq: seq, key: key, format: format)
                Self.check(bytes, key: key, format: format, entity: entity, "round \(round), \(g.rerunHint)")
                for n in 0..<bytes.count {
                    Self.check(Array(bytes[..<n]), key: key, format: format, entity: entity, "truncated to \(n), \(g.rerunHint)")
                }
                for i in 0..<bytes.count {
                    var flipped = bytes
                    flipped[i] ^= UInt8.random(in: 1...255, using: &g)
                    Self.check(flipped, key: key, format: format, entity: entity, "byte \(i) changed, \(g.rerunHint)")
                }
            }
        }
    }

    @Test func anEmptyRecordIsAllNulls() throws {
        let entity = EntityDescription(name: "E", idType: .int, attributes: [
            Attribute(name: "b", type: .string, isOptional: true), Attribute(name: "a", type: .int, isOptional: true),
        ])
        let bytes = ObjectRecordCodec.encode(values: [:], seq: 3)
        let values = try bytes.withUnsafeBytes { raw throws(CodecError) in
            try ObjectRecordCodec.decode(raw, key: UnsafeRawBufferPointer(start: nil, count: 0), format: 1, canonicalFor: entity.attributes)
        }
        #expect(values == ["a": .null, "b": .null])
    }
}
