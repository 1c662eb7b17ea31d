import CLMDB
import CLMDBGuard
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An LMDB environment: one store directory holding `data.mdb` and `lock.mdb`.
///
/// LMDB allows one environment per path per process; ``open(path:options:)`` enforces it by handing out the
/// environment already open for the same directory — in the same process only: after `fork()` a child gets a
/// new environment of its own (LMDB forbids using an `MDB_env` in a process other than the one that opened it),
/// and a transaction begun on an environment from another process throws. It is opened with `MDB_NOTLS`, so read transactions are
/// not tied to threads, and stale reader slots left by dead processes are cleared on open (`mdb_reader_check`).
///
/// Transactions are scoped closures (``read(_:)``, ``write(_:)``): a transaction never outlives its closure,
/// so no reader is held open by accident (long-lived readers keep LMDB from reusing pages and the file grows
/// without bound). Closures are synchronous: nothing may await while a transaction is open.
///
/// The map grows by itself: when a write fills it (`MDB_MAP_FULL`, which poisons the transaction), the
/// transaction is aborted, the map size doubled with no transaction open in this process, and the whole
/// write closure run again. **A write closure may therefore run more than once**; it must only act through
/// its transaction (or be idempotent). When the map cannot be resized (the address space is exhausted), the
/// environment is unusable and every later transaction throws instead of touching an unmapped file.
///
/// Faults refused on open or before a commit, never served: a `data.mdb` shorter than the pages LMDB's meta
/// page says it uses (truncated) is refused on open; a `lock.mdb` that is no longer the file this environment
/// opened (deleted or replaced while in use, which would let another process take the writer lock beside
/// this one) makes every later write throw before it commits.
public final class LMDBEnvironment: @unchecked Sendable {
    // Safety: `env` is thread-safe under MDB_NOTLS for the calls we make; mutable state is behind `state`, and
    // map resizing waits for every transaction of this process to end (`mapUse`).
    @usableFromInline let env: OpaquePointer
    /// The directory of the environment, resolved (`realpath`).
    public let path: String
    /// The options it was opened with.
    public let options: EnvironmentOptions
    /// The transactions of this process open on the map, and whether the map is being resized:
    /// `mdb_env_set_mapsize` needs no transaction open in this process, so a resize waits for them to end and
    /// transactions wait for it. Transactions do not wait for each other (LMDB's readers run side by side).
    private let mapUse = Locked(MapUse())
    private let state: Locked<State>

    private struct MapUse {
        var transactions = 0
        var resizing = false
    }

    private struct State {
        var mapSize: Int
        var databases: [String: LMDBDatabase] = [:]
        var growCount = 0
        /// Set when the map could not be remapped: the environment must not be used any more.
        var broken: LMDBError?
        /// Fault injection for tests: when set, this environment's next `mdb_env_set_mapsize` fails with it.
        var injectedMapSizeFailure: Int32?
    }
    /// The process that opened the environment (see the fork note in the type's documentation).
    let openerPID: pid_t
    /// Device and inode of `lock.mdb` when it was opened (nil for read-only media without a lock file).
    private let lockFileIdentity: FileIdentity?

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// Fault injection for tests: when set, this environment's next `mdb_env_set_mapsize` fails with this code.
    /// Per environment, so that a test injecting it cannot fail another test's store running beside it.
    var injectedMapSizeFailure: Int32? {
        get { state.withLock { $0.injectedMapSizeFailure } }
        set { state.withLock { $0.injectedMapSizeFailure = newValue } }
    }

    private static let registry = Locked<[String: WeakEnvironment]>([:])

    private struct WeakEnvironment {
        weak var environment: LMDBEnvironment?
    }

    /// Opens (or returns the already open) environment of the directory at `path`, which must exist.
    /// - Throws: ``LMDBError`` naming the path: `ENOENT` for a missing directory, ``LMDBError/invalid`` for a
    ///   file that is not an LMDB environment, ``LMDBError/versionMismatch`` for another LMDB version's file.
    public static func open(path: String, options: EnvironmentOptions = EnvironmentOptions()) throws(LMDBError) -> LMDBEnvironment {
        guard let resolved = realpath(path, nil) else {
            throw LMDBError(code: errno, context: "open \(path)")
        }
        let canonical = String(cString: resolved)
        free(resolved)
        return try registry.withLock { registry throws(LMDBError) -> LMDBEnvironment in
            if let existing = registry[canonical]?.environment, existing.openerPID == getpid() {
                guard existing.options.readOnly == options.readOnly || !existing.options.readOnly else {
                    throw LMDBError(code: EACCES, context: "open \(canonical) for writing: this process has it open read-only")
                }
                return existing
            }
            let environment = try LMDBEnvironment(canonicalPath: canonical, options: options)
            registry[canonical] = WeakEnvironment(environment: environment)
            return environment
        }
    }

    private init(canonicalPath: String, options: EnvironmentOptions) throws(LMDBError) {
        precondition(options.mapSizeBytes > 0 && options.mapSizeBytes <= options.mapSizeBytesMax,
                     "map size must be positive and at most mapSizeBytesMax")
        viewlog_guard_install()
        var handle: OpaquePointer?
        try LMDBError.check(mdb_env_create(&handle), "mdb_env_create")
        guard let handle else { throw LMDBError(code: ENOMEM, context: "mdb_env_create") }
        if !options.readOnly { try Self.reserveLockFile(canonicalPath, mode: mdb_mode_t(options.fileMode)) }
        var flags = UInt32(MDB_NOTLS)
        if !options.durable { flags |= UInt32(MDB_NOSYNC) }
        if options.readOnly { flags |= UInt32(MDB_RDONLY) }
        do {
            try LMDBError.check(mdb_env_set_maxdbs(handle, options.maxDatabases), "mdb_env_set_maxdbs")
            try LMDBError.check(mdb_env_set_mapsize(handle, options.mapSizeBytes), "mdb_env_set_mapsize")
            try LMDBError.check(mdb_env_open(handle, canonicalPath, flags, mdb_mode_t(options.fileMode)),
                                "open LMDB environment \(canonicalPath)")
        } catch {
            mdb_env_close(handle)
            throw error
        }
        var dead: Int32 = 0
        _ = mdb_reader_check(handle, &dead)  // clear reader slots of dead processes
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        do {
            try Self.checkDataFileSize(handle, canonicalPath, lastPage: info.me_last_pgno)
        } catch {
            mdb_env_close(handle)
            throw error
        }
        self.openerPID = getpid()
        self.lockFileIdentity = FileIdentity(path: canonicalPath + "/lock.mdb")
        self.env = handle
        self.path = canonicalPath
        self.options = options
        self.state = Locked(State(mapSize: max(info.me_mapsize, options.mapSizeBytes)))
    }

    deinit {
        // A forked child must not close its parent's environment (LMDB would release the parent's locks).
        if openerPID == getpid() { mdb_env_close(env) }
    }

    /// Bytes reserved for a new `lock.mdb`: what LMDB makes it for its 126 reader slots (its header and
    /// 125 × 64-byte slots, 8,128 bytes, in two pages); a larger file would only give it more slots.
    static let lockFileBytesReserved: Int = 8_192

    /// Makes a missing `lock.mdb` with its blocks allocated (`posix_fallocate`). LMDB sizes the lock file with
    /// `ftruncate` and writes it through a shared map: on a full file system (a tmpfs) the first write to a page
    /// never allocated is a SIGBUS inside `mdb_env_open`; reserved here, a full disk is `ENOSPC` instead.
    /// Quiet when the file cannot be made here (read-only media: LMDB decides) or the file system cannot
    /// reserve blocks.
    private static func reserveLockFile(_ path: String, mode: mdb_mode_t) throws(LMDBError) {
        let lockPath = path + "/lock.mdb"
        let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { return }  // it exists (LMDB sized it before), or it cannot be made here
        let rc = posix_fallocate(fd, 0, off_t(lockFileBytesReserved))
        close(fd)
        if rc == ENOSPC || rc == EDQUOT || rc == EFBIG {
            unlink(lockPath)
            throw LMDBError(code: rc, context: "open LMDB environment \(path): cannot reserve lock.mdb")
        }
    }

    /// Refuses a data file shorter than the pages LMDB's newest meta page says are in use: reading a page
    /// past the end of a mapped file is a SIGBUS, and a commit would write the new pages after a hole.
    private static func checkDataFileSize(_ handle: OpaquePointer, _ path: String, lastPage: Int) throws(LMDBError) {
        var pages = MDB_stat()
        mdb_env_stat(handle, &pages)
        var fd: Int32 = -1
        guard mdb_env_get_fd(handle, &fd) == 0, fd >= 0 else { return }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw LMDBError(code: errno, context: "fstat \(path)/data.mdb") }
        let needed = (lastPage + 1) * Int(pages.ms_psize)
        if Int(st.st_size) < needed {
            throw LMDBError(code: MDB_CORRUPTED, context: "\(path)/data.mdb is truncated: \(st.st_size) bytes, but its meta page uses \(needed) (\(lastPage + 1) pages of \(pages.ms_psize) bytes)")
        }
    }

    /// Throws when `lock.mdb` is no longer the file opened: another process could then hold LMDB's writer
    /// lock at the same time as this one and commit the same seqs.
    private func checkLockFile() throws(LMDBError) {
        guard let opened = lockFileIdentity else { return }
        let lockPath = path + "/lock.mdb"
        guard FileIdentity(path: lockPath) == opened else {
            throw LMDBError(code: ESTALE, context: "\(lockPath) was deleted or replaced while the store was open; refusing to write (other processes may now write beside this one): stop every process using the store, then reopen it")
        }
    }

    /// `mdb_env_set_mapsize`, with the fault injection of the tests. A failure leaves LMDB without a map:
    /// the environment is marked broken.
    private func setMapSize(_ size: Int, _ context: String) throws(LMDBError) {
        var rc = mdb_env_set_mapsize(env, size)
        if let injected = state.withLock({ state in defer { state.injectedMapSizeFailure = nil }; return state.injectedMapSizeFailure }) {
            rc = injected
        }
        if rc != 0 {
            let error = LMDBError(code: rc, context: "\(context) of \(path) (is the address space exhausted, e.g. ulimit -v?); the store must be reopened")
            state.withLock { $0.broken = error }
            throw error
        }
    }

    /// Why this environment cannot be used any more (a failed remap left LMDB without a map), or `nil`.
    public var failure: LMDBError? { state.withLock { $0.broken } }

    /// The current map size in bytes.
    public var mapSizeBytes: Int { state.withLock { $0.mapSize } }

    /// How many times this process grew the map.
    public var mapGrowCount: Int { state.withLock { $0.growCount } }

    /// Opens (creating it if `create`) the named database. Handles are cached: later calls are cheap.
    public func database(named name: String, create: Bool = true) throws(LMDBError) -> LMDBDatabase {
        if let db = state.withLock({ $0.databases[name] }) { return db }
        let open = { (txn: LMDBTransaction) throws -> LMDBDatabase in
            var dbi = MDB_dbi()
            let flags = create && !self.options.readOnly ? UInt32(MDB_CREATE) : 0
            try LMDBError.check(viewlog_guarded_dbi_open(txn.live, name, flags, &dbi), "open database '\(name)'")
            return LMDBDatabase(dbi: dbi, name: name)
        }
        let db: LMDBDatabase
        do {
            // Opening an existing database needs no writer lock: a read transaction that commits keeps the
            // handle (an aborted one would close it).
            db = options.readOnly || !create ? try readCommitting(open) : try write(open)
        } catch let error as LMDBError {
            throw error
        } catch {
            preconditionFailure("unexpected error opening a database: \(error)")
        }
        state.withLock { $0.databases[name] = db }
        return db
    }

    /// Runs `body` in a read-only transaction and ends the transaction when it returns.
    /// Keep it short: an open reader pins pages (see the type's documentation).
    @available(*, noasync, message: "no await may happen while an LMDB transaction is open")
    public func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        enterMap()
        defer { leaveMap() }
        let txn = try begin(readOnly: true)
        defer { txn.abort() }
        return try body(txn)
    }

    /// Runs `body` in a read transaction that is committed (so database handles opened in it stay open).
    private func readCommitting<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        enterMap()
        defer { leaveMap() }
        let txn = try begin(readOnly: true)
        do {
            let result = try body(txn)
            try txn.commit()
            return result
        } catch {
            txn.abort()
            throw error
        }
    }

    /// Runs `body` in a write transaction and commits it when `body` returns; aborts it when `body` throws.
    /// LMDB serializes write transactions, across processes too. On `MDB_MAP_FULL` the map grows and `body`
    /// runs again (see the type's documentation).
    @available(*, noasync, message: "no await may happen while an LMDB transaction is open")
    public func write<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        precondition(!options.readOnly, "write transaction on a read-only environment")
        while true {
            enterMap()
            var needsGrowth = false
            do {
                defer { leaveMap() }
                let txn = try begin(readOnly: false)
                do {
                    let result = try body(txn)
                    guard !txn.hitMapFull else { throw LMDBError(code: MDB_MAP_FULL, context: "write") }
                    try checkLockFile()
                    try txn.commit()
                    return result
                } catch {
                    txn.abort()
                    if txn.hitMapFull || (error as? LMDBError)?.code == MDB_MAP_FULL {
                        needsGrowth = true
                    } else {
                        throw error
                    }
                }
            }
            if needsGrowth { try grow() }
        }
    }

    /// Begins a transaction, adopting a map size grown by another process (`MDB_MAP_RESIZED`).
    private func begin(readOnly: Bool) throws(LMDBError) -> LMDBTransaction {
        guard openerPID == getpid() else {
            throw LMDBError(code: EINVAL, context: "\(path): an LMDB environment opened before fork() cannot be used in the child; open the store again")
        }
        if let broken = state.withLock({ $0.broken }) { throw broken }
        for _ in 0..<8 {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn)
            if rc == MDB_MAP_RESIZED {
                // Another process grew the map; adopt its size. set_mapsize needs no txn open in this
                // process, so leave the map and wait until it is ours alone.
                leaveMap()
                beginResize()
                let adopted = Result { () throws(LMDBError) in try setMapSize(0, "adopt the map size grown by another process") }
                if case .success = adopted {
                    // Only with a map: after a failed remap LMDB's meta pointers point into the unmapped old
                    // map, and mdb_env_info would read them (SIGSEGV; a watcher under `ulimit -v`).
                    var info = MDB_envinfo()
                    mdb_env_info(env, &info)
                    state.withLock { $0.mapSize = info.me_mapsize }
                }
                endResize()
                enterMap()
                try adopted.get()
                continue
            }
            try LMDBError.check(rc, readOnly ? "begin read transaction" : "begin write transaction")
            guard let txn else { throw LMDBError(code: EINVAL, context: "mdb_txn_begin") }
            return LMDBTransaction(handle: txn, readOnly: readOnly)
        }
        throw LMDBError(code: MDB_MAP_RESIZED, context: "begin transaction: the map keeps being resized")
    }

    /// Counts a transaction about to begin, once no resize is under way. A resize still waiting for the count to
    /// drop does not hold it back: this thread may have another transaction open (a database opened inside a
    /// read), which that resize would wait for in turn.
    private func enterMap() {
        mapUse.withLock(when: { !$0.resizing }) { $0.transactions += 1 }
    }

    /// Counts a transaction ended.
    private func leaveMap() {
        mapUse.withLock { $0.transactions -= 1 }
    }

    /// Waits until no transaction of this process is open and no other resize is under way, and claims the map.
    private func beginResize() {
        mapUse.withLock(when: { $0.transactions == 0 && !$0.resizing }) { $0.resizing = true }
    }

    /// Gives the map back to transactions.
    private func endResize() {
        mapUse.withLock { $0.resizing = false }
    }

    /// Doubles the map (up to ``EnvironmentOptions/mapSizeBytesMax``) with no transaction open in this process.
    private func grow() throws(LMDBError) {
        beginResize()
        defer { endResize() }
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        let current = max(info.me_mapsize, state.withLock { $0.mapSize })
        guard current < options.mapSizeBytesMax else {
            throw LMDBError(code: MDB_MAP_FULL, context: "the store reached its maximum size of \(options.mapSizeBytesMax) bytes")
        }
        let next = min(current.multipliedReportingOverflow(by: 2).overflow ? options.mapSizeBytesMax : current * 2,
                       options.mapSizeBytesMax)
        try setMapSize(next, "grow the map to \(next) bytes")
        state.withLock {
            $0.mapSize = next
            $0.growCount += 1
        }
    }

    /// Flushes buffered commits to disk (for environments opened with `durable: false`).
    public func sync() throws(LMDBError) {
        try LMDBError.check(mdb_env_sync(env, 1), "mdb_env_sync \(path)")
    }

    /// Copies the environment into `directory`, which must exist and be empty, as one consistent snapshot: LMDB's
    /// `mdb_env_copy2` reads the last commit through a read transaction of its own, so writers of this and other
    /// processes go on meanwhile and none of their later commits is in the copy. `compact` (`MDB_CP_COMPACT`)
    /// leaves out free pages and renumbers the rest: a smaller file, more CPU.
    ///
    /// The copy is `data.mdb` alone (LMDB makes `lock.mdb` when it is opened), given this environment's
    /// ``EnvironmentOptions/fileMode`` and flushed to disk (`fsync` of the file and of `directory`) before this
    /// returns. Caveats (LMDB's): the copy's read transaction lasts as long as the copy, so pages freed meanwhile
    /// are not reused and busy writers grow the file; the pages are read outside the guard that turns a damaged
    /// page into `MDB_CORRUPTED` (a compacting copy runs a thread of its own, which a jump out of LMDB would
    /// leave waiting), so copy a store that verifies.
    /// - Throws: ``LMDBError`` naming both paths: `EEXIST` when `directory` already holds a `data.mdb`,
    ///   `ENOENT` when it does not exist, `ENOSPC` and `EIO` for a full disk (the partial copy is left in
    ///   `directory` for the caller to remove).
    @available(*, noasync, message: "the copy holds an LMDB read transaction; run it off the concurrency pool")
    public func copy(to directory: String, compact: Bool = false) throws(LMDBError) {
        guard openerPID == getpid() else {
            throw LMDBError(code: EINVAL, context: "\(path): an LMDB environment opened before fork() cannot be used in the child; open the store again")
        }
        let context = "copy \(path) to \(directory)"
        let copyPath = directory + "/data.mdb"
        var copied = false
        for _ in 0..<8 where !copied {
            if let broken = state.withLock({ $0.broken }) { throw broken }
            // The copy's read transaction counts as one of this process's transactions: a resize waits for it.
            enterMap()
            let rc = mdb_env_copy2(env, directory, compact ? UInt32(MDB_CP_COMPACT) : 0)
            leaveMap()
            if rc == MDB_MAP_RESIZED {
                // Another process grew the map: adopt its size (as a transaction's begin does), then copy again
                // into a fresh file (LMDB made the file before its transaction began).
                unlink(copyPath)
                enterMap()
                defer { leaveMap() }
                try begin(readOnly: true).abort()
                continue
            }
            try LMDBError.check(rc, context)
            copied = true
        }
        guard copied else { throw LMDBError(code: MDB_MAP_RESIZED, context: "\(context): the map keeps being resized") }
        guard chmod(copyPath, mode_t(options.fileMode)) == 0 else { throw LMDBError(code: errno, context: "\(context): chmod data.mdb") }
        for file in [copyPath, directory] {
            let fd = Glibc.open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw LMDBError(code: errno, context: "\(context): open \(file) to flush it") }
            let flushed = fsync(fd) == 0 ? 0 : errno
            close(fd)
            if flushed != 0 { throw LMDBError(code: flushed, context: "\(context): fsync \(file)") }
        }
    }

    /// Clears reader slots of dead processes; returns how many were cleared.
    @discardableResult
    public func clearStaleReaders() -> Int {
        var dead: Int32 = 0
        _ = mdb_reader_check(env, &dead)
        return Int(dead)
    }

    /// Bytes LMDB uses in the map: (last page + 1) × page size (0 for an environment left without a map by a
    /// failed remap: LMDB's meta pages are not readable then).
    public var usedBytes: Int {
        guard state.withLock({ $0.broken }) == nil else { return 0 }
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        var stat = MDB_stat()
        mdb_env_stat(env, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// Number of reader slots in use (live read transactions of every process); 0 for an environment left
    /// without a map by a failed remap.
    public var readersInUse: Int {
        guard state.withLock({ $0.broken }) == nil else { return 0 }
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return Int(info.me_numreaders)
    }
}
