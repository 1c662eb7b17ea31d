import ArgumentParser
@_spi(Replication) @_spi(Engine) import ViewLog
import ViewLogReplication

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply every transaction of a replica's stream past its local head; print the new head.",
        discussion: """
        With --follow, keeps following the stream (appends of every machine) and prints each new head, until \\
        Ctrl-C. A message that fails its checksum, or a local log that disagrees with the stream, is refused \\
        with an error naming the seq.

        Examples:
          viewlog sync shop2
          viewlog sync shop2 --follow
        """
    )

    @OptionGroup var storeArgument: StoreArgument
    @Flag(help: "Keep following the stream.") var follow = false
    @Option(help: "NATS server URLs, comma-separated, instead of those recorded at init.") var nats: String?
    @OptionGroup var format: JSONFlag

    func run() async throws {
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
