@_spi(Replication) @_spi(Engine) import ViewLog

extension Replica {
    /// Starts a replica at `path` from `backup`, a copy of a replica of `stream` (`viewlog backup`, or
    /// `LogStore.backup(to:compact:)`) at position p, and follows the stream from p + 1: the store at `path` is a
    /// copy of the backup (which is left as it is), recorded as reached at `servers`, then caught up.
    ///
    /// Refused with nothing created at `path` when `backup` is not a store, when it is not a replica of `stream`
    /// (the stream its replica record names), when the stream no longer holds p + 1, or when the backup's log is
    /// not a prefix of the stream.
    /// - Returns: the replica, and p, the position the backup held.
    /// - Throws: ``ReplicationError/store(_:)`` (not a store; `path` exists); ``ReplicationError/notAReplica(path:)``;
    ///   ``ReplicationError/streamMismatch(stream:reason:)`` for a replica of another stream;
    ///   ``ReplicationError/compacted(stream:firstSeq:next:)`` for a backup older than the stream's first message;
    ///   ``ReplicationError/noStream(_:)``; ``ReplicationError/diverged(stream:seq:reason:)``; the errors of
    ///   ``sync()``.
    public static func start(at path: String, fromBackup backup: String, servers: [String],
                             stream: String) throws(ReplicationError) -> (replica: Replica, backupPosition: UInt64) {
        try validate(stream: stream)
        let source: LogStore
        let link: ReplicaLink?
        let position: UInt64
        do throws(StoreError) {
            source = try LogStore.open(at: backup, options: StoreOptions(readOnly: true))
            link = try source.replicaLink
            position = try source.head
        } catch {
            throw .store(error)
        }
        guard let link else { throw .notAReplica(path: backup) }
        guard link.stream == stream else {
            throw .streamMismatch(stream: stream, reason: "\(backup) is a backup of a replica of stream \(link.stream), not of \(stream)")
        }
        let connection = try NATSConnection(servers: servers)
        let deadline = Deadline(milliseconds: ReplicationLimits.appendPatienceMilliseconds)
        guard let state = try patiently(stream, until: deadline, { () throws(NATSConnection.CallError) in try connection.streamState(stream) }) else {
            throw .noStream(stream)
        }
        try checkNextHeld(position + 1, streamFirst: state.firstSeq, of: stream)
        do throws(StoreError) { _ = try source.backup(to: path) } catch { throw .store(error) }
        do throws(ReplicationError) {
            let store: LogStore
            do throws(StoreError) {
                store = try LogStore.open(at: path)
                try store.setReplicaLink(ReplicaLink(stream: stream, servers: connection.servers))
            } catch {
                throw .store(error)
            }
            let replica = Replica(store: store, stream: stream, connection: connection, warnings: serverWarnings(connection))
            try replica.sync()
            return (replica, position)
        } catch {
            LogStore.removeCopy(path)
            throw error
        }
    }
}
