import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

@Suite struct CRC32CTests {
    /// Bit-at-a-time reference implementation, to check the slicing-by-8 tables.
    static func reference(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func knownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        // RFC 3720 (iSCSI), appendix B.4.
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func matchesBitwiseReferenceAtAnyLengthAndAlignment() {
        var g = SeededGenerator(stream: 1)
        for _ in 0..<500 {
            let data = (0..<Int.random(in: 0...200, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            let start = data.isEmpty ? 0 : Int.random(in: 0..<data.count, using: &g)
            let slice = Array(data[start...])
            let expected = Self.reference(slice)
            let got = data.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            #expect(got == expected, "\(g.rerunHint), length \(slice.count)")
        }
    }

    @Test func chainsAcrossPieces() {
        var g = SeededGenerator(stream: 2)
        let data = (0..<300).map { _ in UInt8.random(in: 0...255, using: &g) }
        let whole = CRC32C.checksum(data)
        for cut in 0...data.count {
            let first = CRC32C.checksum(Array(data[..<cut]))
            #expect(CRC32C.checksum(Array(data[cut...]), seed: first) == whole, "cut at \(cut)")
        }
    }

    /// The CPU's CRC-32C instruction (when this machine has one: x86-64 with SSE 4.2, ARMv8 with CRC) gives what
    /// the portable tables give, at every length, alignment and seed.
    @Test func theHardwareInstructionAgreesWithTheTables() {
        var g = SeededGenerator(stream: 3)
        for _ in 0..<2000 {
            let data = (0..<Int.random(in: 0...300, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            let start = data.isEmpty ? 0 : Int.random(in: 0..<data.count, using: &g)
            let seed = Bool.random(using: &g) ? 0 : UInt32.random(in: 0...UInt32.max, using: &g)
            data.withUnsafeBytes { all in
                let piece = UnsafeRawBufferPointer(rebasing: all[start...])
                #expect(CRC32C.checksum(piece, seed: seed) == CRC32C.portableChecksum(piece, seed: seed),
                        "\(g.rerunHint), length \(piece.count), hardware \(CRC32C.hardware)")
            }
        }
        #if arch(x86_64)
        // Every x86-64 machine ViewLog is built and tested on has SSE 4.2: the instruction path must be the one tested.
        #expect(CRC32C.hardware)
        #endif
    }
}
