import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite struct TransactionCodecTests {
    static let schema: Schema = {
        let employee = EntityDescription(name: "Employee", idType: .string, attributes: [
            Attribute(name: "name", type: .string),
            Attribute(name: "height", type: .int, isOptional: true),
        ])
        return Schema(entities: ["Employee": employee])
    }()

    /// A small transaction whose bytes are pinned below and in `schema/log-format.md`.
    static let example = Transaction(
        seq: 1, time: Timestamp(milliseconds: 1_795_341_600_000), author: "cli",
        changes: [.insert(ObjectKey(entity: "E", id: .string("e1")), values: ["h": .int(180), "n": .string("Ann")])])

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in
            let h = String(b, radix: 16)
            return h.count == 1 ? "0" + h : h
        }.joined(separator: " ")
    }

    /// Re-encodes decoded bytes: equal bytes means an exact round trip, also for NaN payloads and -0.0.
    static func roundTrip(_ t: Transaction) throws -> [UInt8] {
        let bytes = TransactionCodec.encode(t)
        let decoded = try TransactionCodec.decode(bytes, expectedSeq: t.seq)
        return TransactionCodec.encode(decoded)
    }

    static func hasNaN(_ t: Transaction) -> Bool {
        func nan(_ v: ObjectValues) -> Bool { v.values.contains { if case .double(let d) = $0 { d.isNaN } else { false } } }
        return t.changes.contains { c in
            switch c {
            case .insert(_, let v), .delete(_, let v): return nan(v)
            case .update(_, let v, let p): return nan(v) || nan(p)
            case .schema, .migration: return false
            }
        }
    }

    @Test func goldenBytesOfASmallEntry() throws {
        let bytes = TransactionCodec.encode(Self.example)
        let crc = CRC32C.checksum(Array(bytes[16...]))
        let crcHex = Self.hex(withUnsafeBytes(of: crc.littleEndian) { Array($0) })
        let expected = [
            "56 4c 54 58 01 00 00 00 3f 00 00 00", crcHex,  // magic, version 1, flags, length 63, checksum
            "01 00 00 00 00 00 00 00",                       // seq 1
            "00 c5 b2 02 a2 01 00 00",                       // time 1795341600000 (2026-11-22T10:00:00.000Z)
            "03 63 6c 69",                                   // author "cli"
            "01",                                            // 1 change
            "01 01 45 02 02 65 31",                          // insert, entity "E", string id "e1"
            "02 01 68 02 b4 00 00 00 00 00 00 00",           // 2 values: "h" int 180
            "01 6e 01 03 41 6e 6e",                          //           "n" string "Ann"
        ].joined(separator: " ")
        #expect(Self.hex(bytes) == expected)
        #expect(bytes.count == 63)
        #expect(try TransactionCodec.decode(bytes, expectedSeq: 1) == Self.example)
    }

    @Test func randomTransactionsRoundTrip() throws {
        var g = SeededGenerator(stream: 10)
        for i in 0..<3000 {
            if i % 200 == 0 { _ = g.next() }
            let schema = RandomSchemas.schema(using: &g)
            let t = RandomSchemas.transaction(schema: schema, seq: UInt64.random(in: 1...UInt64(Int64.max), using: &g),
                                              maxChanges: 12, using: &g)
            let bytes = TransactionCodec.encode(t)
            let decoded = try TransactionCodec.decode(bytes, expectedSeq: t.seq)
            #expect(TransactionCodec.encode(decoded) == bytes, "\(g.rerunHint), transaction \(i)")
            if !Self.hasNaN(t) { #expect(decoded == t, "\(g.rerunHint), transaction \(i)") }
        }
    }

    @Test func encodingIsDeterministic() {
        var g = SeededGenerator(stream: 11)
        let schema = RandomSchemas.schema(using: &g)
        for _ in 0..<200 {
            let t = RandomSchemas.transaction(schema: schema, seq: 5, using: &g)
            // Rebuilding the dictionaries changes their iteration order, not the bytes.
            let rebuilt = Transaction(seq: t.seq, time: t.time, author: t.author, changes: t.changes.map { c in
                switch c {
                case let .insert(k, v): return .insert(k, values: Dictionary(uniqueKeysWithValues: v.reversed()))
                case let .delete(k, v): return .delete(k, previous: Dictionary(uniqueKeysWithValues: v.reversed()))
                default: return c
                }
            })
            #expect(TransactionCodec.encode(t) == TransactionCodec.encode(rebuilt), "\(g.rerunHint)")
        }
    }

    @Test func nanAndSignedZeroRoundTripByBitPattern() throws {
        let payloads: [Double] = [.nan, -.nan, Double(nan: 0x5_1234, signaling: false), Double(bitPattern: 0x7FF0_0000_0000_0001), -0.0]
        for d in payloads {
            let t = Transaction(seq: 2, time: Timestamp(milliseconds: 0), author: "",
                                changes: [.insert(ObjectKey(entity: "E", id: .int(-1)), values: ["d": .double(d)])])
            let decoded = try TransactionCodec.decode(TransactionCodec.encode(t), expectedSeq: nil)
            guard case .insert(_, let values) = decoded.changes.first, case .double(let back)? = values["d"] else {
                Issue.record("not an insert of a double")
                continue
            }
            #expect(back.bitPattern == d.bitPattern)
        }
    }

    @Test func seqIsChecked() throws {
        let bytes = TransactionCodec.encode(Self.example)
        #expect(throws: CodecError.unexpectedSeq(expected: 2, found: 1)) { try TransactionCodec.decode(bytes, expectedSeq: 2) }
        #expect(try TransactionCodec.decode(bytes, expectedSeq: nil).seq == 1)
    }

    @Test func checksumMismatchNamesTheSeq() throws {
        var t = Self.example
        t.seq = 17
        var bytes = TransactionCodec.encode(t)
        bytes[bytes.count - 1] ^= 0x01
        do {
            _ = try TransactionCodec.decode(bytes, expectedSeq: 17)
            Issue.record("a corrupt entry decoded")
        } catch {
            guard case .checksumMismatch(let seq, _, _) = error else {
                Issue.record("expected a checksum mismatch, got \(error)")
                return
            }
            #expect(seq == 17)
            #expect(error.description.hasPrefix("seq 17: checksum mismatch"))
            #expect(error.offset == 12)
        }
    }

    @Test func everyTruncationFails() {
        var g = SeededGenerator(stream: 12)
        for i in 0..<60 {
            let t = RandomSchemas.transaction(schema: RandomSchemas.schema(using: &g), seq: 3, using: &g)
            let bytes = TransactionCodec.encode(t)
            for n in 0..<bytes.count {
                #expect(throws: CodecError.self, "\(g.rerunHint), transaction \(i), \(n) of \(bytes.count) bytes") {
                    try TransactionCodec.decode(Array(bytes[..<n]), expectedSeq: nil)
                }
            }
            #expect(throws: CodecError.self) { try TransactionCodec.decode(bytes + [0], expectedSeq: nil) }
        }
    }

    @Test func everySingleByteCorruptionIsCaught() {
        var g = SeededGenerator(stream: 13)
        for i in 0..<60 {
            let t = RandomSchemas.transaction(schema: RandomSchemas.schema(using: &g), seq: 9, using: &g)
            let bytes = TransactionCodec.encode(t)
            for position in 0..<bytes.count {
                var corrupt = bytes
                corrupt[position] ^= UInt8.random(in: 1...255, using: &g)
                #expect(throws: CodecError.self, "\(g.rerunHint), transaction \(i), byte \(position)") {
                    try TransactionCodec.decode(corrupt, expectedSeq: 9)
                }
                if position >= 16 {
                    // Past the header, only the checksum can tell.
                    #expect(throws: CodecError.checksumMismatch(seq: 9, stored: Self.crc(corrupt), computed: CRC32C.checksum(Array(corrupt[16...])))) {
                        try TransactionCodec.decode(corrupt, expectedSeq: 9)
                    }
                }
            }
        }
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes[12]) | UInt32(bytes[13]) << 8 | UInt32(bytes[14]) << 16 | UInt32(bytes[15]) << 24
    }

    /// Fixes the length and checksum fields so that corruption reaches the structural decoder.
    static func reseal(_ bytes: inout [UInt8]) {
        guard bytes.count >= 16 else { return }
        let n = UInt32(bytes.count)
        for k in 0..<4 { bytes[8 + k] = UInt8(truncatingIfNeeded: n >> (8 * UInt32(k))) }
        let crc = CRC32C.checksum(Array(bytes[16...]))
        for k in 0..<4 { bytes[12 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
    }

    @Test func randomBytesNeverCrash() {
        var g = SeededGenerator(stream: 14)
        for i in 0..<3000 {
            var bytes = (0..<Int.random(in: 0...120, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            #expect(throws: CodecError.self, "\(g.rerunHint), sample \(i)") { try TransactionCodec.decode(bytes, expectedSeq: nil) }
            // The same bytes behind a valid header and checksum reach the body decoder: a value or an error.
            if bytes.count >= 32 {
                bytes.replaceSubrange(0..<8, with: TransactionCodec.magic + [1, 0, 0, 0])
                Self.reseal(&bytes)
                _ = try? TransactionCodec.decode(bytes, expectedSeq: nil)
            }
            _ = try? ObjectRecordCodec.decode(bytes)
            _ = try? ObjectRecordCodec.decodeKey(bytes)
        }
    }

    @Test func resealedCorruptionsDecodeToAValueOrAnError() throws {
        var g = SeededGenerator(stream: 15)
        var decodedCount = 0, failedCount = 0
        for i in 0..<400 {
            let schema = RandomSchemas.schema(using: &g)
            var t = RandomSchemas.transaction(schema: schema, seq: 4, using: &g)
            t.changes.removeAll { if case .schema = $0 { true } else { false } }
            if t.changes.isEmpty { continue }
            let bytes = TransactionCodec.encode(t)
            for _ in 0..<20 {
                var corrupt = bytes
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    let p = Int.random(in: 32..<corrupt.count, using: &g)
                    corrupt[p] = Bool.random(using: &g) ? UInt8.random(in: 0...255, using: &g) : corrupt[p] ^ 0x80
                }
                if Bool.random(using: &g) { corrupt.removeLast(Int.random(in: 0...min(4, corrupt.count - 32), using: &g)) }
                Self.reseal(&corrupt)
                do {
                    let decoded = try TransactionCodec.decode(corrupt, expectedSeq: 4)
                    decodedCount += 1
                    // Whatever decodes re-encodes to the same bytes: one encoding per value.
                    #expect(TransactionCodec.encode(decoded) == corrupt, "\(g.rerunHint), transaction \(i)")
                } catch {
                    failedCount += 1
                    #expect(error.offset != nil)
                }
            }
        }
        #expect(decodedCount > 0 && failedCount > 0)
    }

    @Test func lengthsAreCheckedBeforeAllocating() {
        // A change count of 2^32 - 1 and a string length of 2^32 - 1 in a tiny entry.
        var count = TransactionCodec.encode(Self.example)
        count.replaceSubrange(36..<37, with: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        Self.reseal(&count)
        #expect(throws: CodecError.tooLarge(field: "change count", offset: 36, value: Int(UInt32.max), limit: Limits.transactionChangesMax)) {
            try TransactionCodec.decode(count, expectedSeq: nil)
        }
        var author = TransactionCodec.encode(Self.example)
        author.replaceSubrange(32..<33, with: [0xFF, 0xFF, 0xFF, 0x0F])
        Self.reseal(&author)
        #expect(throws: CodecError.tooLarge(field: "author", offset: 32, value: (1 << 25) - 1, limit: Limits.stringBytesMax)) {
            try TransactionCodec.decode(author, expectedSeq: nil)
        }
        var overlong = TransactionCodec.encode(Self.example)
        overlong.replaceSubrange(32..<33, with: [0x83, 0x00])
        Self.reseal(&overlong)
        #expect(throws: CodecError.invalid(field: "author", offset: 32, reason: "overlong varint")) {
            try TransactionCodec.decode(overlong, expectedSeq: nil)
        }
    }

    @Test func headerErrors() {
        let bytes = TransactionCodec.encode(Self.example)
        var magic = bytes
        magic[0] = 0x41
        #expect(throws: CodecError.badMagic) { try TransactionCodec.decode(magic, expectedSeq: nil) }
        var version = bytes
        version[4] = 2
        #expect(throws: CodecError.unsupportedVersion(2)) { try TransactionCodec.decode(version, expectedSeq: nil) }
        #expect(throws: CodecError.lengthMismatch(declared: 63, actual: 62)) {
            try TransactionCodec.decode(Array(bytes.dropLast()), expectedSeq: nil)
        }
        #expect(throws: CodecError.truncated(field: "magic", offset: 0)) { try TransactionCodec.decode([0x56], expectedSeq: nil) }
        var zeroSeq = bytes
        for k in 16..<24 { zeroSeq[k] = 0 }
        Self.reseal(&zeroSeq)
        #expect(throws: CodecError.invalid(field: "seq", offset: 16, reason: "0 is not in 1...\(Int64.max)")) {
            try TransactionCodec.decode(zeroSeq, expectedSeq: nil)
        }
    }

    @Test func unorderedOrDuplicateAttributeNamesAreRejected() {
        // Swap the two attributes of the example: "n" before "h".
        var bytes = TransactionCodec.encode(Self.example)
        let h: [UInt8] = [0x01, 0x68, 0x02, 0xb4, 0, 0, 0, 0, 0, 0, 0]
        let n: [UInt8] = [0x01, 0x6e, 0x01, 0x03, 0x41, 0x6e, 0x6e]
        bytes.replaceSubrange(45..<63, with: n + h)
        Self.reseal(&bytes)
        #expect(throws: CodecError.invalid(field: "attribute name", offset: 52, reason: "names not in strictly increasing order")) {
            try TransactionCodec.decode(bytes, expectedSeq: nil)
        }
    }
}

@Suite struct ObjectRecordCodecTests {
    @Test func recordsRoundTrip() throws {
        var g = SeededGenerator(stream: 20)
        for _ in 0..<300 {
            let schema = RandomSchemas.schema(using: &g)
            guard let entity = schema.entities.values.first else { continue }
            let values = RandomValues.values(for: entity, jsonSafe: false, using: &g)
            let seq = UInt64.random(in: 1...UInt64(Int64.max), using: &g)
            let bytes = ObjectRecordCodec.encode(values: values, seq: seq)
            let decoded = try ObjectRecordCodec.decode(bytes)
            #expect(decoded.seq == seq)
            #expect(ObjectRecordCodec.encode(values: decoded.values, seq: decoded.seq) == bytes, "\(g.rerunHint)")
            for n in 0..<bytes.count {
                #expect(throws: CodecError.self) { try ObjectRecordCodec.decode(Array(bytes[..<n])) }
            }
        }
    }

    @Test func intKeysSortNumerically() throws {
        var g = SeededGenerator(stream: 21)
        var ids = (0..<500).map { _ in RandomValues.int(using: &g) }
        ids += [Int64.min, -1, 0, 1, Int64.max]
        let keys = ids.map { ObjectRecordCodec.key(ObjectKey(entity: "Employee", id: .int($0))) }
        for (a, b) in zip(ids, keys) {
            for (c, d) in zip(ids, keys) {
                #expect((a < c) == b.lexicographicallyPrecedes(d), "\(a) vs \(c), \(g.rerunHint)")
            }
            #expect(try ObjectRecordCodec.decodeKey(b) == ObjectKey(entity: "Employee", id: .int(a)))
        }
    }

    @Test func stringKeysSortByCodePoint() throws {
        var g = SeededGenerator(stream: 22)
        let ids = (0..<200).map { _ in RandomValues.string(using: &g) }
        for a in ids {
            let ka = ObjectRecordCodec.key(ObjectKey(entity: "E", id: .string(a)))
            #expect(try ObjectRecordCodec.decodeKey(ka) == ObjectKey(entity: "E", id: .string(a)))
            for b in ids.prefix(50) {
                let kb = ObjectRecordCodec.key(ObjectKey(entity: "E", id: .string(b)))
                #expect((ObjectID.string(a) < ObjectID.string(b)) == ka.lexicographicallyPrecedes(kb), "\(g.rerunHint)")
            }
        }
    }

    @Test func keyLayoutAndEntityPrefix() throws {
        let key = ObjectRecordCodec.key(ObjectKey(entity: "Emp", id: .int(1)))
        #expect(key == Array("Emp".utf8) + [0, 1, 0x80, 0, 0, 0, 0, 0, 0, 1])
        #expect(ObjectRecordCodec.key(ObjectKey(entity: "E", id: .string("é"))) == [0x45, 0, 2, 0xC3, 0xA9])
        let prefix = ObjectRecordCodec.entityPrefix("Emp")
        #expect(prefix == Array("Emp".utf8) + [0])
        #expect(key.starts(with: prefix))
        let other = ObjectRecordCodec.key(ObjectKey(entity: "Employee", id: .int(1)))
        #expect(!other.starts(with: prefix))
        #expect(ObjectRecordCodec.key(ObjectKey(entity: "E", id: .string(""))) == [0x45, 0, 2])
        #expect(try ObjectRecordCodec.decodeKey([0x45, 0, 2]) == ObjectKey(entity: "E", id: .string("")))
    }

    @Test func badKeysAreErrors() {
        #expect(throws: CodecError.truncated(field: "entity name", offset: 0)) { try ObjectRecordCodec.decodeKey([0x45, 0x46]) }
        #expect(throws: CodecError.invalid(field: "entity name", offset: 0, reason: "empty name")) {
            try ObjectRecordCodec.decodeKey([0, 2, 0x41])
        }
        #expect(throws: CodecError.truncated(field: "id tag", offset: 2)) { try ObjectRecordCodec.decodeKey([0x45, 0]) }
        #expect(throws: CodecError.invalid(field: "id tag", offset: 2, reason: "unknown tag 7")) {
            try ObjectRecordCodec.decodeKey([0x45, 0, 7])
        }
        #expect(throws: CodecError.truncated(field: "int id", offset: 3)) { try ObjectRecordCodec.decodeKey([0x45, 0, 1, 0x80]) }
        #expect(throws: CodecError.trailingBytes(offset: 11, count: 1)) {
            try ObjectRecordCodec.decodeKey([0x45, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 1, 9])
        }
        #expect(throws: CodecError.invalid(field: "string id", offset: 3, reason: "not valid UTF-8")) {
            try ObjectRecordCodec.decodeKey([0x45, 0, 2, 0xC3])
        }
        #expect(throws: CodecError.tooLarge(field: "entity name", offset: 0, value: 129, limit: 128)) {
            try ObjectRecordCodec.decodeKey([UInt8](repeating: 0x41, count: 200))
        }
        #expect(throws: CodecError.self) { try ObjectRecordCodec.decodeKey([UInt8](repeating: 0x41, count: 300) + [0, 2]) }
    }
}

extension TransactionCodecTests {
    /// A revert's entry (DESIGN §14): flag bit 0, then after the author the reverted seqs, descending. Its bytes are
    /// pinned (`schema/log-format.md`), it round-trips, the fold reads past the list, and a damaged list is an error.
    @Test func aRevertListsItsSeqsAfterTheAuthor() throws {
        var t = Self.example
        t.seq = 9
        t.reverts = [7, 3]
        let bytes = TransactionCodec.encode(t)
        #expect(Self.hex(Array(bytes[4..<8])) == "01 00 01 00")  // version 1, flags 1 (reverts)
        #expect(Self.hex(Array(bytes[32..<53])) == "03 63 6c 69 02 07 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00")
        #expect(try TransactionCodec.decode(bytes, expectedSeq: 9) == t)
        #expect(try Self.roundTrip(t) == bytes)
        var inserts = 0
        _ = try bytes.withUnsafeBytes { b in
            try TransactionCodec.walkChanges(b, expectedSeq: 9, entity: nil) { (_, _, _, r) throws(CodecError) -> Bool in
                inserts += 1
                try r.skipID()
                try r.skipObjectValues()
                return true
            }
        }
        #expect(inserts == 1)
        // Not descending, not below the entry's seq, the flag with no seqs: each named, never a trap.
        func damaged(_ reverts: [UInt64], count: UInt8? = nil) -> [UInt8] {
            var d = bytes
            if let count { d[36] = count }
            for (i, s) in reverts.enumerated() { withUnsafeBytes(of: s.littleEndian) { d.replaceSubrange(37 + 8 * i ..< 45 + 8 * i, with: $0) } }
            let crc = CRC32C.checksum(Array(d[16...]))
            withUnsafeBytes(of: crc.littleEndian) { d.replaceSubrange(12..<16, with: $0) }
            return d
        }
        for bad in [damaged([3, 7]), damaged([9, 3]), damaged([7, 0])] {
            #expect(throws: CodecError.self) { try TransactionCodec.decode(bad, expectedSeq: 9) }
        }
        var unknownFlag = bytes
        unknownFlag[6] = 3
        #expect(throws: CodecError.self) { try TransactionCodec.decode(unknownFlag, expectedSeq: 9) }
    }
}
