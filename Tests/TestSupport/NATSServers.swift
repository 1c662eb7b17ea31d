import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `nats-server` processes with JetStream on loopback for one test: free ports, a temporary `store_dir` each,
/// one node or a cluster (`cluster { name, listen, routes }`). ``stop()`` — also run by `deinit`, so a test
/// that throws or fails still stops them — kills every server, reaps it, and removes the directory.
public final class NATSServers: @unchecked Sendable {
    /// A node: its client port, cluster port, config file and process (nil while stopped).
    private struct Node {
        var clientPort: Int
        var clusterPort: Int
        var config: String
        var process: Process?
    }

    private let lock = NSLock()
    private var nodes: [Node] = []
    /// The scratch directory with every node's config, log and `store_dir`.
    public let directory: String

    /// Whether `nats-server` is installed (tests `#require` it: `tools/install-deps` installs it).
    public static var isInstalled: Bool {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static var binary: String {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? "nats-server"
    }

    /// Starts `count` servers (a cluster when more than one) and waits until each accepts clients.
    public init(count: Int) throws {
        precondition(count >= 1 && count <= 5)
        directory = TestScratch.newPath("nats")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let ports = try (0..<(2 * count)).map { _ in try Self.freePort() }
            for i in 0..<count {
                let clientPort = ports[2 * i], clusterPort = ports[2 * i + 1]
                var text = """
                server_name: n\(i)
                listen: 127.0.0.1:\(clientPort)
                jetstream { store_dir: "\(directory)/js\(i)" }

                """
                if count > 1 {
                    let routes = (0..<count).filter { $0 != i }.map { "nats-route://127.0.0.1:\(ports[2 * $0 + 1])" }
                    text += """
                    cluster {
                      name: viewlog-test
                      listen: 127.0.0.1:\(clusterPort)
                      routes: [\(routes.joined(separator: ", "))]
                    }

                    """
                }
                let config = "\(directory)/n\(i).conf"
                try text.write(toFile: config, atomically: true, encoding: .utf8)
                nodes.append(Node(clientPort: clientPort, clusterPort: clusterPort, config: config, process: nil))
            }
            for i in 0..<count { try start(i) }
            for i in 0..<count { try waitUntilReady(i) }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The client URLs of every node, `nats://127.0.0.1:PORT`.
    public var urls: [String] { lock.withLock { nodes.map { "nats://127.0.0.1:\($0.clientPort)" } } }

    /// The URLs joined with commas, as the CLI's `--nats` takes them.
    public var urlList: String { urls.joined(separator: ",") }

    /// The node whose `server_name` is `name` (`n0`, `n1`, …).
    public func index(ofServerNamed name: String) -> Int? {
        guard name.hasPrefix("n"), let i = Int(name.dropFirst()), i < lock.withLock({ nodes.count }) else { return nil }
        return i
    }

    /// Starts node `i` (again, after ``kill(_:)``), with its data as it was.
    public func start(_ i: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        let config = lock.withLock { nodes[i].config }
        process.arguments = ["-c", config]
        let log = "\(directory)/n\(i).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { nodes[i].process = process }
    }

    /// Waits (up to 20 s) until node `i` accepts TCP connections.
    public func waitUntilReady(_ i: Int) throws {
        let port = lock.withLock { nodes[i].clientPort }
        for _ in 0..<400 {
            if Self.canConnect(port) { return }
            usleep(50_000)
        }
        throw NATSServersError("nats-server n\(i) did not start on port \(port); see \(directory)/n\(i).log")
    }

    /// Kills node `i` with SIGKILL (no clean shutdown) and reaps it.
    public func kill(_ i: Int) {
        guard let process = lock.withLock({ () -> Process? in
            let p = nodes[i].process
            nodes[i].process = nil
            return p
        }) else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Kills and reaps every server and removes the directory. Safe to call twice.
    public func stop() {
        let count = lock.withLock { nodes.count }
        for i in 0..<count { kill(i) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NATSServersError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw NATSServersError("bind: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A failure of the test servers themselves.
public struct NATSServersError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
