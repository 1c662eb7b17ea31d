/// The JSON document bench-report prints.
public struct Report: Codable, Sendable {
    public var sizes: [Int] = []
    public var append: [AppendResult] = []
    public var views: [ViewResult] = []
    public var replay: ReplayResult?
    /// Append with 0, 1 and 3 stored named views (DESIGN §11), and SQLite inserting the same rows into tables with
    /// 0, 1 and 3 matching secondary indexes: nanoseconds per durable write of 10,000 inserts, by count (as text).
    public var storedViewAppend: [String: Timing] = [:]
    public var sqliteIndexedInsert: [String: Timing] = [:]
    /// The raw-LMDB peer of ``storedViewAppend``: LMDB in C doing the same puts, with 0, 1 and 3 views' rows under
    /// ViewLog's keys in one `views` database (``measureRawLMDBAppendWithIndexes(root:writes:rounds:sorted:durable:)``).
    public var rawIndexedAppend: [String: Timing] = [:]
    public var grdbQueryPlan = ""
    public var grdbRowsQueryPlan = ""
    public var peakResidentBytes = 0
    public var seconds = 0.0
    /// One 4 KiB overwrite + fdatasync on the scratch disk.
    public var flush: Timing?
    public init() {}
}

/// One append shape and durability, ViewLog and its raw-LMDB peer; timings are per LMDB write.
public struct AppendResult: Codable, Sendable {
    public var shape: String
    public var durable: Bool
    public var changesPerWrite: Int
    public var transactionsPerWrite: Int
    public var viewlog: Timing
    public var raw: Timing
    public var bytesPerChange: Double
    public var viewlogFileBytes: Int
    public var rawFileBytes: Int

    public init(shape: String, durable: Bool, changesPerWrite: Int, transactionsPerWrite: Int, viewlog: Timing,
                raw: Timing, bytesPerChange: Double, viewlogFileBytes: Int, rawFileBytes: Int) {
        self.shape = shape
        self.durable = durable
        self.changesPerWrite = changesPerWrite
        self.transactionsPerWrite = transactionsPerWrite
        self.viewlog = viewlog
        self.raw = raw
        self.bytesPerChange = bytesPerChange
        self.viewlogFileBytes = viewlogFileBytes
        self.rawFileBytes = rawFileBytes
    }
}

/// One view size: apply alone, end to end against GRDB, initial fetch, memory.
public struct ViewResult: Codable, Sendable {
    public var size: Int
    /// Keyed by ``ViewChangeKind`` raw value.
    public var applyInMemory: [String: Timing]
    public var viewlogEndToEnd: [String: Timing]
    public var grdbEndToEnd: [String: Timing]
    /// The same with no flush on either side (MDB_NOSYNC, synchronous = OFF).
    public var viewlogEndToEndNoSync: [String: Timing]
    public var grdbEndToEndNoSync: [String: Timing]
    /// 4 KiB write + fdatasync just before the durable steps of this size.
    public var flush: Timing?
    public var viewlogFetch: Timing
    public var grdbFetchRecords: Timing
    public var grdbFetchIDs: Timing
    public var heapBytesPerRow: Double
    public var viewlogBuildNs: Double
    public var grdbBuildNs: Double
    public var viewlogStoreBytes: Int

    public init(size: Int, applyInMemory: [String: Timing], viewlogEndToEnd: [String: Timing],
                grdbEndToEnd: [String: Timing], viewlogEndToEndNoSync: [String: Timing],
                grdbEndToEndNoSync: [String: Timing], flush: Timing?, viewlogFetch: Timing, grdbFetchRecords: Timing, grdbFetchIDs: Timing,
                heapBytesPerRow: Double, viewlogBuildNs: Double, grdbBuildNs: Double, viewlogStoreBytes: Int) {
        self.size = size
        self.applyInMemory = applyInMemory
        self.viewlogEndToEnd = viewlogEndToEnd
        self.grdbEndToEnd = grdbEndToEnd
        self.viewlogEndToEndNoSync = viewlogEndToEndNoSync
        self.grdbEndToEndNoSync = grdbEndToEndNoSync
        self.flush = flush
        self.viewlogFetch = viewlogFetch
        self.grdbFetchRecords = grdbFetchRecords
        self.grdbFetchIDs = grdbFetchIDs
        self.heapBytesPerRow = heapBytesPerRow
        self.viewlogBuildNs = viewlogBuildNs
        self.grdbBuildNs = grdbBuildNs
        self.viewlogStoreBytes = viewlogStoreBytes
    }
}

/// Rebuilding a view by replaying a log.
public struct ReplayResult: Codable, Sendable {
    public var changes: Int
    public var rows: Int
    /// The library's path: delta 0 → head, applied to an empty view.
    public var byDelta: Timing
    /// Fold every change into object states, then build the view.
    public var byFold: Timing
    /// Read and decode the log only.
    public var decodeOnly: Timing

    public init(changes: Int, rows: Int, byDelta: Timing, byFold: Timing, decodeOnly: Timing) {
        self.changes = changes
        self.rows = rows
        self.byDelta = byDelta
        self.byFold = byFold
        self.decodeOnly = decodeOnly
    }
}
