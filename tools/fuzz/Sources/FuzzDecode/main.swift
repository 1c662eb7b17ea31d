import FuzzShared
@_spi(Engine) import ViewLog

// Decoding is total (DESIGN §3): any bytes give a transaction or a CodecError, never a crash. A transaction
// that decodes must encode back to the same bytes (the encoding is deterministic and canonical), except for the
// text of schema changes.
//
// The CRC-32C stops almost every mutation at the checksum, so each input is decoded twice: as it is, and with
// its length and checksum fields patched to fit, which lets the fuzzer explore the body's decoder.
func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    check(input)
    if size >= TransactionCodec.headerBytes {
        var patched = Array(input)
        withUnsafeBytes(of: UInt32(size).littleEndian) { patched.replaceSubrange(8..<12, with: $0) }
        let crc = patched.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[16...])) }
        withUnsafeBytes(of: crc.littleEndian) { patched.replaceSubrange(12..<16, with: $0) }
        patched.withUnsafeBytes { check($0) }
    }
    return 0
}

func check(_ bytes: UnsafeRawBufferPointer) {
    guard let t = try? TransactionCodec.decode(bytes, expectedSeq: nil) else { return }
    let again = TransactionCodec.encode(t)
    guard let decodedAgain = try? TransactionCodec.decode(again, expectedSeq: t.seq) else {
        preconditionFailure("the encoding of a decoded transaction does not decode")
    }
    precondition(TransactionCodec.encode(decodedAgain) == again, "decode → encode is not stable")
    // A schema change keeps the schema as JSON text, which decoding normalizes; everything else is canonical.
    let hasSchema = t.changes.contains { if case .schema = $0 { return true } else { return false } }
    precondition(hasSchema || again.elementsEqual(bytes), "decode → encode is not the identity")
}

/// The entry point SwiftPM links as `main` (see ``runFuzzer(argc:argv:_:)``).
@_cdecl("FuzzDecode_main")
public func fuzzdecodeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in fuzzDecode(data, size) }
}
