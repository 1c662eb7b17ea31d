@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON lines of an input, read the one way `append` and `import` both read them.
///
/// Lines end with `\n` or `\r\n`; blank lines (empty or only spaces, tabs and `\r`) are skipped but still count
/// for line numbers; a line longer than ``Limits/lineBytesMax`` bytes or that is not one JSON document is an
/// ``InputError`` naming its line. Reading is one step per line, bounded by the text's length.
///
/// ```swift
/// var lines = InputLines(text)
/// while let (line, json) = try lines.next() { … }
/// ```
@_spi(Engine) public struct InputLines {
    private let text: String
    private var start: String.UTF8View.Index
    private var finished = false
    /// The 1-based number of the line read last (0 before the first).
    public private(set) var lineNumber = 0

    /// Reads the lines of `text`.
    public init(_ text: String) {
        self.text = text
        self.start = text.utf8.startIndex
    }

    /// The next non-blank line: its 1-based number and its JSON document, or `nil` after the last line.
    /// - Throws: ``InputError`` for a line that is too long or not JSON.
    public mutating func next() throws(InputError) -> (line: Int, json: JSONValue)? {
        while let (number, line) = nextLine() {  // one step per line
            if let json = try InputLines.json(line, lineNumber: number) { return (number, json) }
        }
        return nil
    }

    /// The next line as it is (without its `\n`; blank lines included) and its 1-based number, or `nil` after the
    /// last line.
    mutating func nextLine() -> (line: Int, text: Substring)? {
        guard !finished else { return nil }
        let utf8 = text.utf8
        let from = utf8.distance(from: utf8.startIndex, to: start)
        // memchr over the contiguous bytes: the generic `firstIndex(of:)` was a twentieth of a bulk load.
        let newline = utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, from < bytes.count,
                  let found = memchr(base + from, 0x0A, bytes.count - from) else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        let end: String.UTF8View.Index
        if let newline {
            end = newline.map { utf8.index(utf8.startIndex, offsetBy: $0) } ?? utf8.endIndex
        } else {
            end = utf8[start...].firstIndex(of: 0x0A) ?? utf8.endIndex  // a string without contiguous storage
        }
        lineNumber += 1
        let line = Substring(utf8[start..<end])
        if end < utf8.endIndex { start = utf8.index(after: end) } else { finished = true }
        return (lineNumber, line)
    }

    /// The JSON document of one line (without its `\n`; a trailing `\r` is ignored), or `nil` for a blank line.
    /// - Throws: ``InputError`` at `lineNumber` for a line that is too long or not JSON.
    public static func json(_ text: Substring, lineNumber: Int) throws(InputError) -> JSONValue? {
        guard text.utf8.count <= Limits.lineBytesMax else {
            throw InputError(.lineTooLong, line: lineNumber, message: "line is longer than \(Limits.lineBytesMax) bytes")
        }
        var line = text
        if line.utf8.last == 0x0D { line = Substring(line.utf8.dropLast()) }  // a "\r\n" line end
        if line.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        let parsed = line.withUTF8 { bytes in Result { () throws(JSONError) in try JSONValue.parse(bytes) } }
        switch parsed {
        case .success(let value): return value
        case .failure(let error): throw InputError(.malformedJSON, line: lineNumber, message: error.description)
        }
    }
}
