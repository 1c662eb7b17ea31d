@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
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
    /// When appends start a checkpoint (a copy of the object rows at a seq, which time travel folds from) and how
    /// fast they build it: ``CheckpointPolicy/standard`` unless you choose.
    public var checkpoints: CheckpointPolicy

    /// The initial map size unless you choose one: 64 MiB.
    public static let defaultMapSizeBytes = Limits.mapSizeBytesInitial

    /// Durable commits, a 64 MiB initial map, read-write, standard checkpoints.
    public init(durable: Bool = true, mapSizeBytes: Int = StoreOptions.defaultMapSizeBytes, readOnly: Bool = false,
                checkpoints: CheckpointPolicy = .standard) {
        self.durable = durable
        self.mapSizeBytes = mapSizeBytes
        self.readOnly = readOnly
        self.checkpoints = checkpoints
    }
}
