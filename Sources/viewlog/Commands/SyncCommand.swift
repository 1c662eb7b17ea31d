import ArgumentParser
@_spi(Replication) @_spi(Engine) import ViewLog
import ViewLogReplication

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply every transaction of a replica's stream past its local head; print the new head.",
        discussion: """
        With --follow, keeps following the stream (appends of every machine) and prints each new head, until \\
        Ctrl-C. A message that fails its checksum, or a local log that disagrees with the stream (a stream that \\
        lost, replaced or reordered transactions the replica holds), is refused with an error naming the first \\
        seq that differs. With --rebuild, the replica is built again from the stream; the old one is kept beside \\
        it (STORE.diverged, or STORE.diverged-2, …), named in the output.

        Examples:
          viewlog sync shop2
          viewlog sync shop2 --follow
          viewlog sync shop2 --rebuild
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Flag(help: "Keep following the stream.") var follow = false
    @Flag(help: "Rebuild the replica from its stream (after a divergence); keep the old store beside it, renamed.")
    var rebuild = false
    @Option(help: "NATS server URLs, comma-separated, instead of those recorded at init.") var nats: String?
    @OptionGroup var format: JSONFlag

    func validate() throws {
        if rebuild && follow { throw ValidationError("--rebuild and --follow go separately") }
    }

    func run() async throws {
        if rebuild { return try rebuildReplica() }
        let replica = try Replica.open(at: storeArgument.store, servers: try nats.map(serverList))
        let head = try replica.sync()
        printHead(head)
        guard follow else { return }
        let loop = Task { [self] in
            var last = head
            for try await applied in replica.follow() where applied > last {
                if Task.isCancelled { return }
                last = applied
                printHead(applied)
            }
        }
        let interrupt = WatchCommand.cancelOnInterrupt(loop)
        defer { for source in interrupt { source.cancel() } }
        try await loop.value
    }

    /// Joins the stream into a sibling directory, then moves the old store aside (`STORE.diverged`, `-2`, …)
    /// and the new one into its place: at no moment is there no store at STORE, and a failure before the
    /// moves leaves the old store as it was.
    private func rebuildReplica() throws {
        var path = storeArgument.store
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let link = try Self.replicaLink(of: path)
        let servers = try nats.map(serverList) ?? link.servers
        let building = path + ".viewlog-rebuild-\(getpid())"
        let head: UInt64
        do {
            let replica = try Replica.join(at: building, servers: servers, stream: link.stream)
            for warning in replica.warnings { Output.warning(warning.description) }
            head = try replica.store.head
        } catch {
            removeStoreDirectory(building)
            throw error
        }
        var kept = path + ".diverged"
        var n = 1
        var st = stat()
        while stat(kept, &st) == 0 {
            n += 1
            kept = path + ".diverged-\(n)"
        }
        guard rename(path, kept) == 0 else {
            let reason = String(cString: strerror(errno))
            removeStoreDirectory(building)
            throw CLIError("cannot move \(path) to \(kept): \(reason)")
        }
        guard rename(building, path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(kept, path)
            removeStoreDirectory(building)
            throw CLIError("cannot move the rebuilt replica to \(path): \(reason)")
        }
        if format.json {
            Output.standard.line(JSONValue.object([("head", .int(Int64(head))), ("kept", .string(kept))]).text)
        } else {
            Output.standard.line("rebuilt \(path) from stream \(link.stream) at seq \(head); the old replica is kept at \(kept)")
        }
    }

    /// The stream a replica store follows (the store is closed again before it returns).
    private static func replicaLink(of path: String) throws -> ReplicaLink {
        let store = try LogStore.open(at: path)
        guard let link = try store.replicaLink else { throw ReplicationError.notAReplica(path: path) }
        return link
    }

    /// Removes a store directory this command made (its LMDB files, then the directory); quiet when absent.
    private func removeStoreDirectory(_ path: String) {
        for name in ["data.mdb", "lock.mdb"] { unlink(path + "/" + name) }
        rmdir(path)
    }

    private func printHead(_ head: UInt64) {
        Output.standard.line(format.json ? JSONValue.object([("head", .int(Int64(head)))]).text : String(head))
        Output.standard.flush()
    }
}

/// `--nats a,b,c` as a list of URLs.
func serverList(_ text: String) throws -> [String] {
    let urls = text.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    guard !urls.isEmpty else { throw CLIError("--nats needs at least one server URL") }
    return urls
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// A replica store's follower running beside a command that reads the store (watch): applies the stream's
/// transactions to the store as they come, so the command sees every machine's appends. A failure the follower
/// cannot retry (a corrupt message, a diverged log) ends the process with an `error:` line.
enum ReplicaFollower {
    /// Starts following when `store` is a replica; `nil` otherwise. Cancel the task to stop.
    static func startIfReplica(_ store: LogStore) throws -> Task<Void, Never>? {
        guard try store.replicaLink != nil else { return nil }
        let replica = try Replica.open(store)
        _ = try replica.sync()
        return Task.detached {
            do {
                for try await _ in replica.follow() {}
            } catch is CancellationError {
            } catch {
                Output.standard.flush()
                Main.fail(error)
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
