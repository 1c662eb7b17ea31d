@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// The upstream log a replica store follows, recorded in the store's `meta` database.
///
/// ViewLog itself knows nothing of the transport: `ViewLogReplication` writes this record when it makes a
/// replica, and reads it to know where to connect. A store with this record is a **replica**: it refuses
/// local-only appends (``StoreError/replica(path:stream:)``), which would fork the log.
@_spi(Replication)
public struct ReplicaLink: Sendable, Hashable {
    /// The name of the stream the store follows.
    public var stream: String
    /// The server URLs to reach the stream at.
    public var servers: [String]

    /// Makes a link.
    public init(stream: String, servers: [String]) {
        self.stream = stream
        self.servers = servers
    }

    /// The stored form: a JSON object `{"stream": …, "servers": […]}`.
    var json: JSONValue {
        .object([("stream", .string(stream)), ("servers", .array(servers.map { .string($0) }))])
    }

    /// Reads the stored form; `nil` when it is not a link.
    init?(json text: String) {
        guard let value = try? JSONValue.parse(text), case .object(let fields) = value,
              let stream = fields.first(where: { $0.0 == "stream" }), case .string(let name) = stream.1,
              let servers = fields.first(where: { $0.0 == "servers" }), case .array(let urls) = servers.1
        else { return nil }
        var list: [String] = []
        for url in urls {
            guard case .string(let s) = url else { return nil }
            list.append(s)
        }
        self.init(stream: name, servers: list)
    }
}

/// The narrow API that replication needs from a store: encoded log entries in and out, and the replica
/// record. Encoded entries are opaque here — "the log's binary encoding with its checksum, under a seq" — so
/// replication never depends on the codec's internals.
@_spi(Replication)
extension LogStore {
    /// The encoded log entry (checksum included) of `seq`, exactly as stored; `nil` past the head or at 0.
    public func encodedTransaction(at seq: UInt64) throws(StoreError) -> [UInt8]? {
        guard seq > 0 else { return nil }
        return try perform(read: true) { txn in
            try bigEndianBytes(seq).withUnsafeBytes { key in try txn.value(self.logDB, for: key).map { Array($0) } }
        }
    }

    /// The replica record, or `nil` for a store that is not a replica.
    public var replicaLink: ReplicaLink? {
        get throws(StoreError) {
            try perform(read: true) { txn in try self.replicaLink(in: txn) }
        }
    }

    func replicaLink(in txn: LMDBTransaction) throws -> ReplicaLink? {
        guard let bytes = try txn.value(metaDB, for: MetaKey.replica) else { return nil }
        let payload = try MetaRecord.payload(bytes, key: MetaKey.replica, format: try format(in: txn),
                                             record: "the replica record")
        guard let link = ReplicaLink(json: String(decoding: payload, as: UTF8.self)) else {
            throw StoreError.corrupt(seq: nil, reason: "the replica record in the metadata does not load")
        }
        return link
    }

    /// Makes this store a replica of `link`'s stream (or changes the servers it is reached at).
    /// - Precondition: the store is empty or already a replica of the same stream: a store with a local
    ///   history cannot start following a stream (its seqs would not be the stream's).
    public func setReplicaLink(_ link: ReplicaLink) throws(StoreError) {
        try perform { txn in
            let existing = try self.replicaLink(in: txn)
            let head = try self.head(in: txn)
            precondition(existing?.stream == link.stream || head == 0,
                         "only an empty store, or a replica of the same stream, becomes a replica")
            try self.putMeta(txn, MetaKey.replica, Array(link.json.text.utf8), format: try self.format(in: txn))
        }
    }

    /// Validates `request` against the state at the head, as if it were appended now, and returns the seq it
    /// would get and its encoded entry — without appending anything. A request whose changes by predicate all match
    /// nothing would append nothing: seq 0 and no bytes.
    /// - Throws: the errors of ``append(_:)-(TransactionRequest)`` (naming transaction 0).
    public func prepareEncoded(_ request: TransactionRequest) throws(StoreError) -> (seq: UInt64, bytes: [UInt8]) {
        try Self.checkShape(of: [request])
        let time = request.time ?? Timestamp.now
        return try inRolledBackWrite { txn -> (seq: UInt64, bytes: [UInt8]) in
            let t = try self.appendInTransaction(txn, [request], time: time, replicated: true)[0]
            guard t.seq != 0 else { return (0, []) }
            guard let bytes = try self.encodedEntry(t.seq, in: txn) else {
                throw StoreError.corrupt(seq: t.seq, reason: "the entry just written cannot be read back")
            }
            return (t.seq, bytes)
        }
    }

    /// Commits an encoded entry under `seq` — a transaction another replica made, read from the stream, or
    /// this replica's own after the stream acknowledged it — checking that `seq` is the next seq, that the
    /// bytes decode (checksum included) to a transaction of that seq, that it applies to the current state
    /// as logged, and that the store logs exactly these bytes. All in one write; nothing is committed on an
    /// error.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` naming `seq` for bytes that fail their checksum or do
    ///   not decode, or that do not apply as logged; ``StoreError/positionPastHead(position:head:)`` when
    ///   `seq` is not the head + 1.
    @discardableResult
    public func commitEncoded(_ bytes: [UInt8], seq: UInt64) throws(StoreError) -> Transaction {
        let transaction: Transaction
        do {
            transaction = try bytes.withUnsafeBytes { b throws(CodecError) in try TransactionCodec.decode(b, expectedSeq: seq) }
        } catch {
            throw .corrupt(seq: seq, reason: "the replicated entry does not decode: \(error)")
        }
        let committed = try perform { txn -> Transaction in
            let head = try self.head(in: txn)
            guard seq == head + 1 else { throw StoreError.positionPastHead(position: seq - 1, head: head) }
            // A schema change opens its transaction; the rest replays as requests checked against the logged changes.
            let request = TransactionRequest(replaying: transaction)
            var newSchema: Schema?, migration: Migration?
            switch transaction.changes.first {
            case .schema(let s, _)?: newSchema = s
            case .migration(let m, let s, _)?: (newSchema, migration) = (s, m)
            default: break
            }
            let logged: Transaction
            do {
                logged = try self.appendInTransaction(txn, [request], time: transaction.time, newSchema: newSchema,
                                                      migration: migration, replicated: true)[0]
            } catch let StoreError.invalidChange(_, change, reason) {
                throw StoreError.corrupt(seq: seq, reason: "change \(change + 1) does not apply as logged: \(reason)")
            }
            guard try self.encodedEntry(seq, in: txn) == bytes else {
                throw StoreError.corrupt(seq: seq, reason: "the entry logs as other bytes than the replicated ones")
            }
            return logged
        }
        notifyHead(seq)
        return committed
    }

    func encodedEntry(_ seq: UInt64, in txn: LMDBTransaction) throws -> [UInt8]? {
        try bigEndianBytes(seq).withUnsafeBytes { key in try txn.value(self.logDB, for: key).map { Array($0) } }
    }
}
