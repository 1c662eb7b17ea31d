@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
extension LogStore {
    /// The head as it moves: yields the head when the stream starts, then every new head — immediately for
    /// appends made through any `LogStore` of this process, and as soon as the kernel tells of the write for
    /// appends made by other processes (inotify on Linux; nothing polls, beyond a safety read every 2 s).
    ///
    /// Every stream of a store in a process shares one monitor (a thread asleep in the kernel until a commit),
    /// which stops when the last stream ends. Several appends in quick succession may be reported as one new
    /// head (consumers read the range). The stream keeps only the newest head when its consumer is slow, never
    /// yields an older head than one it yielded, and ends when the consuming task is cancelled.
    /// - Throws (from the stream): ``StoreError/notAStore(path:reason:)`` when the store's `data.mdb` or its
    ///   directory is removed or renamed while it is watched; ``StoreError/storage(_:)`` past 65,536
    ///   streams of one store in the process (`Limits.headSubscribersMax`).
    public func headUpdates() -> AsyncThrowingStream<UInt64, any Error> {
        HeadMonitor.subscribe(self)
    }

    /// Tells this process's head observers of this store that the head is now `head`.
    func notifyHead(_ head: UInt64) {
        HeadMonitor.notify(path: environment.path, head: head)
    }
}
