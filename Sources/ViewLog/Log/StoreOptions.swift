/// How a ``LogStore`` is opened.
public struct StoreOptions: Sendable, Hashable {
    /// Flush every commit to disk (the default). `false` trades the last commits before a machine crash for
    /// speed; the store is never corrupted either way.
    public var durable: Bool
    /// Initial map size; the map grows by itself.
    public var mapSizeBytes: Int
    /// Open for reading only (LMDB's `MDB_RDONLY`): no writer lock is ever taken, so reads never wait for a
    /// writer, and a store whose `data.mdb` cannot be written (read-only media, another owner) can be read.
    /// Writes through such a store are a programmer error.
    public var readOnly: Bool

    /// The initial map size unless you choose one: 64 MiB.
    public static let defaultMapSizeBytes = 64 * 1024 * 1024

    /// Durable commits and a 64 MiB initial map, read-write.
    public init(durable: Bool = true, mapSizeBytes: Int = StoreOptions.defaultMapSizeBytes, readOnly: Bool = false) {
        self.durable = durable
        self.mapSizeBytes = mapSizeBytes
        self.readOnly = readOnly
    }
}
