/// How a ``LogStore`` is opened.
public struct StoreOptions: Sendable, Hashable {
    /// Flush every commit to disk (the default). `false` trades the last commits before a machine crash for
    /// speed; the store is never corrupted either way.
    public var durable: Bool
    /// Initial map size; the map grows by itself.
    public var mapSizeBytes: Int

    /// Durable commits and a 64 MiB initial map.
    public init(durable: Bool = true, mapSizeBytes: Int = Limits.mapSizeBytesInitial) {
        self.durable = durable
        self.mapSizeBytes = mapSizeBytes
    }
}
