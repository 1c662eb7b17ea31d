// Runs every benchmark of DESIGN §8 beside its peer, in this process, and prints one JSON document on
// stdout (progress on stderr). tools/bench-report turns it into bench/RESULTS.md and the plot.
//
//   bench-report [--root DIR] [--sizes 1000,10000,100000,1000000] [--replay-changes 1000000] [--quick]
import BenchKit
import Foundation
@_spi(Engine) import ViewLog

struct Options {
    var root = "/tmp/viewlog-bench"
    var sizes = [1_000, 10_000, 100_000, 1_000_000]
    var replayChanges = 1_000_000
    var quick = false

    init() {
        var args = CommandLine.arguments.dropFirst().makeIterator()
        while let a = args.next() {
            switch a {
            case "--root": root = args.next() ?? root
            case "--sizes": sizes = (args.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--replay-changes": replayChanges = Int(args.next() ?? "") ?? replayChanges
            case "--quick": quick = true
            default: fatalError("unknown argument \(a)")
            }
        }
    }
}

func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

let options = Options()
makeDirectories(options.root)

// `bench-report --profile WHAT`: run one workload, untimed, for perf or callgrind.
if let what = ProcessInfo.processInfo.environment["BENCH_PROFILE"] {
    let n = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_ROWS"] ?? "") ?? 100_000
    let reps = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_REPS"] ?? "") ?? 1_000
    switch what {
    case "fetch", "fetch-whole":
        let store = try LogStore.create(at: scratchPath(options.root, "profile"), schema: Workload.schema(),
                                        options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
        try loadItems(store, Workload.items(n))
        let fetch = what == "fetch" ? viewLogInitialFetch : viewLogInitialFetchOfWholeObjects
        let c0 = processCPUNanoseconds()
        for _ in 0..<reps { _ = fetch(store).numberOfRows }
        log("\(what) \(n) rows: CPU \(Double(processCPUNanoseconds() - c0) / Double(reps * n)) ns per row (mean, user+sys)")
    case "apply":
        let view = InMemoryView(items: Workload.items(n), kind: .sortPosition)
        // Deltas are made ahead in chunks, so that each timed call is `apply` alone; CPU time is the
        // process's user+sys over the timed calls only.
        let chunk = 1_000
        var samples: [ViewChangeKind: [Double]] = [:]
        var cpu: [ViewChangeKind: Double] = [:]
        for round in 0..<max(1, reps / (2 * chunk)) {
            for kind in round % 2 == 0 ? [ViewChangeKind.sortPosition, .membership] : [.membership, .sortPosition] {
                view.kind = kind
                view.prepare(chunk)
                let c0 = processCPUNanoseconds()
                for _ in 0..<chunk { samples[kind, default: []].append(time { view.applyPrepared() }) }
                cpu[kind, default: 0] += Double(processCPUNanoseconds() - c0)
            }
        }
        for kind in [ViewChangeKind.sortPosition, .membership] {
            let s = samples[kind] ?? []
            guard !s.isEmpty else { continue }
            let t = Timing(s)
            log("apply \(kind) \(n) rows: median \(t.medianNs / 1e3) µs, p90 \(t.p90Ns / 1e3) µs wall per apply; "
                + "CPU \(cpu[kind]! / Double(s.count) / 1e3) µs per apply (mean, user+sys)")
        }
    case "append1", "append10k", "append-many":
        let shape: AppendShape = what == "append1" ? .one : what == "append10k" ? .batch : .manyTransactions
        let store = try LogStore.create(at: scratchPath(options.root, "profile"), schema: Workload.schema(),
                                        options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
        let plan = AppendPlan(shape: shape, writes: reps, firstID: 1, firstSeq: 1)
        let c0 = processCPUNanoseconds()
        for r in plan.requests { try store.append(r) }
        let changes = reps * shape.changesPerWrite
        log("\(what) \(changes) changes, no flush: CPU \(Double(processCPUNanoseconds() - c0) / Double(changes)) ns per change (mean, user+sys; the plan's building excluded)")
    case "append-durable":
        // The report's durable 10,000-change row alone: ViewLog and raw LMDB interleaved in rounds.
        let m = measureAppend(root: options.root, shape: .batch, durable: true, writes: reps)
        let v = Timing(m.viewlog), r = Timing(m.raw)
        log("append 10,000 changes per durable write: ViewLog median \(v.medianNs / 1e3) µs, raw \(r.medianNs / 1e3) µs per write; "
            + "\(1e13 / v.medianNs / 1e3) k changes/s, \(100 * r.medianNs / v.medianNs) % of raw")
        removeTree(options.root + "/append-viewlog-10000-1-d")
        removeTree(options.root + "/append-raw-10000-1-d")
    case "append-views":
        // Append throughput with 0, 1 and 3 stored named views (DESIGN §11): 10,000 inserts per durable write.
        // BENCH_PROFILE_DURABLE=0: no flushes (the CPU side alone).
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] != "0"
        let m = measureAppendWithStoredViews(root: options.root, writes: reps, durable: durable)
        let none = Timing(m[0]!).medianNs
        for n in [0, 1, 3] {
            let t = Timing(m[n]!)
            log("append 10,000 changes per \(durable ? "durable " : "")write, \(n) stored views: median \(t.medianNs / 1e3) µs per write, "
                + "\(1e13 / t.medianNs / 1e3) k changes/s, \(100 * none / t.medianNs) % of none")
        }
        // The peer (BENCH_PROFILE_PEER=0 skips it): SQLite inserting the same rows into tables with 0, 1 and 3
        // secondary indexes matching the views.
        if ProcessInfo.processInfo.environment["BENCH_PROFILE_PEER"] != "0" {
            let q = measureSQLiteInsertWithIndexes(root: options.root, writes: reps)
            let qNone = Timing(q[0]!).medianNs
            for n in [0, 1, 3] {
                let t = Timing(q[n]!)
                log("sqlite3 insert 10,000 rows per durable transaction, \(n) secondary indexes: median \(t.medianNs / 1e3) µs per transaction, "
                    + "\(1e13 / t.medianNs / 1e3) k rows/s, \(100 * qNone / t.medianNs) % of none")
            }
        }
        // The raw peer (BENCH_PROFILE_RAW=0 skips it): LMDB in C doing the same puts with ViewLog's view keys, the
        // keys sorted before the puts (as ViewLog puts them) and, for comparison, in insert order.
        if ProcessInfo.processInfo.environment["BENCH_PROFILE_RAW"] != "0" {
            for sorted in [true, false] {
                let r = measureRawLMDBAppendWithIndexes(root: options.root, writes: reps, sorted: sorted, durable: durable)
                let rNone = Timing(r[0]!).medianNs
                for n in [0, 1, 3] {
                    let t = Timing(r[n]!)
                    log("raw LMDB in C, 10,000 inserts per \(durable ? "durable " : "")write, \(n) views' rows \(sorted ? "sorted" : "in insert order"): "
                        + "median \(t.medianNs / 1e3) µs per write, \(1e13 / t.medianNs / 1e3) k rows/s, \(100 * rNone / t.medianNs) % of none")
                }
            }
        }
    case "append-views-pages":
        // What LMDB rewrites per 10,000-insert write with 0, 1 and 3 views' rows: the raw peer's pages from the free
        // list, and the same read from ViewLog stores that took the same writes.
        let m = measureRawLMDBIndexPages(root: options.root, writes: reps)
        for (side, rows) in [("raw LMDB", m.raw), ("ViewLog", m.viewlog)] {
            for p in rows {
                log("\(side), \(p.views) views, \(reps) writes: pages freed (copied on write, all databases) by the last write \(p.freedLastWrite), "
                    + "by the median write \(side == "raw LMDB" ? "\(p.freedPerWrite)" : "–"); views db +\(side == "raw LMDB" ? "\(p.newViewPagesPerWrite)" : "–") "
                    + "pages per write (splits); then \(p.entries) entries on \(p.leafPages) leaves, \(p.branchPages) branches")
            }
        }
    case "append-path-view":
        // A stored named view over a key path (DESIGN §10, §11): what it adds to a department rename and an
        // employee rename, one change per write.
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] != "0"
        let k = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_K"] ?? "") ?? 1_000
        let m = measureStoredPathViewAppend(root: options.root, employees: n, k: k, reps: reps, durable: durable)
        log("\(n) employees, \(durable ? "durable" : "no flush"): a department of \(k) renamed \(m.renameDepartment.without.medianNs / 1e3) µs "
            + "without the stored view, \(m.renameDepartment.with.medianNs / 1e3) µs with it; an employee renamed "
            + "\(m.renameEmployee.without.medianNs / 1e3) µs, \(m.renameEmployee.with.medianNs / 1e3) µs; the department's floor "
            + "changed \(m.moveDepartment.without.medianNs / 1e3) µs, \(m.moveDepartment.with.medianNs / 1e3) µs")
    case "append-aggregate-view":
        // A stored named view over aggregates of a to-many inverse (DESIGN §10, §11): the load, and what it adds to
        // the one-change writes that move a target's state.
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] != "0"
        let m = measureStoredAggregateViewAppend(root: options.root, employees: n, reps: reps, durable: durable)
        log("\(n) employees in departments of 1,000, \(durable ? "durable" : "no flush"): load \(m.load.without / 1e9) s without the "
            + "stored view, \(m.load.with / 1e9) s with it; a salary changed \(m.salary.without.medianNs / 1e3) µs, "
            + "\(m.salary.with.medianNs / 1e3) µs; an employee moved \(m.move.without.medianNs / 1e3) µs, \(m.move.with.medianNs / 1e3) µs; "
            + "an employee renamed \(m.rename.without.medianNs / 1e3) µs, \(m.rename.with.medianNs / 1e3) µs")
    case "open-views":
        // A library controller of a stored named view opened (DESIGN §11), beside GRDB over its index.
        for rows in ProcessInfo.processInfo.environment["BENCH_PROFILE_SIZES"].map({ $0.split(separator: ",").compactMap { Int($0) } }) ?? [n] {
            let m = measureStoredWindowOpen(root: options.root, rows: rows, reps: reps)
            log("open \(rows) rows: window of 20 \(m.window.medianNs / 1e3) µs, GRDB LIMIT 20 \(m.grdbWindow.medianNs / 1e3) µs "
                + "(\(m.window.medianNs / m.grdbWindow.medianNs)×); whole view from stored keys \(m.wholeStored.medianNs / 1e6) ms, "
                + "from the objects \(m.wholeFromObjects.medianNs / 1e6) ms, GRDB's ids \(m.grdbWhole.medianNs / 1e6) ms "
                + "(\(m.wholeStored.medianNs / m.grdbWhole.medianNs)× and \(m.wholeFromObjects.medianNs / m.grdbWhole.medianNs)×)")
        }
    case "e2e":
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] == "1"
        let view = ViewLogLiveView(path: scratchPath(options.root, "profile"), items: Workload.items(n),
                                   durable: durable, kind: .sortPosition)
        var samples: [Double] = []
        for _ in 0..<reps {
            let request = view.nextRequest()
            samples.append(time { view.step(request) })
        }
        log("e2e \(n) rows, durable \(durable): median \(Timing(samples).medianNs / 1e3) µs per step")
    case "grdb":
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] == "1"
        let path = scratchPath(options.root, "profile.sqlite")
        let view = GRDBLiveView(path: path, items: Workload.items(n), durable: durable, kind: .sortPosition)
        var samples: [Double] = []
        for _ in 0..<reps {
            let u = view.nextUpdate()
            samples.append(time { view.step(u) })
        }
        log("grdb \(n) rows, durable \(durable): median \(Timing(samples).medianNs / 1e3) µs per step")
        for suffix in ["", "-wal", "-shm"] { removeTree(path + suffix) }
    case "fetch-grdb":
        // The report's initial-fetch row alone: the same durable stores, ViewLog and GRDB alternated.
        let items = Workload.items(n)
        let live = ViewLogLiveView(path: scratchPath(options.root, "profile"), items: items, durable: true, kind: .membership)
        let path = scratchPath(options.root, "profile.sqlite")
        let grdb = GRDBLiveView(path: path, items: items, durable: true, kind: .membership)
        sync()
        var vf: [Double] = [], gr: [Double] = []
        for _ in 0..<reps {
            vf.append(time { _ = viewLogInitialFetch(live.store).numberOfRows })
            gr.append(time { _ = grdbFetchRecords(grdb.pool).count })
        }
        let v = Timing(vf), g = Timing(gr)
        log("fetch \(n) rows: ViewLog median \(v.medianNs / 1e3) µs, GRDB records \(g.medianNs / 1e3) µs: "
            + "\(v.medianNs / g.medianNs)×")
        for suffix in ["", "-wal", "-shm"] { removeTree(path + suffix) }
    case "append-checkpoints":
        // What building checkpoints costs an append: two stores of the same `n` rows, one that never builds one and
        // one that is always building (a new build starts as the last completes), each append an insert and an
        // update of an older object; the two alternated in rounds of `reps` appends. BENCH_CK_PER_CHANGE and
        // BENCH_CK_PER_WRITE set the building store's rows copied per change and per write (default 2 and 8).
        let durable = ProcessInfo.processInfo.environment["BENCH_PROFILE_DURABLE"] == "1"
        let always = CheckpointPolicy(minimumEntries: 1, entriesPerRow: 0, rowsCopiedPerChange: Int(ProcessInfo.processInfo.environment["BENCH_CK_PER_CHANGE"] ?? "") ?? 2, rowsCopiedPerWrite: Int(ProcessInfo.processInfo.environment["BENCH_CK_PER_WRITE"] ?? "") ?? 8)
        let stores = try [CheckpointPolicy.never, always].enumerated().map { i, policy in
            let store = try LogStore.create(at: scratchPath(options.root, "profile-s\(i)"), schema: Workload.schema(),
                                            options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30, checkpoints: policy))
            try store.append(Workload.items(n).map { .insert(entity: Workload.entityName, id: .int(Int64($0.id)), values: Workload.values($0.id, score: $0.score)) },
                             author: Workload.author)
            return store
        }
        var wall: [[Double]] = [[], []], cpu: [Double] = [0, 0]
        var rng = SystemRandomNumberGenerator()
        var next = n + 1
        for _ in 0..<10 {
            for (i, store) in stores.enumerated() {
                let first = next
                let c0 = processCPUNanoseconds()
                for k in 0..<reps {
                    let id = first + k, old = Int.random(in: 1...n, using: &rng)
                    let changes: [ChangeRequest] = [
                        .insert(entity: Workload.entityName, id: .int(Int64(id)), values: Workload.values(id, score: Int64(id % 1000))),
                        .update(entity: Workload.entityName, id: .int(Int64(old)), values: ["score": .int(Int64(k))]),
                    ]
                    wall[i].append(time { do { try stores[i].append(changes, author: Workload.author) } catch { fatalError("\(error)") } })
                }
                cpu[i] += Double(processCPUNanoseconds() - c0)
                _ = store
            }
            next += reps
        }
        let built = try stores[1].statistics().checkpoints.count
        let t0 = Timing(wall[0]), t1 = Timing(wall[1])
        log("append-checkpoints \(n) rows, durable \(durable), \(10 * reps) appends each: never \(t0.medianNs / 1e3) µs, "
            + "always building \(t1.medianNs / 1e3) µs per append (median wall; \(t1.medianNs / t0.medianNs)×); CPU "
            + "\(cpu[0] / Double(10 * reps) / 1e3) / \(cpu[1] / Double(10 * reps) / 1e3) µs per append (mean); \(built) checkpoints completed")
        for i in 0..<2 { removeTree(options.root + "/profile-s\(i)") }
    case "relationships":
        // DESIGN §8's relationship rows alone, timed (not a profile): JSON on stdout, as the full report.
        // BENCH_REL_UPDATE_SIZE, BENCH_REL_FANOUT, BENCH_REL_FETCH (comma-separated sizes), BENCH_REL_QUICK=1.
        let env = ProcessInfo.processInfo.environment
        func sizes(_ name: String) -> [Int]? { env[name].map { $0.split(separator: ",").compactMap { Int($0) } } }
        var o = RelationshipBenchOptions()
        o.updateSize = Int(env["BENCH_REL_UPDATE_SIZE"] ?? "") ?? o.updateSize
        o.fanOutSizes = sizes("BENCH_REL_FANOUT") ?? o.fanOutSizes
        o.fetchSizes = sizes("BENCH_REL_FETCH") ?? o.fetchSizes
        o.quick = options.quick || env["BENCH_REL_QUICK"] == "1"
        let r = runRelationshipBench(root: options.root, options: o, log: log)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(r), as: UTF8.self))
    case "rel-fetch":
        // The initial fetch of `department.floor > 2` sorted by `department.name, name`, untimed, for perf.
        let org = Org(employees: n, fill: max(1, n / 100))
        let store = makeRelStore(path: scratchPath(options.root, "profile"), org: org, durable: false)
        let request = RelWorkload.request(filtered: true)
        let c0 = processCPUNanoseconds()
        for _ in 0..<reps { _ = viewLogRelationalFetch(store, request).numberOfRows }
        log("rel-fetch \(n) employees: CPU \(Double(processCPUNanoseconds() - c0) / Double(reps * n)) ns per employee (mean, user+sys)")
    case "rel-rename":
        // Renames of a department of BENCH_REL_K employees (default 1,000) in a view of `n` rows, for perf.
        let k = Int(ProcessInfo.processInfo.environment["BENCH_REL_K"] ?? "") ?? 1_000
        let org = Org(employees: n, special: [k], fill: 1_000)
        let store = makeRelStore(path: scratchPath(options.root, "profile"), org: org, durable: false)
        let view = ViewLogRelationalView(store: store, request: RelWorkload.request())
        var stream = RelChangeStream(seed: 5)
        var samples: [Double] = []
        let c0 = processCPUNanoseconds()
        for _ in 0..<reps { samples.append(view.step(stream.departmentRename(1...1).request).total) }
        log("rel-rename k = \(k), \(n) rows: median \(Timing(samples).medianNs / 1e3) µs per rename; "
            + "CPU \(Double(processCPUNanoseconds() - c0) / Double(reps) / 1e3) µs (mean)")
    case "staged-after-delete":
        // A context of `n` employees stages the delete of a department of BENCH_REL_K employees (default 1,000;
        // nullified by its rule), then BENCH_PROFILE_REPS renames of random employees, each timed. With
        // BENCH_PROFILE_BELOW=1 the context sits one transaction below the head.
        let env = ProcessInfo.processInfo.environment
        let k = Int(env["BENCH_REL_K"] ?? "") ?? 1_000
        let below = env["BENCH_PROFILE_BELOW"] == "1"
        let org = Org(employees: n, special: [k], fill: 1_000)
        let l0 = nowNanoseconds()
        let store = makeRelStore(path: scratchPath(options.root, "profile"), org: org, durable: false)
        log("staged-after-delete: loaded \(n) employees in \(Double(nowNanoseconds() - l0) / 1e9) s")
        let m = measureStagedUpdatesAfterDelete(store: store, org: org, department: 1, updates: reps, belowHead: below)
        log("staged-after-delete \(n) employees, k = \(k), \(below ? "one transaction below the head" : "at the head"): "
            + "the delete staged in \(m.delete / 1e6) ms; \(m.updates.samples) updates after it: median \(m.updates.medianNs / 1e3) µs, "
            + "p90 \(m.updates.p90Ns / 1e3) µs, total \(m.updatesTotal / 1e6) ms (CPU \(m.updatesCPU / 1e6) ms); "
            + "\(m.nullified) of the department's \(m.members) employees shown nullified")
    case "fork":
        // `Context.fork()` of a context over `n` objects (one controller over all of them, 100 unsaved updates), beside
        // a one-change append to the same store (DESIGN §14: a fork is O(its changes), not O(n)).
        let l0 = nowNanoseconds()
        let store = try LogStore.create(at: scratchPath(options.root, "profile"), schema: Workload.schema(),
                                        options: StoreOptions(durable: false, mapSizeBytes: 1 << 30))
        try loadItems(store, Workload.items(n))
        log("fork: loaded \(n) items in \(Double(nowNanoseconds() - l0) / 1e9) s")
        let m = measureFork(store: store, staged: 100, forks: reps, appends: reps)
        log("fork of a context over \(m.rows) rows with \(m.staged) unsaved changes: median \(m.fork.medianNs / 1e3) µs, "
            + "p90 \(m.fork.p90Ns / 1e3) µs (CPU \(m.forkCPU / Double(m.fork.samples) / 1e3) µs mean); "
            + "a one-change append, not flushed: median \(m.append.medianNs / 1e3) µs, p90 \(m.append.p90Ns / 1e3) µs; "
            + "fork / append \(m.fork.medianNs / m.append.medianNs)")
    case "replay":
        let store = makeReplayStore(path: scratchPath(options.root, "profile"), items: n / 10, changes: n)
        let c0 = processCPUNanoseconds()
        for _ in 0..<reps { _ = replayViewByDelta(store) }
        log("replay \(n) changes: CPU \(Double(processCPUNanoseconds() - c0) / Double(reps * n)) ns per change (mean, user+sys)")
    default:
        fatalError("unknown profile \(what)")
    }
    removeTree(options.root + "/profile")
    exit(0)
}
let started = Date()
var report = Report()
report.sizes = options.sizes

// MARK: The disk

log("flush: 4 KiB overwrite + fdatasync")
report.flush = measureFlush(path: options.root + "/flush-probe")

// MARK: Append

for durable in [true, false] {
    for shape in AppendShape.allCases {
        let writes: Int
        switch (shape, durable) {
        case (.one, true): writes = options.quick ? 10 : 100
        case (.one, false): writes = options.quick ? 50 : 400
        default: writes = options.quick ? 1 : 2
        }
        log("append: \(shape.rawValue), \(durable ? "durable" : "no sync"), \(writes * 5) writes each")
        let m = measureAppend(root: options.root, shape: shape, durable: durable, writes: writes)
        report.append.append(AppendResult(shape: shape.rawValue, durable: durable, changesPerWrite: shape.changesPerWrite,
                                          transactionsPerWrite: shape.transactionsPerWrite,
                                          viewlog: Timing(m.viewlog), raw: Timing(m.raw),
                                          bytesPerChange: m.bytesPerChange, viewlogFileBytes: m.viewlogFileBytes,
                                          rawFileBytes: m.rawFileBytes))
        removeTree(options.root + "/append-viewlog-\(shape.changesPerWrite)-\(shape.transactionsPerWrite)-\(durable ? "d" : "n")")
        removeTree(options.root + "/append-raw-\(shape.changesPerWrite)-\(shape.transactionsPerWrite)-\(durable ? "d" : "n")")
    }
}

// MARK: Append with stored views

do {
    let writes = options.quick ? 1 : 3
    log("append with 0, 1 and 3 stored views, sqlite3 with 0, 1 and 3 indexes, and raw LMDB with 0, 1 and 3 views' rows: \(writes * 5) durable writes each")
    for (n, t) in measureAppendWithStoredViews(root: options.root, writes: writes) { report.storedViewAppend[String(n)] = Timing(t) }
    for (n, t) in measureSQLiteInsertWithIndexes(root: options.root, writes: writes) { report.sqliteIndexedInsert[String(n)] = Timing(t) }
    for (n, t) in measureRawLMDBAppendWithIndexes(root: options.root, writes: writes) { report.rawIndexedAppend[String(n)] = Timing(t) }
}

// MARK: Views

for n in options.sizes {
    let items = Workload.items(n)
    let big = n >= 1_000_000, large = n >= 100_000

    // Apply alone: rounds of 1,000 changes of each kind, the kinds alternating, so that the samples of both span
    // the same ~0.1 s (2,000 in one block took ~6 ms at 1M rows: one burst of the other tenants' memory traffic
    // moved a whole kind's median by half).
    let applyRounds = options.quick ? 1 : 10, applyChunk = options.quick ? 200 : 1_000
    log("view \(n): apply in memory, \(applyRounds * applyChunk) changes of each kind")
    let memory = InMemoryView(items: items, kind: .membership)
    var applySamples: [ViewChangeKind: [Double]] = [:]
    for round in 0..<applyRounds {
        let kinds = round % 2 == 0 ? ViewChangeKind.allCases : ViewChangeKind.allCases.reversed()
        for kind in kinds {
            memory.kind = kind
            for _ in 0..<applyChunk {
                let d = memory.nextDelta()
                applySamples[kind, default: []].append(time { memory.apply(d) })
            }
        }
    }
    var inMemory: [String: Timing] = [:]
    for kind in ViewChangeKind.allCases { inMemory[kind.rawValue] = Timing(applySamples[kind] ?? []) }

    // Memory of a live view.
    let heapPerRow = viewHeapBytesPerRow(items: items)

    // End to end, same data, same query, same durability: flushed commits on both sides, then no flush on
    // either (MDB_NOSYNC against synchronous = OFF), which shows the software alone whatever the disk does.
    var e2eViewLog: [String: Timing] = [:], e2eGRDB: [String: Timing] = [:]
    var e2eViewLogNoSync: [String: Timing] = [:], e2eGRDBNoSync: [String: Timing] = [:]
    var vf: [Double] = [], gr: [Double] = [], gi: [Double] = []
    var viewlogBuild = 0.0, grdbBuild = 0.0, storeBytes = 0
    var flushAtSize: Timing?
    for durable in [true, false] {
        log("view \(n): building the ViewLog store and the GRDB database (\(durable ? "durable" : "no sync"))")
        var live: ViewLogLiveView!
        var grdb: GRDBLiveView!
        let vb = time { live = ViewLogLiveView(path: scratchPath(options.root, "view-viewlog-\(n)"), items: items,
                                                durable: durable, kind: .membership) }
        let gb = time { grdb = GRDBLiveView(path: scratchPath(options.root, "view-grdb-\(n).sqlite"), items: items,
                                             durable: durable, kind: .membership) }
        if durable { viewlogBuild = vb; grdbBuild = gb; storeBytes = live.store.usedBytes }
        // Let the disk finish writing back the setup before anything is timed.
        sync()
        if report.grdbQueryPlan.isEmpty {
            report.grdbQueryPlan = GRDBWorkload.queryPlan(grdb.pool, GRDBWorkload.idsQuery)
            report.grdbRowsQueryPlan = GRDBWorkload.queryPlan(grdb.pool, GRDBWorkload.rowsQuery)
        }
        if durable {
            // The disk's flush latency right now: durable steps cannot be faster than two of these.
            flushAtSize = measureFlush(path: options.root + "/flush-probe", count: 50)
            // Initial fetch.
            let fetchReps = options.quick ? 2 : (big ? 3 : (large ? 7 : 21))
            log("view \(n): initial fetch, \(fetchReps) each")
            for _ in 0..<fetchReps {
                vf.append(time { _ = viewLogInitialFetch(live.store).numberOfRows })
                gr.append(time { _ = grdbFetchRecords(grdb.pool).count })
                gi.append(time { _ = grdbFetchIDs(grdb.pool).count })
            }
        }
        // One change → change set / fresh array + difference.
        let viewlogReps = options.quick ? 20 : 200
        let grdbReps = options.quick ? 4 : (big ? 8 : (large ? 20 : (n >= 10_000 ? 100 : 200)))
        let rounds = 4
        for kind in ViewChangeKind.allCases {
            log("view \(n): end to end, \(kind.rawValue), \(durable ? "durable" : "no sync"), \(viewlogReps) ViewLog / \(grdbReps) GRDB")
            let liveStream = live!, grdbView = grdb!
            var vs: [Double] = [], gs: [Double] = []
            let seed: UInt64 = kind == .membership ? 11 : 13
            var liveUpdates = UpdateStream(items: items, kind: kind, seed: seed)
            var grdbUpdates = UpdateStream(items: items, kind: kind, seed: seed)
            for _ in 0..<rounds {
                for _ in 0..<(viewlogReps / rounds) {
                    let u = liveUpdates.next()
                    let request = ChangeRequest.update(entity: Workload.entityName, id: .int(Int64(u.id)),
                                                       values: ["score": .int(u.newScore)])
                    vs.append(time { liveStream.step(request) })
                }
                for _ in 0..<max(1, grdbReps / rounds) {
                    let u = grdbUpdates.next()
                    gs.append(time { grdbView.step(u) })
                }
            }
            if durable {
                e2eViewLog[kind.rawValue] = Timing(vs)
                e2eGRDB[kind.rawValue] = Timing(gs)
            } else {
                e2eViewLogNoSync[kind.rawValue] = Timing(vs)
                e2eGRDBNoSync[kind.rawValue] = Timing(gs)
            }
        }
        live = nil
        grdb.close()
        grdb = nil
        removeTree(options.root + "/view-viewlog-\(n)")
        for suffix in ["", "-wal", "-shm"] { removeTree(options.root + "/view-grdb-\(n).sqlite" + suffix) }
    }
    report.views.append(ViewResult(size: n, applyInMemory: inMemory, viewlogEndToEnd: e2eViewLog, grdbEndToEnd: e2eGRDB,
                                   viewlogEndToEndNoSync: e2eViewLogNoSync, grdbEndToEndNoSync: e2eGRDBNoSync,
                                   flush: flushAtSize,
                                   viewlogFetch: Timing(vf), grdbFetchRecords: Timing(gr), grdbFetchIDs: Timing(gi),
                                   heapBytesPerRow: heapPerRow, viewlogBuildNs: viewlogBuild, grdbBuildNs: grdbBuild,
                                   viewlogStoreBytes: storeBytes))
}

// MARK: Replay

do {
    let total = options.quick ? min(options.replayChanges, 100_000) : options.replayChanges
    let items = max(1, total / 10)
    log("replay: building a log of \(total) changes (\(items) inserts, \(total - items) updates)")
    let store = makeReplayStore(path: scratchPath(options.root, "replay"), items: items, changes: total)
    let reps = options.quick ? 1 : 3
    var byDelta: [Double] = [], byFold: [Double] = [], decode: [Double] = []
    var rows = 0
    for _ in 0..<reps {
        log("replay: repetition")
        decode.append(time { precondition(decodeLog(store) == total) })
        byFold.append(time { rows = replayViewByFold(store) })
        byDelta.append(time { precondition(replayViewByDelta(store) == rows) })
    }
    report.replay = ReplayResult(changes: total, rows: rows, byDelta: Timing(byDelta), byFold: Timing(byFold),
                                 decodeOnly: Timing(decode))
    removeTree(options.root + "/replay")
}

report.peakResidentBytes = peakResidentBytes()
report.seconds = Date().timeIntervalSince(started)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
print(String(decoding: try encoder.encode(report), as: UTF8.self))
