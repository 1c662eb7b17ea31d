@_spi(Engine) import ViewLog

/// What ``measureFork(store:staged:forks:appends:)`` measured, in nanoseconds.
public struct ForkResult: Sendable {
    /// Each `Context.fork()` of a context holding a results controller over every object and `staged` unsaved updates.
    public var fork: Timing
    /// The peer: each one-change `append` (an update of one object) to the same store, not flushed.
    public var append: Timing
    /// The process's CPU time over the forks (user + sys).
    public var forkCPU: Double
    /// Rows the context's controller shows; unsaved changes the forked context holds.
    public var rows: Int
    public var staged: Int
}

/// Forks, `forks` times, a context on `store` (every object of the workload's entity in one results controller, and
/// `staged` unsaved updates shown to it), each fork timed alone and dropped; then `appends` one-change appends beside
/// it, each timed alone. DESIGN §14: a fork costs O(its changes), never O(the store), so its time should not grow
/// with the store.
public func measureFork(store: LogStore, staged: Int, forks: Int, appends: Int) -> ForkResult {
    do {
        let context = try Context(store: store, name: "bench")
        let controller = try context.makeResultsController(Workload.fetchRequest())
        for i in 1...staged {
            try context.update(Workload.entityName, id: .int(Int64(i)), values: ["name": .string("staged-\(i)")])
        }
        try context.processPendingChanges()
        var forkSamples: [Double] = []
        forkSamples.reserveCapacity(forks)
        let c0 = processCPUNanoseconds()
        for _ in 0..<forks {
            var child: Context?
            forkSamples.append(try time { child = try context.fork() })
            precondition(child?.hasChanges == true, "the fork lost the parent's unsaved changes")
        }
        let cpu = Double(processCPUNanoseconds() - c0)
        var appendSamples: [Double] = []
        appendSamples.reserveCapacity(appends)
        for i in 0..<appends {
            let request = ChangeRequest.update(entity: Workload.entityName, id: .int(Int64(i % staged + staged + 1)),
                                               values: ["name": .string("appended-\(i)")])
            appendSamples.append(try time { _ = try store.append([request], author: Workload.author) })
        }
        return ForkResult(fork: Timing(forkSamples), append: Timing(appendSamples), forkCPU: cpu,
                          rows: controller.numberOfRows, staged: staged)
    } catch { fatalError("fork: \(error)") }
}
