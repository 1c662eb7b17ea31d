import ArgumentParser
import ViewLog
import ViewLogReplication

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store (a directory) with a schema, or a replica of a NATS JetStream stream.",
        discussion: """
        With --nats and --stream the store is a replica: the stream (subject viewlog.NAME, file \
        storage, --replicas copies, default min(3, servers)) is created with the schema when it does not exist, \
        or joined when it does; without --schema the stream must exist and its schema is used. Every \
        transaction the stream holds is applied. A server older than nats-server 2.12.4 (which cannot flush before \
        it acknowledges, or loses acknowledged writes after some faults) is named in a warning on stderr.

        With --from-backup DIR (a `viewlog backup` of a replica of --stream, at seq p) the store starts as a copy \
        of the backup and follows the stream from p + 1; refused, with nothing created, when DIR is not a store or \
        not a replica of that stream, or when the stream no longer holds p + 1 (replication.compacted: its limits \
        removed it).

        Examples:
          viewlog init shop --schema schema/employees.json
          viewlog init a --schema emp.json --nats nats://127.0.0.1:4222 --stream shop
          viewlog init b --nats nats://127.0.0.1:4222 --stream shop
          viewlog init c --nats nats://127.0.0.1:4222 --stream shop --from-backup bak
        """
    )

    @Argument(help: "The store directory to create; it must not exist.")
    var store: String

    @Option(help: "The schema file (JSON, see schema/schema.schema.json).")
    var schema: String?

    @Option(help: "NATS server URLs, comma-separated: make the store a replica of --stream.")
    var nats: String?

    @Option(help: "The JetStream stream to create or join (letters, digits, '-', '_').")
    var stream: String?

    @Option(help: "Copies of a new stream in the NATS cluster (default min(3, servers)).")
    var replicas: Int?

    @Option(name: .customLong("from-backup"),
            help: ArgumentHelp("A backup of a replica of --stream to start the replica from.", valueName: "dir"))
    var fromBackup: String?

    func validate() throws {
        if (nats == nil) != (stream == nil) { throw ValidationError("--nats and --stream go together") }
        if nats == nil && schema == nil { throw ValidationError("missing --schema (or --nats and --stream to join a stream)") }
        if replicas != nil && nats == nil { throw ValidationError("--replicas needs --nats and --stream") }
        if fromBackup != nil && nats == nil { throw ValidationError("--from-backup needs --nats and --stream") }
        if fromBackup != nil && (schema != nil || replicas != nil) {
            throw ValidationError("--from-backup joins an existing stream: no --schema or --replicas")
        }
    }

    func run() throws {
        var parsed: Schema?
        if let schema {
            let text = try readTextFile(schema)
            do { parsed = try Schema(jsonText: text) } catch { throw CLIError("\(schema): \(error)") }
        }
        if let nats, let stream {
            let servers = try serverList(nats)
            if let fromBackup {
                let (replica, position) = try Replica.start(at: self.store, fromBackup: fromBackup, servers: servers, stream: stream)
                for warning in replica.warnings { Output.warning(warning.description) }
                Output.standard.line("created \(replica.store.path), a replica of stream \(stream) at seq \(try replica.store.head), from the backup \(fromBackup) at seq \(position)")
                return
            }
            let replica = try parsed.map { schema throws(ReplicationError) in
                try Replica.create(at: self.store, schema: schema, servers: servers, stream: stream, replicas: replicas)
            } ?? Replica.join(at: self.store, servers: servers, stream: stream)
            for warning in replica.warnings { Output.warning(warning.description) }
            let schema = try replica.store.schema
            Output.standard.line("created \(replica.store.path), a replica of stream \(stream) at seq \(try replica.store.head), with \(schema.entities.count) entities and \(schema.views.count) views")
            return
        }
        guard let parsed else { throw CLIError("missing --schema") }
        let store = try LogStore.create(at: self.store, schema: parsed)
        Output.standard.line("created \(store.path) with \(parsed.entities.count) entities and \(parsed.views.count) views")
    }
}

/// Reads a whole UTF-8 text file, or fails naming it.
func readTextFile(_ path: String) throws -> String {
    guard let file = fopen(path, "rb") else { throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    // Sized by the file's length (one read into one buffer, not a growing array): a bulk load's input is
    // megabytes, and every copy of it is page faults before the first line is read.
    var info = stat()
    let size = fstat(fileno(file), &info) == 0 && info.st_size > 0 ? Int(info.st_size) : 0
    var bytes: [UInt8] = []
    var capacity = size + 1  // one byte more: a file that grew since fstat shows it
    while true {  // bounded: each step reads at least one byte or ends
        // Read straight into spare capacity: no zeroed buffer written twice.
        var n = 0
        bytes.reserveCapacity(capacity)
        bytes.append(addingCapacity: capacity - bytes.count) { out in
            out.withUnsafeMutableBufferPointer { buffer, count in
                n = fread(buffer.baseAddress! + count, 1, buffer.count - count, file)
                count += n
            }
        }
        if n == 0 {
            guard ferror(file) == 0 else { throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))") }
            break
        }
        if bytes.count == capacity { capacity += max(65_536, capacity) }
    }
    let text = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
    guard let text else { throw CLIError("\(path) is not UTF-8 text") }
    return text
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
