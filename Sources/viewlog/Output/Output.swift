@_spi(Engine) import ViewLog
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered standard output, and one-line errors on standard error.
///
/// Large outputs (`export`, `log` of a big store) go through a 64 KiB buffer instead of one write per line.
/// The buffer is behind a lock, so a line is written whole even when two tasks print (a command's loop and a
/// replica follower reporting its error).
final class Output: Sendable {
    static let standard = Output()
    private let buffer = Locked<[UInt8]>([])
    private let flushBytes = 64 * 1024

    /// Writes `line` and a newline.
    func line(_ line: String) {
        buffer.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if buffer.count >= flushBytes { Output.writeOut(&buffer) }
        }
    }

    /// Writes the bytes of `line` (one line, without its newline) and a newline.
    func line(bytes line: [UInt8]) {
        buffer.withLock { buffer in
            if buffer.count + line.count >= flushBytes { Output.writeOut(&buffer) }
            if line.count >= flushBytes {
                Output.writeOut(line)  // as it is: a copy to add the newline would cost as much as the line
            } else {
                buffer.append(contentsOf: line)
            }
            buffer.append(0x0A)
        }
    }

    /// Writes one line that `body` makes in pieces (a query's document of megabytes), then a newline: `body`
    /// appends to the bytes it is given and calls `drain` whenever it likes, which writes them out and empties
    /// them; what is left when it returns is written after. The line is written whole, as ``line(_:)`` writes.
    func line(streaming body: (inout [UInt8], _ drain: (inout [UInt8]) -> Void) throws -> Void) rethrows {
        try buffer.withLock { buffer in
            Output.writeOut(&buffer)
            var piece: [UInt8] = []
            piece.reserveCapacity(flushBytes + flushBytes / 4)
            try body(&piece) { Output.writeOut(&$0) }
            Output.writeOut(&piece)
            buffer.append(0x0A)
        }
    }

    /// The number of bytes after which a streamed line's piece is best drained (the buffer's size).
    var pieceBytes: Int { flushBytes }

    /// Writes everything buffered to standard output.
    func flush() {
        buffer.withLock { Output.writeOut(&$0) }
    }

    /// Writes `buffer` to file descriptor 1 and empties it.
    private static func writeOut(_ buffer: inout [UInt8]) {
        guard !buffer.isEmpty else { return }
        writeOut(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to file descriptor 1.
    private static func writeOut(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { b in
            var offset = 0
            while offset < b.count {  // bounded: each step writes at least one byte or stops
                let n = write(1, b.baseAddress! + offset, b.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    /// Prints `error: message` on standard error, as one line.
    static func error(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        writeStandardError("error: \(oneLine)\n")
    }

    /// Prints `warning: message` on standard error, as one line (the command goes on).
    static func warning(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        writeStandardError("warning: \(oneLine)\n")
    }

    /// Prints a progress line on standard error, only when it is a terminal.
    static func progress(_ message: String) {
        guard isatty(2) != 0 else { return }
        writeStandardError("\r\(message)\u{1B}[K")
    }

    /// Ends a progress line.
    static func progressDone() {
        guard isatty(2) != 0 else { return }
        writeStandardError("\r\u{1B}[K")
    }

    /// Whether standard output is a terminal (for colour).
    static var isTerminal: Bool { isatty(1) != 0 }

    /// Whether to colour standard output: on a terminal, unless `NO_COLOR` is set (no-color.org).
    static var usesColour: Bool { isTerminal && getenv("NO_COLOR") == nil }
}

/// Writes `text` to file descriptor 2 unbuffered.
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { break }
        offset += n
    }
}

func exitProcess(_ code: Int32) -> Never {
    Output.standard.flush()
    exit(code)
}
