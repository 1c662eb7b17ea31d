import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client over a TCP socket to 127.0.0.1, for tests against a real socket: a server
/// process started by a test, and Server-Sent Events read event by event (HummingbirdTesting collects whole
/// bodies). Every read has a timeout, so a test that waits for what never comes fails instead of hanging.
final class RawHTTP: @unchecked Sendable {  // one task uses it at a time
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Whether the body is chunked (set by ``readHead()``).
    private(set) var chunked = false
    private var chunkLeft = 0

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// How long a read waits by default: a bound on a test that waits for what never comes, not a measure of the
    /// server. Generous because a server a test starts runs on the test process's cooperative threads, which the
    /// other tests of a full parallel run (`swift test` on 2 cores) can hold for minutes.
    static let patientSeconds = 300

    /// A connection to `port`; `receiveBufferBytes` shrinks the socket's receive buffer (a client that reads nothing
    /// then holds the server's writes up sooner).
    init(port: Int, timeoutSeconds: Int = RawHTTP.patientSeconds, receiveBufferBytes: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var bytes = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the connection (as a client that goes away does).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Sends a request (`Connection: close`) with `Host: host` (nil: none).
    func send(_ method: String, _ target: String, host: String? = "127.0.0.1", headers: [String: String] = [:],
              body: String? = nil) throws {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        if headers["Connection"] == nil { text += "Connection: close\r\n" }
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        try sendRaw(Array(text.utf8))
    }

    /// Sends `bytes` as they are (a request in pieces, a chunked body).
    func sendRaw(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {  // bounded: each step sends at least one byte or fails
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// Reads the status line and headers: the status and the headers (names lower-cased).
    func readHead() throws -> (status: Int, headers: [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line '\(statusLine)'") }
        var headers: [String: String] = [:]
        while true {  // bounded by the server's headers
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
        return (status, headers)
    }

    /// Waits for the server to close the connection without sending anything more: true when it did (the end of
    /// the stream, or a reset), false when bytes came instead; throws when the read times out.
    func closedByServer() throws -> Bool {
        if !buffer.isEmpty { return false }
        var b: UInt8 = 0
        let n = recv(fd, &b, 1, 0)
        if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        guard n > 0 else { throw Failure(description: errno == EAGAIN ? "timed out waiting for the server" : "recv: errno \(errno)") }
        return false
    }

    /// Reads the rest of the body (to the end of the connection, or the last chunk).
    func readBody() throws -> String {
        var out: [UInt8] = []
        while let b = try bodyByte() { out.append(b) }  // bounded by the body
        return String(decoding: out, as: UTF8.self)
    }

    /// The next Server-Sent Event's data (one `data:` line each), or nil at the end of the stream.
    func nextEvent() throws -> String? {
        var line: [UInt8] = []
        var data: String?
        while let b = try bodyByte() {  // bounded by the stream
            if b != 0x0A {
                line.append(b)
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll()
            if text.isEmpty {
                if let data { return data }
                continue
            }
            if text.hasPrefix("data: ") { data = (data.map { $0 + "\n" } ?? "") + String(text.dropFirst(6)) }
        }
        return nil
    }

    private func bodyByte() throws -> UInt8? {
        guard chunked else { return try byte() }
        if chunkLeft == 0 {
            var sizeLine = try readLine()
            if sizeLine.isEmpty { sizeLine = try readLine() }  // the CRLF after the chunk before
            guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                throw Failure(description: "bad chunk size '\(sizeLine)'")
            }
            if size == 0 { return nil }
            chunkLeft = size
        }
        chunkLeft -= 1
        return try byte()
    }

    private func readLine() throws -> String {
        var line: [UInt8] = []
        while let b = try byte() {  // bounded by the line
            if b == 0x0A { break }
            if b != 0x0D { line.append(b) }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The next byte of the connection (nil at its end), as it comes.
    func nextByte() throws -> UInt8? { try byte() }

    private func byte() throws -> UInt8? {
        if buffer.isEmpty {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return nil }
            guard n > 0 else { throw Failure(description: errno == EAGAIN ? "timed out waiting for the server" : "recv: errno \(errno)") }
            buffer = Array(chunk[0..<n].reversed())
        }
        return buffer.removeLast()
    }
}
