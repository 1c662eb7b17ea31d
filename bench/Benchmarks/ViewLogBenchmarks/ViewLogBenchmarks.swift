// The ordo-one suite: `swift package benchmark` (or `--filter 'View apply.*'`). Each benchmark has its peer
// beside it under the same name with `ViewLog` replaced by the peer's name. tools/bench-report runs the
// in-process `bench-report` instead, which times the pairs interleaved and prints ratios; this suite adds the
// metrics that do not depend on timing (mallocs, instructions, peak memory), which CI may gate on.
import Benchmark
import BenchKit
import GRDB
import ViewLog
#if canImport(Glibc)
import Glibc
#endif

/// State a benchmark's setup makes and its iterations use.
final class Box<T> {
    var value: T?
}

/// Where the suite makes its stores: `$VIEWLOG_BENCHMARKS_DIR` (tools/check-apply-allocations gives it a
/// temporary directory that it removes), else /tmp/viewlog-benchmarks.
let root: String = getenv("VIEWLOG_BENCHMARKS_DIR").map { String(cString: $0) } ?? "/tmp/viewlog-benchmarks"

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
    makeDirectories(root)

    // MARK: Append, against raw LMDB in C doing the same puts

    for durable in [true, false] {
        let d = durable ? "durable" : "no sync"
        for shape in [AppendShape.one, .batch] {
            let writes = shape == .one ? 1_000 : 20
            let config = Benchmark.Configuration(maxIterations: writes - 1)
            let state = Box<(store: LogStore, raw: RawStore, plan: AppendPlan, next: Int)>()
            Benchmark("Append/\(shape.rawValue)/\(d)/ViewLog", configuration: config) { benchmark in
                guard var s = state.value else { return }
                for _ in benchmark.scaledIterations {
                    try s.store.append(s.plan.requests[s.next])
                    s.next += 1
                }
                state.value = s
            } setup: {
                let store = try LogStore.create(at: scratchPath(root, "append-viewlog"), schema: Workload.schema(),
                                                options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30))
                state.value = (store, RawStore(path: scratchPath(root, "append-raw"), durable: durable),
                               AppendPlan(shape: shape, writes: writes, firstID: 1, firstSeq: 1), 0)
            } teardown: { state.value = nil }
            Benchmark("Append/\(shape.rawValue)/\(d)/RawLMDB", configuration: config) { benchmark in
                guard var s = state.value else { return }
                for _ in benchmark.scaledIterations {
                    s.raw.write(s.plan.raw[s.next])
                    s.next += 1
                }
                state.value = s
            } setup: {
                let store = try LogStore.create(at: scratchPath(root, "append-viewlog"), schema: Workload.schema(),
                                                options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30))
                state.value = (store, RawStore(path: scratchPath(root, "append-raw"), durable: durable),
                               AppendPlan(shape: shape, writes: writes, firstID: 1, firstSeq: 1), 0)
            } teardown: { state.value = nil }
        }
    }

    // MARK: One change applied to a live view (in memory: after it is read from the log)

    let sizes = [1_000, 10_000, 100_000, 1_000_000]
    let applyIterations = 10_000
    // What a sample costs with nothing in it: the suite's own mallocs per sample (its bookkeeping), which
    // tools/check-apply-allocations subtracts from `View apply`'s.
    Benchmark("View apply/baseline/ViewLog", configuration: .init(maxIterations: applyIterations)) { benchmark in
        for i in benchmark.scaledIterations { blackHole(i) }
    }
    for n in sizes {
        for kind in ViewChangeKind.allCases {
            let state = Box<InMemoryView>()
            // The deltas are made in setup, so that a sample is `apply` alone: its `Malloc (total)` is what one
            // change costs the view, which CI gates (tools/check-apply-allocations).
            Benchmark("View apply/\(kind.rawValue)/\(n) rows/ViewLog",
                      configuration: .init(maxIterations: applyIterations)) { benchmark in
                guard let view = state.value else { return }
                for _ in benchmark.scaledIterations { view.applyPrepared() }
            } setup: {
                let view = InMemoryView(items: Workload.items(n), kind: kind)
                view.prepare(applyIterations + 10)
                state.value = view
            } teardown: { state.value = nil }
        }
    }

    // MARK: One change, end to end: append → delta → apply, against GRDB commit → ValueObservation → difference

    for n in sizes {
        for kind in ViewChangeKind.allCases {
            let live = Box<ViewLogLiveView>()
            Benchmark("View change end to end/\(kind.rawValue)/\(n) rows/ViewLog",
                      configuration: .init(maxIterations: 500)) { benchmark in
                guard let view = live.value else { return }
                for _ in benchmark.scaledIterations {
                    let request = view.nextRequest()
                    benchmark.startMeasurement()
                    view.step(request)
                    benchmark.stopMeasurement()
                }
            } setup: {
                live.value = ViewLogLiveView(path: scratchPath(root, "view-viewlog"), items: Workload.items(n),
                                             durable: true, kind: kind)
            } teardown: { live.value = nil }
            let grdb = Box<GRDBLiveView>()
            Benchmark("View change end to end/\(kind.rawValue)/\(n) rows/GRDB",
                      configuration: .init(maxDuration: .seconds(n >= 1_000_000 ? 2 : 3),
                                           maxIterations: n >= 100_000 ? 20 : 200)) { benchmark in
                guard let view = grdb.value else { return }
                for _ in benchmark.scaledIterations {
                    let update = view.nextUpdate()
                    benchmark.startMeasurement()
                    view.step(update)
                    benchmark.stopMeasurement()
                }
            } setup: {
                let path = scratchPath(root, "view-grdb.sqlite")
                for suffix in ["-wal", "-shm"] { removeTree(path + suffix) }
                grdb.value = GRDBLiveView(path: path, items: Workload.items(n), durable: true, kind: kind)
            } teardown: { grdb.value = nil }
        }
    }

    // MARK: Initial fetch, against GRDB fetching the same rows in the same order

    for n in [10_000, 1_000_000] {
        let store = Box<LogStore>()
        Benchmark("Initial fetch/\(n) rows/ViewLog", configuration: .init(maxIterations: 50)) { benchmark in
            guard let s = store.value else { return }
            for _ in benchmark.scaledIterations { blackHole(viewLogInitialFetch(s)) }
        } setup: {
            let s = try LogStore.create(at: scratchPath(root, "fetch-viewlog"), schema: Workload.schema(),
                                        options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
            try loadItems(s, Workload.items(n))
            store.value = s
        } teardown: { store.value = nil }
        let pool = Box<DatabasePool>()
        Benchmark("Initial fetch/\(n) rows/GRDB", configuration: .init(maxIterations: 50)) { benchmark in
            guard let p = pool.value else { return }
            for _ in benchmark.scaledIterations { blackHole(grdbFetchRecords(p)) }
        } setup: {
            let path = scratchPath(root, "fetch-grdb.sqlite")
            for suffix in ["-wal", "-shm"] { removeTree(path + suffix) }
            pool.value = GRDBWorkload.makePool(path: path, items: Workload.items(n), durable: false)
        } teardown: { pool.value = nil }
    }

    // MARK: Replay a 1,000,000-change log into a view

    let replayStore = Box<LogStore>()
    Benchmark("Replay/1000000 changes/ViewLog",
              configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 3)) { benchmark in
        guard let s = replayStore.value else { return }
        for _ in benchmark.scaledIterations { blackHole(replayViewByDelta(s)) }
    } setup: {
        replayStore.value = makeReplayStore(path: scratchPath(root, "replay"), items: 100_000, changes: 1_000_000)
    } teardown: { replayStore.value = nil }

    // MARK: Memory of a live view: mallocs and peak resident memory while building one of n rows

    for n in [10_000, 1_000_000] {
        let objects = Box<[(ObjectID, ObjectValues)]>()
        Benchmark("View build/\(n) rows/ViewLog",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResidentDelta],
                                       maxIterations: 10)) { benchmark in
            guard let o = objects.value else { return }
            for _ in benchmark.scaledIterations {
                blackHole(try ResultsController(fetchRequest: Workload.fetchRequest(), entity: Workload.entity(),
                                                objects: o, position: 1))
            }
        } setup: {
            objects.value = Workload.objects(n)
        } teardown: { objects.value = nil }
    }
}
