@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Counts and sizes of a store (`viewlog stats`).
public struct StoreStatistics: Sendable, Hashable {
    /// The last seq.
    public var head: UInt64
    /// The lowest position the store answers for (``LogStore/horizon``): 0 unless compacted.
    public var horizon: UInt64 = 0
    /// Objects at the head, per entity name.
    public var objectsByEntity: [String: Int]
    /// Bytes of the pages of the log database.
    public var logBytes: Int
    /// Bytes of the pages of the objects database.
    public var objectBytes: Int
    /// Bytes LMDB uses in its data file.
    public var usedBytes: Int
    /// The current map size (the data file can grow to it without a resize).
    public var mapSizeBytes: Int
    /// The complete checkpoints' seqs, oldest first (see ``CheckpointPolicy``).
    public var checkpoints: [UInt64] = []
    /// The seq of the checkpoint appends are building, if any.
    public var checkpointBuilding: UInt64?
    /// Bytes of the pages of the checkpoints database.
    public var checkpointBytes: Int = 0

    /// Objects at the head in all entities.
    public var objects: Int { objectsByEntity.values.reduce(0, +) }
}

extension LogStore {
    /// Counts and sizes, read in one short read transaction.
    public func statistics() throws(StoreError) -> StoreStatistics {
        let schema = try self.schema
        return try perform(read: true) { txn in
            var counts: [String: Int] = [:]
            for name in schema.entityNames {
                counts[name] = try txn.scan(self.objectsDB, prefix: ObjectRecordCodec.entityPrefix(name)) { _ in .next }
            }
            var statistics = StoreStatistics(head: try self.head(in: txn), objectsByEntity: counts,
                                             logBytes: try txn.statistics(self.logDB).bytes,
                                             objectBytes: try txn.statistics(self.objectsDB).bytes,
                                             usedBytes: self.environment.usedBytes, mapSizeBytes: self.environment.mapSizeBytes)
            statistics.horizon = try self.horizon(in: txn)
            if let db = self.checkpointsDB {
                let directory = try self.checkpointDirectory(in: txn)
                statistics.checkpoints = directory.complete
                statistics.checkpointBuilding = directory.building
                statistics.checkpointBytes = try txn.statistics(db).bytes
            }
            return statistics
        }
    }
}
