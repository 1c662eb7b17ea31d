import FuzzShared
@_spi(Engine) import ViewLog

// One input line of `viewlog append` → AppendInput.parseLine against the schema: an entry or an InputError,
// never a crash. The input is also read as a whole text (several lines) by AppendInput.parse.
func fuzzAppendLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let entry = try? AppendInput.parseLine(text, lineNumber: 1, schema: FuzzShared.schema) {
        precondition(entry.line == 1 && !entry.requests.isEmpty, "an entry without changes")
    }
    _ = try? AppendInput.parse(text, schema: FuzzShared.schema)
    return 0
}

/// The entry point SwiftPM links as `main` (see ``runFuzzer(argc:argv:_:)``).
@_cdecl("FuzzAppendLine_main")
public func fuzzappendlineMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in fuzzAppendLine(data, size) }
}
