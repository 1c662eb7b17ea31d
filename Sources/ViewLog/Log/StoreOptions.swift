/// How a ``LogStore`` is opened.
public struct StoreOptions: Sendable, Hashable {
    /// Flush every commit to disk (the default). `false` trades the last commits before a machine crash for
    /// speed; the store is never corrupted either way.
    public var durable: Bool
    /// Initial map size; the map grows by itself.
    public var mapSizeBytes: Int

    /// The initial map size unless you choose one: 64 MiB .
    public static let defaultMapSizeBytes = 64 * 1024 * 1024

    /// Durable commits and a 64 MiB initial map.
    public init(durable: Bool = true, mapSizeBytes: Int = StoreOptions.defaultMapSizeBytes) {
        self.durable = durable
        self.mapSizeBytes = mapSizeBytes
    }
}
