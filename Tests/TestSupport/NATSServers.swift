import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `nats-server` processes with JetStream on loopback for one test: free ports, a temporary `store_dir` each,
/// one node or a cluster (`cluster { name, listen, routes }`). ``stop()`` — also run by `deinit`, so a test
/// that throws or fails still stops them — kills every server, reaps it, and removes the directory.
///
/// The servers are the durable build `tools/install-deps` installs (nats-server ≥ 2.12.4, DESIGN §9 "Durability
/// of the stream"), each with `jetstream { sync_interval: always }` (fsync before the acknowledgement) and a
/// monitoring port (``varz(_:)``). `NATSServers(count:binary:durable:)` with ``debianBinary`` starts Debian's
/// old 2.9.10 instead (without `sync_interval`, which it refuses), for the tests that check an old server is named.
public final class NATSServers: @unchecked Sendable {
    /// A node: its client port, cluster port, monitoring port, config file and process (nil while stopped).
    private struct Node {
        var clientPort: Int
        var clusterPort: Int
        var monitorPort: Int
        var config: String
        var process: Process?
        /// The node's own cgroup (v2), relative to the hierarchy's root, when it can be partitioned.
        var cgroup: String?
    }

    private let lock = NSLock()
    private var nodes: [Node] = []
    /// The iptables rules (arguments after `-I`/`-D`) that ``partition(_:)`` added, removed by ``heal()`` and ``stop()``.
    private var rules: [[String]] = []
    /// The scratch directory with every node's config, log and `store_dir`.
    public let directory: String

    /// Where `tools/install-deps` installs the pinned durable nats-server (tools/requirements-nats.txt); the
    /// environment variable `VIEWLOG_NATS_SERVER` names another.
    public static let durableBinaries = ["/usr/local/lib/viewlog-nats/bin/nats-server", "/usr/local/bin/nats-server"]

    /// Debian's `nats-server` package (2.9.10, older than DESIGN §9 allows), if installed.
    public static var debianBinary: String? {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the durable `nats-server` is installed (tests `#require` it: `tools/install-deps` installs it).
    public static var isInstalled: Bool { binary != nil }

    /// The durable server's executable, if installed.
    public static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["VIEWLOG_NATS_SERVER"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        return durableBinaries.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The executable these servers run.
    public let executable: String

    /// Starts `count` servers (a cluster when more than one) and waits until each accepts clients. `binary`
    /// defaults to the durable build (``binary``); `durable: false` leaves `sync_interval` out (Debian's 2.9.10
    /// refuses it). `partitionable` (needs ``canPartition``) starts each node in a cgroup of its own, for
    /// ``partition(_:)``: a socket belongs to the cgroup its process was in when it was made.
    public init(count: Int, binary: String? = nil, durable: Bool = true, partitionable: Bool = false) throws {
        precondition(count >= 1 && count <= 5)
        guard let executable = binary ?? Self.binary else {
            throw NATSServersError("no durable nats-server (>= 2.12.4) installed: run tools/install-deps")
        }
        self.executable = executable
        directory = TestScratch.newPath("nats")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A free port is found by binding port 0 and closing it: another test of this process may take it before the
        // server binds it (then the server exits at once). Such a start is tried again with other ports, at most 3 times.
        for attempt in 1...3 {
        do {
            let ports = try (0..<(3 * count)).map { _ in try Self.freePort() }
            for i in 0..<count {
                let clientPort = ports[3 * i], clusterPort = ports[3 * i + 1], monitorPort = ports[3 * i + 2]
                // sync_interval: always — fsync before every acknowledgement (DESIGN §9).
                let sync = durable ? ", sync_interval: always" : ""
                var text = """
                server_name: n\(i)
                listen: 127.0.0.1:\(clientPort)
                http: 127.0.0.1:\(monitorPort)
                jetstream { store_dir: "\(directory)/js\(i)"\(sync) }

                """
                if count > 1 {
                    let routes = (0..<count).filter { $0 != i }.map { "nats-route://127.0.0.1:\(ports[3 * $0 + 1])" }
                    text += """
                    cluster {
                      name: viewlog-test
                      listen: 127.0.0.1:\(clusterPort)
                      routes: [\(routes.joined(separator: ", "))]
                    }

                    """
                }
                let config = "\(directory)/a\(attempt)-n\(i).conf"
                try text.write(toFile: config, atomically: true, encoding: .utf8)
                var cgroup: String?
                if partitionable, Self.canPartition, let root = Self.cgroup2Root {
                    let name = "viewlog-test-\(getpid())-\(clientPort)-n\(i)"
                    guard mkdir(root + "/" + name, 0o755) == 0 || errno == EEXIST else {
                        throw NATSServersError("cannot make cgroup \(root)/\(name): \(errno)")
                    }
                    cgroup = name
                }
                nodes.append(Node(clientPort: clientPort, clusterPort: clusterPort, monitorPort: monitorPort,
                                  config: config, process: nil, cgroup: cgroup))
            }
            for i in 0..<count { try start(i) }
            for i in 0..<count { try waitUntilReady(i) }
            if count > 1 { try waitUntilClustered() }
            return
        } catch let exited as NodeExited where attempt < 3 {
            _ = exited
            stop()
            lock.withLock { nodes.removeAll() }
            for i in 0..<count { try? FileManager.default.removeItem(atPath: "\(directory)/js\(i)") }
            continue
        } catch {
            stop()
            throw error
        }
        }
    }

    /// A node that exited before it accepted clients (its port taken meanwhile, most likely).
    struct NodeExited: Error {}

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
        let (config, cgroup) = lock.withLock { (nodes[i].config, nodes[i].cgroup) }
        if let cgroup, let root = Self.cgroup2Root {
            // Into its cgroup before it makes a socket: the shell moves itself, then becomes the server (same pid).
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"echo $$ > "$1/cgroup.procs" && exec "$2" -c "$3""#, "sh", root + "/" + cgroup, executable, config]
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-c", config]
        }
        let log = "\(directory)/n\(i).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { nodes[i].process = process }
    }

    /// Waits (up to 60 s, however loaded the machine) until node `i` accepts TCP connections.
    /// - Throws: ``NodeExited`` when the server exited first.
    public func waitUntilReady(_ i: Int) throws {
        let port = lock.withLock { nodes[i].clientPort }
        let started = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - started < 60_000_000_000 {  // bounded by the deadline
            if Self.canConnect(port) { return }
            if let process = lock.withLock({ nodes[i].process }), !process.isRunning { throw NodeExited() }
            usleep(50_000)
        }
        throw NATSServersError("nats-server n\(i) did not start on port \(port); see \(directory)/n\(i).log")
    }

    /// Waits (up to 30 s) until JetStream's meta leader counts every other node as a current, online peer:
    /// before that, creating a stream of several copies may be refused ("no suitable peers for placement, peer
    /// offline", seen in 2 of 60 rounds of tools/replication-test). `Replica.create` also retries that answer.
    public func waitUntilClustered() throws {
        let (count, monitors) = lock.withLock { (nodes.count, nodes.map(\.monitorPort)) }
        for _ in 0..<600 {
            let formed = monitors.contains { port in
                guard let jsz = try? Self.json(Self.httpGet(port: port, path: "/jsz")),
                      let meta = jsz["meta_cluster"] as? [String: Any],
                      let peers = meta["replicas"] as? [[String: Any]] else { return false }  // only the leader lists them
                return peers.count == count - 1
                    && peers.allSatisfy { ($0["current"] as? Bool) == true && ($0["offline"] as? Bool) != true }
            }
            if formed { return }
            usleep(50_000)
        }
        throw NATSServersError("the cluster did not form in 30 s; see the logs in \(directory)")
    }

    /// Waits (up to `timeout` seconds) until every node's `/jsz` reports stream `name` with the same leader and the
    /// same last sequence: the cluster agrees again after a fault. A node that was paused or cut off may go on
    /// believing it leads for a while after it is back, and answer requests from its own, older state (a `sync` then
    /// stops at that state's last sequence); the final checks of a fault test are made after this.
    /// - Returns: the leader and last sequence they agree on.
    @discardableResult
    public func waitUntilStreamAgrees(_ name: String, timeout: Double = 60) throws -> (leader: String, lastSeq: Int) {
        let monitors = lock.withLock { nodes.map(\.monitorPort) }
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [String] = []
        while true {
            let views = monitors.map { port -> (leader: String, lastSeq: Int)? in
                guard let jsz = try? Self.json(Self.httpGet(port: port, path: "/jsz?accounts=true&streams=true")),
                      let accounts = jsz["account_details"] as? [[String: Any]],
                      let stream = accounts.flatMap({ $0["stream_detail"] as? [[String: Any]] ?? [] }).first(where: { $0["name"] as? String == name }),
                      let leader = (stream["cluster"] as? [String: Any])?["leader"] as? String,
                      let lastSeq = (stream["state"] as? [String: Any])?["last_seq"] as? Int else { return nil }
                return (leader, lastSeq)
            }
            if let first = views.first ?? nil, views.allSatisfy({ $0?.leader == first.leader && $0?.lastSeq == first.lastSeq }) {
                return first
            }
            seen = views.map { $0.map { "\($0.leader)@\($0.lastSeq)" } ?? "none" }
            guard Date() < deadline else {
                throw NATSServersError("the nodes do not agree on stream \(name) after \(Int(timeout)) s (leader@last_seq per node: \(seen.joined(separator: ", "))); see the logs in \(directory)")
            }
            usleep(100_000)
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NATSServersError("not a JSON object")
        }
        return object
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

    /// Pauses node `i` (SIGSTOP): it holds its connections and answers nothing until ``resume(_:)``.
    public func pause(_ i: Int) {
        guard let process = lock.withLock({ nodes[i].process }) else { return }
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a paused node `i` go on (SIGCONT).
    public func resume(_ i: Int) {
        guard let process = lock.withLock({ nodes[i].process }) else { return }
        Glibc.kill(process.processIdentifier, SIGCONT)
    }

    /// Whether ``partition(_:)`` can work here: root, `iptables` (tools/install-deps installs it) and a cgroup v2
    /// hierarchy (iptables' `cgroup` match tells a node's own packets apart: every node sends from 127.0.0.1).
    public static var canPartition: Bool {
        getuid() == 0 && iptables != nil && cgroup2Root != nil
    }

    static var iptables: String? {
        ["/usr/sbin/iptables", "/sbin/iptables", "/usr/bin/iptables"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup` or, beside v1, `/sys/fs/cgroup/unified`).
    static var cgroup2Root: String? {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 2 && fields[2] == "cgroup2" { return String(fields[1]) }
        }
        return nil
    }

    /// Cuts node `i` off from the other nodes and from every client: iptables drops every packet it sends (it runs
    /// in a cgroup of its own, `partitionable`, matched by `-m cgroup --path`) and every packet sent to its client
    /// and cluster ports. The rules carry the comment `viewlog-test-PID`; ``heal()`` — also run by ``stop()`` and
    /// `deinit`, so a test that throws or fails still removes them — deletes them, and rules left by a test process
    /// that died are deleted by the next one's `partition`.
    public func partition(_ i: Int) throws {
        Self.removeRulesOfDeadProcesses()
        let (name, clientPort, clusterPort) = try lock.withLock { () throws -> (String, Int, Int) in
            guard let name = nodes[i].cgroup else {
                throw NATSServersError("n\(i) runs in no cgroup of its own: make the servers partitionable (root, iptables, cgroup v2)")
            }
            return (name, nodes[i].clientPort, nodes[i].clusterPort)
        }
        let comment = ["-m", "comment", "--comment", "viewlog-test-\(getpid())"]
        for rule in [["OUTPUT", "-m", "cgroup", "--path", name] + comment + ["-j", "DROP"],
                     ["OUTPUT", "-p", "tcp", "-m", "multiport", "--dports", "\(clientPort),\(clusterPort)"] + comment + ["-j", "DROP"]] {
            lock.withLock { rules.append(rule) }
            try Self.runIptables(["-I"] + rule)
        }
    }

    /// Removes every rule ``partition(_:)`` added: the network heals.
    public func heal() {
        let added = lock.withLock { () -> [[String]] in defer { rules = [] }; return rules }
        for rule in added { try? Self.runIptables(["-D"] + rule) }
    }

    static func runIptables(_ arguments: [String]) throws {
        guard let iptables else { throw NATSServersError("no iptables") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: iptables)
        process.arguments = ["-w"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NATSServersError("iptables \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }

    /// Deletes the rules (comment `viewlog-test-PID`) of test processes that no longer run.
    static func removeRulesOfDeadProcesses() {
        guard let iptables else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: iptables)
        process.arguments = ["-w", "-S", "OUTPUT"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for line in text.split(separator: "\n") where line.hasPrefix("-A OUTPUT") {
            let words = line.split(separator: " ").map(String.init)
            guard let at = words.firstIndex(of: "--comment"), at + 1 < words.count, words[at + 1].hasPrefix("viewlog-test-"),
                  let pid = Int32(words[at + 1].dropFirst("viewlog-test-".count)),
                  Glibc.kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? runIptables(["-D"] + words.dropFirst())
        }
    }

    /// Stops node `i` cleanly (SIGTERM: it flushes and closes its files) and reaps it.
    public func terminate(_ i: Int) {
        guard let process = lock.withLock({ () -> Process? in
            let p = nodes[i].process
            nodes[i].process = nil
            return p
        }) else { return }
        Glibc.kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// Node `i`'s JetStream `store_dir` (remove it while the node is down to make it lose its streams).
    public func storeDirectory(_ i: Int) -> String { "\(directory)/js\(i)" }

    /// Node `i`'s monitoring endpoint `/varz`, as JSON (`version`, `jetstream.config.sync_always`, …).
    public func varz(_ i: Int) throws -> [String: Any] {
        let port = lock.withLock { nodes[i].monitorPort }
        let text = try Self.httpGet(port: port, path: "/varz")
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NATSServersError("/varz of n\(i) is not a JSON object")
        }
        return object
    }

    /// A plain HTTP/1.0 GET on 127.0.0.1 (the monitoring endpoint): the body.
    static func httpGet(port: Int, path: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NATSServersError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw NATSServersError("connect to monitoring port \(port): \(errno)") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw NATSServersError("send to monitoring port \(port): \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            response += buffer[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let body = text.range(of: "\r\n\r\n") else { throw NATSServersError("no HTTP answer on port \(port)") }
        return String(text[body.upperBound...])
    }

    /// Kills and reaps every server and removes the directory. Safe to call twice.
    public func stop() {
        heal()
        let count = lock.withLock { nodes.count }
        for i in 0..<count { kill(i) }
        let groups = lock.withLock { nodes.compactMap(\.cgroup) }
        if let root = Self.cgroup2Root { for group in groups { rmdir(root + "/" + group) } }
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
