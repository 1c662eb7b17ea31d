/// How an ``LMDBEnvironment`` is opened.
public struct EnvironmentOptions: Sendable, Hashable {
    /// Initial map size in bytes; the map grows by itself (doubling) when a write fills it.
    public var mapSizeBytes: Int
    /// The map never grows beyond this; a write that needs more fails with `MDB_MAP_FULL`.
    public var mapSizeBytesMax: Int
    /// Most named databases.
    public var maxDatabases: UInt32
    /// Flush to disk on every commit (LMDB's default). `false` opens with `MDB_NOSYNC`: a crash of the
    /// machine may lose the last commits but never corrupts the file.
    public var durable: Bool
    /// Open read-only.
    public var readOnly: Bool
    /// Permission bits of the files LMDB creates.
    public var fileMode: UInt32

    /// Options with safe defaults: 64 MiB growing map, durable commits, files readable by the owner only.
    public init(mapSizeBytes: Int = 64 << 20, mapSizeBytesMax: Int = 1 << 40, maxDatabases: UInt32 = 8,
                durable: Bool = true, readOnly: Bool = false, fileMode: UInt32 = 0o600) {
        self.mapSizeBytes = mapSizeBytes
        self.mapSizeBytesMax = mapSizeBytesMax
        self.maxDatabases = maxDatabases
        self.durable = durable
        self.readOnly = readOnly
        self.fileMode = fileMode
    }
}
