import CLMDB
#if canImport(FoundationEssentials)
import FoundationEssentials  // LocalizedError: `localizedDescription` says LMDB's message
#else
import Foundation
#endif

/// An error from LMDB, carrying its result code and LMDB's message, plus what we were doing.
///
/// Codes are matchable like GRDB's `ResultCode`: `catch let e as LMDBError where e.code == LMDBError.mapFull.code`.
/// `MDB_NOTFOUND` is never thrown by this module's lookups: a missing key is `nil`.
public struct LMDBError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// LMDB's result code (or an `errno` value for system errors).
    public let code: Int32
    /// What the wrapper was doing, e.g. `"mdb_env_open /tmp/store"`.
    public let context: String

    /// Makes an error for `code`.
    public init(code: Int32, context: String = "") {
        self.code = code
        self.context = context
    }

    /// LMDB's own text for the code.
    public var message: String { String(cString: mdb_strerror(code)) }

    public var description: String {
        context.isEmpty ? "LMDB error \(code): \(message)" : "\(context): \(message) (LMDB error \(code))"
    }

    /// The ``description``: what `localizedDescription` shows.
    public var errorDescription: String? { description }

    /// Errors are equal when their codes are (the context is for people).
    public static func == (a: LMDBError, b: LMDBError) -> Bool { a.code == b.code }
    public func hash(into h: inout Hasher) { h.combine(code) }

    /// `MDB_KEYEXIST`: the key is present (`.noOverwrite`) or not greater than the last (`.append`).
    public static let keyExists = LMDBError(code: MDB_KEYEXIST)
    /// `MDB_NOTFOUND`: no such key (lookups return `nil` instead of throwing it).
    public static let notFound = LMDBError(code: MDB_NOTFOUND)
    /// `MDB_CORRUPTED`: a page of the file is not what LMDB expects.
    public static let corrupted = LMDBError(code: MDB_CORRUPTED)
    /// `MDB_PANIC`: a fatal error; the environment must be closed.
    public static let panic = LMDBError(code: MDB_PANIC)
    /// `MDB_VERSION_MISMATCH`: the file was written by another LMDB version.
    public static let versionMismatch = LMDBError(code: MDB_VERSION_MISMATCH)
    /// `MDB_INVALID`: the file is not an LMDB file.
    public static let invalid = LMDBError(code: MDB_INVALID)
    /// `MDB_MAP_FULL`: the map is full (the environment grows it and retries the write).
    public static let mapFull = LMDBError(code: MDB_MAP_FULL)
    /// `MDB_DBS_FULL`: more named databases than `maxDatabases`.
    public static let databasesFull = LMDBError(code: MDB_DBS_FULL)
    /// `MDB_READERS_FULL`: every reader slot is taken.
    public static let readersFull = LMDBError(code: MDB_READERS_FULL)
    /// `MDB_TXN_FULL`: the write has too many dirty pages.
    public static let transactionFull = LMDBError(code: MDB_TXN_FULL)
    /// `MDB_MAP_RESIZED`: another process grew the map (adopted on the next transaction).
    public static let mapResized = LMDBError(code: MDB_MAP_RESIZED)
    /// `MDB_BAD_TXN`: the transaction was poisoned by an earlier error.
    public static let badTransaction = LMDBError(code: MDB_BAD_TXN)

    /// Throws an ``LMDBError`` for a non-zero result code.
    @inlinable
    static func check(_ rc: Int32, _ context: @autoclosure () -> String) throws(LMDBError) {
        if rc != 0 { throw LMDBError(code: rc, context: context()) }
    }
}
