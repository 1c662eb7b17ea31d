import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The `refs` key layout as `schema/log-format.md` documents it ("The relationships index"), byte for byte, so the
/// document and the code cannot drift apart.
@Suite("Log format: the relationships index")
struct ReferenceKeyFormatTests {
    @Test func theDocumentedExampleKeyIsTheKeyTheStoreWrites() throws {
        let documented: [UInt8] = [
            0x00, 0x14,                                                       // n = 20
            0x44, 0x65, 0x70, 0x61, 0x72, 0x74, 0x6d, 0x65, 0x6e, 0x74, 0x00, // "Department" 0x00
            0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,             // int id 7, sign bit flipped
            0x45, 0x6d, 0x70, 0x6c, 0x6f, 0x79, 0x65, 0x65, 0x00,             // "Employee" 0x00
            0x64, 0x65, 0x70, 0x61, 0x72, 0x74, 0x6d, 0x65, 0x6e, 0x74, 0x00, // "department" 0x00
            0x02, 0x65, 0x31,                                                 // string id "e1"
        ]
        let key = ReferenceKey.key(target: ObjectKey(entity: "Department", id: .int(7)),
                                   source: ObjectKey(entity: "Employee", id: .string("e1")), relationship: "department")
        #expect(key == documented)
        #expect(key.count == 45)
        // The target's part is exactly its key in `objects`, length first (big-endian).
        #expect(Array(key[2..<22]) == ObjectRecordCodec.key(ObjectKey(entity: "Department", id: .int(7))))
        // The value: the CRC-32C of the key and the id's encoding, little-endian, then that encoding.
        let id: [UInt8] = [0x02, 0x65, 0x31]
        let crc = CRC32C.checksum(id, seed: CRC32C.checksum(documented))
        let value = ReferenceKey.value(key: key, id: .string("e1"))
        #expect(value == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)] + id)
    }

    @Test func longTargetsAndIDsAreDigestedWithinLMDBsKeyLimit() {
        let target = ObjectKey(entity: String(repeating: "T", count: 128), id: .string(String(repeating: "t", count: 256)))
        let source = ObjectKey(entity: String(repeating: "S", count: 128), id: .string(String(repeating: "s", count: 256)))
        let key = ReferenceKey.key(target: target, source: source, relationship: String(repeating: "r", count: 128))
        #expect(key.count == 2 + 16 + 129 + 129 + 91)  // at most 511 with a whole target of 160 bytes
        #expect(Array(key[0..<2]) == [0x80, 0x10])
        #expect(Array(key[2..<18]) == ReferenceKey.digest(ObjectRecordCodec.key(target)))
        // The value keeps the whole id.
        let value = ReferenceKey.value(key: key, id: source.id)
        #expect(key.withUnsafeBytes { k in value.withUnsafeBytes { try? ReferenceKey.sourceID(key: k, value: $0) } } == source.id)
    }

    @Test func keysOfOneTargetSortInTheOrderDeleteRulesRun() {
        let target = ObjectKey(entity: "Department", id: .int(7))
        // Source entities by name ("Emp" before "Employee": 0x00 ends a name), then relationships, then ids.
        let keys = [
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Emp", id: .int(9)), relationship: "d"),
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Employee", id: .string("b")), relationship: "department"),
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Employee", id: .string("a")), relationship: "home"),
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Project", id: .int(-2)), relationship: "owner"),
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Project", id: .int(2)), relationship: "owner"),
            ReferenceKey.key(target: target, source: ObjectKey(entity: "Project", id: .int(10)), relationship: "owner"),
        ]
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        let prefix = ReferenceKey.prefix(target: target, source: "Project", relationship: "owner")
        #expect(keys.filter { $0.starts(with: prefix) }.count == 3)
    }
}
