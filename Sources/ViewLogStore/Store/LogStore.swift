@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store: one LMDB environment in a directory, holding the log, the objects at the head, and metadata
///.
///
/// - `log`: 8-byte big-endian seq → encoded ``Transaction`` with its CRC32C, appended with `MDB_APPEND`.
/// - `objects`: entity + id → encoded object values and the seq that last changed the object (the head state).
/// - `meta`: format version, head, and the schema of each position where it changed.
/// - `checkpoints`: the object rows as they were at a few seqs, built by appends (``CheckpointPolicy``); time travel
///   starts from the nearest one.
/// - `refs`: the reverse index of relationships: target → the objects that name it (`schema/log-format.md`).
/// - `views`: the rows of the stored named views at the head, in view order (DESIGN §11, `schema/log-format.md`).
///
/// Every append writes them in **one** LMDB write transaction, so `objects == replay(log)` always holds
/// (``verify(progress:)`` checks it). A `LogStore` is `Sendable`: share one per path in a process (LMDB's rule,
/// which ``open(at:options:)`` enforces by sharing the environment). Reads use short read transactions; no
/// read transaction stays open between calls.
public final class LogStore: Sendable {
    /// The store's directory.
    public let path: String
    /// Whether every commit is flushed to disk (``StoreOptions/durable``), as the store was first opened in this
    /// process (stores of one path share one environment, and its first opening decides).
    public var isDurable: Bool { environment.options.durable }
    let environment: LMDBEnvironment
    let logDB: LMDBDatabase
    package let objectsDB: LMDBDatabase
    let metaDB: LMDBDatabase
    /// The checkpoints (``CheckpointDirectory``): `nil` only in a store opened read-only that has none yet (a
    /// store made by code older than checkpoints gets the database when it is first opened for writing).
    let checkpointsDB: LMDBDatabase?
    /// The reverse index of relationships (``ReferenceKey``): `nil` only in a store opened read-only that has none
    /// yet (a store made by code older than relationships gets it when it is first opened for writing; until its
    /// schema has a relationship it stays empty).
    package let refsDB: LMDBDatabase?
    /// The stored views (``StoredView``): `nil` only in a store opened read-only that has none yet (a store made by
    /// code older than stored views gets it, and its views' rows, when it is first opened for writing).
    package let viewsDB: LMDBDatabase?
    /// When this store's appends start checkpoints and how fast they build them.
    let checkpointPolicy: CheckpointPolicy
    /// The last schema read from the metadata, with the stored text it was parsed from. Every append reads
    /// the schema at the head; parsing its JSON each time was most of a small append's cost (bench/RESULTS.md).
    /// A hit needs the stored bytes to be equal, so the cache is never stale.
    private let schemaCache = Locked<(text: [UInt8], schema: Schema)?>(nil)
    /// The stored views of the last schema asked for (``storedViews(of:)``): every append needs them, and parsing
    /// and compiling their predicates and orders each time would cost a small append more than its puts.
    private let storedViewsCache = Locked<(schema: Schema, views: [StoredView])?>(nil)
    /// Fault injection for tests: how many of the next look-ups of a stored view fail (``injectedStoredViewFault()``),
    /// so that tests can show each read path's recovery. Per store, so that it cannot fail another test's store.
    let storedViewFaults = Locked<Int>(0)

    /// The log format version this code writes and the newest it reads. Version 2 checksums object rows and
    /// metadata records; stores of version 1 are read and written in version 1 until ``upgrade()``.
    public static let formatVersion = 2

    /// Opens the store's databases; only `create` makes them, so that opening never writes into an LMDB file
    /// that is not a store.
    private init(path: String, environment: LMDBEnvironment, create: Bool, options: StoreOptions) throws(StoreError) {
        self.path = path
        self.environment = environment
        checkpointPolicy = options.checkpoints
        do {
            logDB = try environment.database(named: "log", create: create)
            objectsDB = try environment.database(named: "objects", create: create)
            metaDB = try environment.database(named: "meta", create: create)
            // A store made before checkpoints has no such database: it is a store (the three above exist), so
            // the database is added, unless the store is only read.
            do {
                checkpointsDB = try environment.database(named: "checkpoints", create: create)
            } catch where error.code == LMDBError.notFound.code {
                checkpointsDB = options.readOnly ? nil : try environment.database(named: "checkpoints", create: true)
            }
            do {
                refsDB = try environment.database(named: "refs", create: create)
            } catch where error.code == LMDBError.notFound.code {
                refsDB = options.readOnly ? nil : try environment.database(named: "refs", create: true)
            }
            do {
                viewsDB = try environment.database(named: "views", create: create)
            } catch where error.code == LMDBError.notFound.code {
                viewsDB = options.readOnly ? nil : try environment.database(named: "views", create: true)
            }
        } catch where error.code == LMDBError.notFound.code {
            throw StoreError.notAStore(path: path, reason: "its LMDB file has no ViewLog databases")
        } catch {
            throw StoreError.storage("open databases of \(path): \(error)")
        }
    }

    /// Creates a store in a new directory at `path` with `schema`. The store is built in a temporary sibling
    /// directory and renamed into place, so a failure (a full disk) never leaves a half-made store at `path`.
    /// - Throws: ``StoreError/alreadyExists(path:)`` when `path` exists.
    public static func create(at path: String, schema: Schema, options: StoreOptions = StoreOptions()) throws(StoreError) -> LogStore {
        do { try schema.validate() } catch { throw .schema(error) }
        try checkSchemaSize(schema)
        var st = stat()
        if stat(path, &st) == 0 { throw .alreadyExists(path: path) }
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        var template = Array((trimmed + ".viewlog-init-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .storage("cannot create directory \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = String(cString: made)
        do { try build(at: temporary, schema: schema, options: options) } catch {
            removeStoreDirectory(temporary)
            throw error
        }
        guard rename(temporary, trimmed) == 0 else {
            let code = errno
            removeStoreDirectory(temporary)
            if code == ENOTEMPTY || code == EEXIST { throw .alreadyExists(path: path) }
            throw .storage("cannot create \(path): \(String(cString: strerror(code)))")
        }
        return try open(at: trimmed, options: StoreOptions(durable: options.durable, mapSizeBytes: options.mapSizeBytes,
                                                          checkpoints: options.checkpoints))
    }

    /// Writes a new store's metadata into the empty directory `path`, and closes it again.
    private static func build(at path: String, schema: Schema, options: StoreOptions) throws(StoreError) {
        let store = try LogStore(path: path, environment: try environment(path, options), create: true, options: options)
        try store.perform { txn in
            try store.putMeta(txn, MetaKey.format, bigEndianBytes(UInt64(formatVersion)), format: formatVersion)
            try store.putMeta(txn, MetaKey.head, bigEndianBytes(0), format: formatVersion)
            try store.putMeta(txn, MetaKey.schema(at: 0), Array(schema.json.text.utf8), format: formatVersion)
            try store.recordFeatures(of: schema, in: txn, format: formatVersion)
        }
        do { try store.environment.sync() } catch { throw .storage(error.description) }
    }

    /// Removes a directory made by ``create(at:schema:options:)`` that did not become a store.
    private static func removeStoreDirectory(_ path: String) {
        for file in ["data.mdb", "lock.mdb"] { unlink(path + "/" + file) }
        rmdir(path)
    }

    /// Refuses a schema longer than ``Limits/schemaBytesMax`` (checked before anything is written).
    static func checkSchemaSize(_ schema: Schema) throws(StoreError) {
        let bytes = schema.json.text.utf8.count
        guard bytes <= Limits.schemaBytesMax else {
            throw .schema(.invalid("the schema is \(bytes) bytes of JSON, more than the limit of \(Limits.schemaBytesMax)"))
        }
    }

    /// Opens the store at `path`.
    /// - Throws: ``StoreError/notAStore(path:reason:)`` for a directory without a store or a file that is not
    ///   LMDB; ``StoreError/unsupportedFormat(path:found:supported:)`` for a newer format,
    ///   ``StoreError/unsupportedFeatures(path:features:)`` for one using a feature this code does not know.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws(StoreError) -> LogStore {
        var st = stat()
        guard stat(path, &st) == 0 else { throw .notAStore(path: path, reason: "no such directory") }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .notAStore(path: path, reason: "not a directory") }
        guard stat(path + "/data.mdb", &st) == 0 else { throw .notAStore(path: path, reason: "no data.mdb in it") }
        // LMDB would make an empty file a new environment: refuse it before LMDB writes into it.
        guard st.st_size > 0 else { throw .notAStore(path: path, reason: "its data.mdb is empty") }
        let store = try LogStore(path: path, environment: try environment(path, options), create: false, options: options)
        try store.perform(read: true) { txn in try store.checkFeatures(in: txn, format: try store.format(in: txn)) }
        if !options.readOnly { try store.buildStoredViews() }
        return store
    }

    private static func environment(_ path: String, _ options: StoreOptions) throws(StoreError) -> LMDBEnvironment {
        do {
            return try LMDBEnvironment.open(path: path, options: EnvironmentOptions(
                mapSizeBytes: options.mapSizeBytes, mapSizeBytesMax: Limits.mapSizeBytesMax,
                maxDatabases: Limits.namedDatabasesMax, durable: options.durable, readOnly: options.readOnly))
        } catch let error where error.code == LMDBError.invalid.code || error.code == LMDBError.versionMismatch.code {
            throw .notAStore(path: path, reason: "its data.mdb is not an LMDB file of this version")
        } catch let error where error.code == LMDBError.corrupted.code {
            throw .corrupt(seq: nil, reason: error.context)
        } catch {
            throw .storage(error.description)
        }
    }

    /// Runs `body` in one LMDB transaction, mapping storage errors to ``StoreError``.
    package func perform<T>(read: Bool = false, _ body: (LMDBTransaction) throws -> T) throws(StoreError) -> T {
        do {
            return read ? try environment.read(body) : try environment.write(body)
        } catch let error as StoreError {
            throw error
        } catch let error as LMDBError where !read && [EIO, ENOSPC, EFBIG, EDQUOT].contains(error.code) {
            // LMDB reports a short write (a full disk, a file size limit) as EIO. Nothing was committed.
            throw .storage("\(path): cannot write the store (\(error.message)): is the disk full, or a file size limit reached?")
        } catch let error as LMDBError {
            throw .storage("\(path): \(error.description)")
        } catch let error as CodecError {
            throw .corrupt(seq: nil, reason: error.description)
        } catch {
            throw .storage("\(path): \(error)")
        }
    }

    /// The seq of the last transaction (0 for an empty log).
    public var head: UInt64 {
        get throws(StoreError) { try perform(read: true) { txn in try self.head(in: txn) } }
    }

    package func head(in txn: LMDBTransaction) throws -> UInt64 {
        let format = try self.format(in: txn)
        guard let bytes = try txn.value(metaDB, for: MetaKey.head) else {
            throw StoreError.corrupt(seq: nil, reason: "no head in the metadata")
        }
        let payload = try MetaRecord.payload(bytes, key: MetaKey.head, format: format, record: "the head")
        guard let h = uint64FromBigEndian(payload) else {
            throw StoreError.corrupt(seq: nil, reason: "the head in the metadata has \(payload.count) bytes, not 8")
        }
        return h
    }

    /// The log format of the store, read from its metadata in `txn` (every read and write asks, so a store
    /// upgraded by another process is never written in the old format).
    /// - Throws: ``StoreError/notAStore(path:reason:)`` without a format record,
    ///   ``StoreError/unsupportedFormat(path:found:supported:)`` for a newer one, ``StoreError/corrupt(seq:reason:)``
    ///   for a damaged one.
    package func format(in txn: LMDBTransaction) throws -> Int {
        guard let bytes = try txn.value(metaDB, for: MetaKey.format) else {
            throw StoreError.notAStore(path: path, reason: "no format version in its metadata")
        }
        // Format 1 stored 8 bytes; format 2 and later add a checksum.
        let checked = bytes.count == 8 + MetaRecord.checksumBytes
        guard bytes.count == 8 || checked else {
            throw StoreError.corrupt(seq: nil, reason: "the format version in the metadata has \(bytes.count) bytes")
        }
        let payload = checked ? try MetaRecord.payload(bytes, key: MetaKey.format, format: 2, record: "the format version") : bytes
        let version = uint64FromBigEndian(payload) ?? 0
        guard version <= UInt64(Self.formatVersion) else {
            throw StoreError.unsupportedFormat(path: path, found: Int(clamping: version), supported: Self.formatVersion)
        }
        guard checked ? version >= 2 : version == 1 else {
            throw StoreError.corrupt(seq: nil, reason: "the format version in the metadata (\(version)) does not match its record")
        }
        return Int(version)
    }

    /// Writes a metadata record in the store's format.
    func putMeta(_ txn: LMDBTransaction, _ key: [UInt8], _ payload: [UInt8], format: Int) throws {
        try txn.put(metaDB, key: key, value: MetaRecord.encode(payload, key: key, format: format))
    }

    /// The schema at the head.
    public var schema: Schema {
        get throws(StoreError) { try perform(read: true) { txn in try self.schema(at: UInt64.max, in: txn) } }
    }

    /// The schema in force at `position`: the last schema change at or before it.
    public func schema(at position: UInt64) throws(StoreError) -> Schema {
        try perform(read: true) { txn in
            _ = try self.reachable(position, in: txn)
            return try self.schema(at: position, in: txn)
        }
    }

    func schema(at position: UInt64, in txn: LMDBTransaction) throws -> Schema {
        let bound = position == UInt64.max ? MetaKey.schemaEnd : MetaKey.schema(at: position + 1)
        var found: LMDBCursor.Entry?
        try txn.scan(metaDB, from: .below(bound)) { e in
            guard e.key.hasPrefix(MetaKey.schemaPrefix) else { return .next }
            found = e
            return .stop
        }
        guard let e = found else { throw StoreError.corrupt(seq: nil, reason: "no schema in the metadata") }
        // A hit compares the whole stored value, checksum included, with one that passed its check.
        if let hit = schemaCache.withLock({ cached -> Schema? in
            guard let cached, cached.text.count == e.value.count,
                  cached.text.withUnsafeBytes({ memcmp($0.baseAddress!, e.value.baseAddress!, $0.count) }) == 0
            else { return nil }
            return cached.schema
        }) {
            return hit
        }
        let position = uint64FromBigEndian(e.key.dropFirst(MetaKey.schemaPrefix.count)).map { "\($0)" } ?? "?"
        let payload = try MetaRecord.payload(e.value, key: Array(e.key), format: try self.format(in: txn),
                                             record: "the schema of position \(position)")
        let text = String(decoding: payload, as: UTF8.self)
        let schema: Schema
        do { schema = try Schema(jsonText: text) } catch {
            // Stored by code that knows a feature this code does not (since this process opened the store).
            try checkFeatures(in: txn, format: try self.format(in: txn))
            throw StoreError.corrupt(seq: nil, reason: "the stored schema of position \(position) does not load: \(error)")
        }
        schemaCache.withLock { $0 = (Array(e.value), schema) }
        return schema
    }

    /// The stored views of `schema` (``StoredView/all(of:)``), from the cache when `schema` is the last one asked for.
    func storedViews(of schema: Schema) -> [StoredView] {
        if schema.views.isEmpty { return [] }
        if let hit = storedViewsCache.withLock({ cached in cached?.schema == schema ? cached?.views : nil }) { return hit }
        let views = StoredView.all(of: schema)
        storedViewsCache.withLock { $0 = (schema, views) }
        return views
    }

    /// Bytes of the store's data file that LMDB uses.
    public var usedBytes: Int { environment.usedBytes }
}

/// Keys of the `meta` database.
enum MetaKey {
    static let format = Array("format".utf8)
    static let head = Array("head".utf8)
    static let schemaPrefix = Array("schema@".utf8)
    /// The replica record (``ReplicaLink``), present only in a replica.
    static let replica = Array("replica".utf8)
    /// The features the store uses (``LogStore/recordFeatures(of:in:format:)``), present once it uses one.
    static let features = Array("features".utf8)
    /// The horizon (``LogStore/horizon``), present once the store was compacted.
    static let horizon = Array("horizon".utf8)
    /// A compaction under way (``CompactionRecord``), present only while one is.
    static let compaction = Array("compaction".utf8)
    static let schemaEnd = Array("schema@".utf8) + [UInt8](repeating: 0xFF, count: 9)
    static func schema(at seq: UInt64) -> [UInt8] { schemaPrefix + bigEndianBytes(seq) }
}

/// 8 bytes, most significant first: the log's key order is numeric order.
@inlinable
func bigEndianBytes(_ v: UInt64) -> [UInt8] {
    withUnsafeBytes(of: v.bigEndian) { Array($0) }
}

func uint64FromBigEndian(_ bytes: some Collection<UInt8>) -> UInt64? {
    guard bytes.count == 8 else { return nil }
    return bytes.reduce(0) { $0 << 8 | UInt64($1) }
}

func uint64FromBigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard bytes.count == 8 else { return nil }
    return bytes.reduce(0) { $0 << 8 | UInt64($1) }
}
