import CLMDB

/// A named database of an environment (LMDB's `MDB_dbi`). Valid for the life of its environment.
public struct LMDBDatabase: Sendable, Hashable {
    @usableFromInline let dbi: MDB_dbi
    /// The database's name.
    public let name: String

    init(dbi: MDB_dbi, name: String) {
        self.dbi = dbi
        self.name = name
    }
}

/// Flags of a put.
public struct PutFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Append at the end of the database (`MDB_APPEND`): keys must increase; a key not greater than the last
    /// fails with ``LMDBError/keyExists`` (the transaction stays usable). Fast path for logs.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    /// Fail with ``LMDBError/keyExists`` when the key is present (`MDB_NOOVERWRITE`).
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
}

/// Counts of a database (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Hashable {
    /// Number of entries.
    public var entries: Int
    /// Depth of the B+tree.
    public var depth: Int
    /// Pages: branch, leaf and overflow.
    public var branchPages: Int, leafPages: Int, overflowPages: Int
    /// Page size in bytes.
    public var pageSize: Int

    /// Bytes of the pages the database uses.
    public var bytes: Int { (branchPages + leafPages + overflowPages) * pageSize }
}
