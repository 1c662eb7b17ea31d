@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A copy of a store made by ``LogStore/backup(to:compact:)``.
public struct StoreBackup: Sendable, Hashable {
    /// The copy's directory.
    public var path: String
    /// The position the copy holds: its head, the last transaction committed when the copy's snapshot was taken.
    public var position: UInt64
    /// The size of the copy's data file (`data.mdb`) in bytes.
    public var bytes: Int
}

extension LogStore {
    /// Copies the store into a new store at `path`, consistent at one position, while this and other processes
    /// go on appending (DESIGN §13, "Backup"): LMDB's copy of one read snapshot (`LMDBEnvironment.copy(to:compact:)`),
    /// so the copy holds every transaction up to the last one committed when it began, with the objects, stored
    /// views and checkpoints of that position, and none after it. The copy is a store like any other: it passes
    /// ``verify(progress:)``, opens, appends (a copy of a replica is a replica of the same stream). `compact`
    /// leaves out free pages (a smaller file, more CPU).
    ///
    /// The copy is made in a temporary sibling directory, flushed to disk and renamed into place: an error leaves
    /// nothing at `path`. Works on a store opened read-only. The copy's read transaction lasts as long as the copy
    /// (pages freed meanwhile are not reused, so busy writers grow the file); copy a store that verifies (LMDB
    /// reads its pages for the copy outside the guard that turns a damaged page into an error).
    /// - Returns: where the copy is, the position it holds and its size.
    /// - Throws: ``StoreError/alreadyExists(path:)`` when `path` exists (nothing is written);
    ///   ``StoreError/storage(_:)`` when the copy cannot be written (a full disk, no such parent directory).
    public func backup(to path: String, compact: Bool = false) throws(StoreError) -> StoreBackup {
        var st = stat()
        if stat(path, &st) == 0 { throw .alreadyExists(path: path) }
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        var template = Array((trimmed + ".viewlog-backup-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .storage("cannot create directory \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = String(cString: made)
        let backup: StoreBackup
        do throws(StoreError) {
            do {
                try environment.copy(to: temporary, compact: compact)
            } catch where [ENOSPC, EIO, EFBIG, EDQUOT].contains(error.code) {
                throw StoreError.storage("cannot write the backup \(path) (\(error.message)): is the disk full, or a file size limit reached?")
            } catch {
                throw StoreError.storage("cannot back up \(self.path) to \(path): \(error.description)")
            }
            backup = try Self.describeCopy(at: temporary, path: trimmed)
        } catch {
            Self.removeCopy(temporary)
            throw error
        }
        guard rename(temporary, trimmed) == 0 else {
            let code = errno
            Self.removeCopy(temporary)
            if code == ENOTEMPTY || code == EEXIST { throw .alreadyExists(path: path) }
            throw .storage("cannot create \(path): \(String(cString: strerror(code)))")
        }
        Self.flushDirectory(containing: trimmed)
        return backup
    }

    /// Opens the copy at `temporary` read-only (closed again when this returns, before it is renamed) and reads the
    /// position it holds and its size; `path` is where it will be.
    private static func describeCopy(at temporary: String, path: String) throws(StoreError) -> StoreBackup {
        let copy = try LogStore.open(at: temporary, options: StoreOptions(readOnly: true))
        let position = try copy.head
        var st = stat()
        guard stat(temporary + "/data.mdb", &st) == 0 else {
            throw .storage("cannot read the size of \(temporary)/data.mdb: \(String(cString: strerror(errno)))")
        }
        return StoreBackup(path: path, position: position, bytes: Int(st.st_size))
    }

    /// Removes a copy that did not become a backup (or a store made from one that did not become a replica).
    package static func removeCopy(_ directory: String) {
        for file in ["data.mdb", "lock.mdb"] { unlink(directory + "/" + file) }
        rmdir(directory)
    }

    /// Flushes the directory that holds `path` (its new entry), best effort: the copy itself is already on disk.
    private static func flushDirectory(containing path: String) {
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = Glibc.open(parent, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
