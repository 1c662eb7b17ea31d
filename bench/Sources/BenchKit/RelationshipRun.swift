#if canImport(Glibc)
import Glibc
#endif
@_spi(Engine) import ViewLog

/// Sizes and repetitions of ``runRelationshipBench``.
public struct RelationshipBenchOptions: Sendable {
    /// Employees of the update → change set comparison (100 departments).
    public var updateSize = 100_000
    /// View sizes of the fan-out (a department of k = 10 … 10,000 employees renamed).
    public var fanOutSizes = [10_000, 100_000, 1_000_000]
    public var fanOutKs = [10, 100, 1_000, 10_000]
    /// Employees of the initial-fetch comparison (100 departments).
    public var fetchSizes = [10_000, 100_000]
    /// The fan-out runs GRDB's observed JOIN beside ViewLog up to this many rows.
    public var fanOutGRDBMax = 100_000
    public var quick = false
    public init() {}
}

/// Runs DESIGN §8's relationship rows, each beside its peer in this process, no sync on both sides: update → change
/// set against GRDB's observed JOIN, the fan-out of a department rename, the initial fetch of a view sorted and
/// filtered through a relationship. Progress and each figure go to `log`.
public func runRelationshipBench(root: String, options o: RelationshipBenchOptions, log: (String) -> Void) -> RelationshipReport {
    var report = RelationshipReport()
    let started = nowNanoseconds()
    func us(_ t: Timing) -> String { String(format1: t.medianNs / 1e3) + " µs" }

    // MARK: 1. Update → change set against GRDB, a change of either side.
    do {
        let n = o.updateSize
        let org = Org(employees: n, fill: max(1, n / 100))
        log("relationships: update → change set, \(n) employees in \(org.departments.count) departments: building both stores")
        let store = makeRelStore(path: scratchPath(root, "rel-update-viewlog"), org: org, durable: false)
        let gpath = scratchPath(root, "rel-update-grdb.sqlite")
        let pool = GRDBRelWorkload.makePool(path: gpath, org: org, durable: false)
        report.grdbPlans["ids"] = grdbQueryPlan(pool, RelWorkload.idsSQL)
        report.grdbPlans["filteredRows"] = grdbQueryPlan(pool, RelWorkload.filteredRowsSQL)
        log("  GRDB plan: \(report.grdbPlans["ids"]!)")
        let grdb = GRDBJoinView(pool: pool, sql: RelWorkload.idsSQL)
        sync()
        for sectioned in [false, true] {
            let view = ViewLogRelationalView(store: store, request: RelWorkload.request(sectioned: sectioned))
            if !sectioned {
                precondition(view.ids == grdb.current, "ViewLog's view and GRDB's JOIN do not hold the same rows in the same order")
                log("  same \(view.ids.count) rows in the same order on both sides")
            }
            for department in [false, true] {
                let rounds = o.quick ? 1 : 4
                let vReps = o.quick ? 5 : (department ? 10 : 50), gReps = o.quick ? 2 : 3
                var vs: [Double] = [], vr: [Double] = [], vc: [Double] = [], rows: [Double] = [], ga: [Double] = [], gd: [Double] = [], gt: [Double] = [], gc: [Double] = []
                let seed: UInt64 = (department ? 21 : 23) + (sectioned ? 100 : 0)
                var vStream = RelChangeStream(seed: seed), gStream = RelChangeStream(seed: seed)
                func next(_ s: inout RelChangeStream) -> RelChange {
                    department ? s.departmentRename(1...org.departments.count) : s.employeeRename(n: n)
                }
                for _ in 0..<rounds {
                    for _ in 0..<vReps {
                        let r = view.step(next(&vStream).request)
                        vs.append(r.total); vr.append(r.refresh); vc.append(r.cpu); rows.append(Double(r.rows))
                    }
                    for _ in 0..<gReps {
                        let r = grdb.step(next(&gStream))
                        ga.append(r.array); gd.append(r.difference); gt.append(r.array + r.difference); gc.append(r.arrayCPU)
                    }
                }
                let row = RelationshipReport.UpdateRow(
                    size: n, departments: org.departments.count, change: department ? "department-name" : "employee-name",
                    sectioned: sectioned, viewlog: Timing(vs), viewlogRefresh: Timing(vr),
                    viewlogRowChanges: rows.reduce(0, +) / Double(rows.count), viewlogCPU: Timing(vc),
                    grdbArray: Timing(ga), grdbDifference: Timing(gd), grdbArrayPlusDifference: Timing(gt), grdbArrayCPU: Timing(gc))
                report.updates.append(row)
                log("  \(row.change)\(sectioned ? ", sectioned" : ""): ViewLog \(us(row.viewlog)) (refresh \(us(row.viewlogRefresh)), CPU \(us(row.viewlogCPU)), "
                    + "\(Int(row.viewlogRowChanges)) row changes); GRDB array \(us(row.grdbArray)), + difference \(us(row.grdbArrayPlusDifference)), array CPU \(us(row.grdbArrayCPU)); "
                    + "\(String(format1: row.grdbArray.medianNs / row.viewlog.medianNs))× / \(String(format1: row.grdbArrayPlusDifference.medianNs / row.viewlog.medianNs))×")
            }
        }
        grdb.close()
        removeTree(root + "/rel-update-viewlog")
        for suffix in ["", "-wal", "-shm"] { removeTree(gpath + suffix) }
    }

    // MARK: 2. Fan-out: a department of k employees renamed in a view of n rows.
    for n in o.fanOutSizes {
        var ks: [Int] = []
        for k in o.fanOutKs where ks.reduce(k, +) <= n { ks.append(k) }
        let org = Org(employees: n, special: ks, fill: 1_000)
        log("relationships: fan-out, view of \(n) rows (\(org.departments.count) departments), k = \(ks): building the store")
        let path = scratchPath(root, "rel-fanout-\(n)")
        var made: LogStore!
        let storeNs = time { made = makeRelStore(path: path, org: org, durable: false) }
        let store: LogStore = made
        made = nil
        var grdb: GRDBJoinView?
        let gpath = scratchPath(root, "rel-fanout-\(n).sqlite")
        if n <= o.fanOutGRDBMax {
            grdb = GRDBJoinView(pool: GRDBRelWorkload.makePool(path: gpath, org: org, durable: false), sql: RelWorkload.idsSQL)
        }
        sync()
        // Memory first: a flat view of the same rows, then the view over key paths, each alone on the heap.
        var flatHeap = 0.0
        do {
            let before = heapBytesInUse()
            let flat = viewLogRelationalFetch(store, ViewLog.FetchRequest(entity: "Employee", sortDescriptors: try! ViewSortDescriptor.parse("name")))
            flatHeap = Double(heapBytesInUse() - before) / Double(n)
            withExtendedLifetime(flat) {}
        }
        let heapBefore = heapBytesInUse()
        var view: ViewLogRelationalView!
        let buildNs = time { view = ViewLogRelationalView(store: store, request: RelWorkload.request()) }
        let relationalHeap = Double(heapBytesInUse() - heapBefore) / Double(n)
        log("  heap kept per row: \(Int(relationalHeap)) bytes (a view of the same rows sorted by name, without key paths: \(Int(flatHeap)))")
        log("  store built in \(String(format1: storeNs / 1e9)) s; the view's initial fetch took \(String(format1: buildNs / 1e9)) s; "
            + "peak resident \(peakResidentBytes() >> 20) MiB")
        var samples: [Int: (total: [Double], refresh: [Double], cpu: [Double])] = [:]
        var grdbSamples: [Int: (array: [Double], difference: [Double], cpu: [Double])] = [:]
        var stream = RelChangeStream(seed: 31), grdbStream = RelChangeStream(seed: 31)
        let rounds = o.quick ? 1 : 5
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(ks.enumerated()) : Array(ks.enumerated()).reversed()
            for (i, k) in order {
                let reps = o.quick ? 2 : (k >= 10_000 ? 2 : 8)
                for _ in 0..<reps {
                    let r = view.step(stream.departmentRename((i + 1)...(i + 1)).request)
                    precondition(r.rows == k, "a rename of a department of \(k) reported \(r.rows) rows")
                    samples[k, default: ([], [], [])].total.append(r.total)
                    samples[k, default: ([], [], [])].refresh.append(r.refresh)
                    samples[k, default: ([], [], [])].cpu.append(r.cpu)
                }
                if let grdb {
                    let r = grdb.step(grdbStream.departmentRename((i + 1)...(i + 1)))
                    grdbSamples[k, default: ([], [], [])].array.append(r.array)
                    grdbSamples[k, default: ([], [], [])].difference.append(r.difference)
                    grdbSamples[k, default: ([], [], [])].cpu.append(r.arrayCPU)
                }
            }
        }
        for k in ks {
            let row = RelationshipReport.FanOutRow(n: n, k: k, viewlog: Timing(samples[k]!.total),
                                                   viewlogRefresh: Timing(samples[k]!.refresh), viewlogCPU: Timing(samples[k]!.cpu), viewlogBuildNs: buildNs,
                                                   viewlogHeapBytesPerRow: relationalHeap, flatHeapBytesPerRow: flatHeap,
                                                   grdbArray: grdbSamples[k].map { Timing($0.array) },
                                                   grdbDifference: grdbSamples[k].map { Timing($0.difference) },
                                                   grdbArrayCPU: grdbSamples[k].map { Timing($0.cpu) })
            report.fanOut.append(row)
            var peer = ""
            if let a = row.grdbArray, let d = row.grdbDifference, let c = row.grdbArrayCPU {
                peer = "; GRDB array \(us(a)) (CPU \(us(c))), difference \(us(d)): \(String(format1: a.medianNs / row.viewlog.medianNs))× / "
                    + "\(String(format1: (a.medianNs + d.medianNs) / row.viewlog.medianNs))×"
            }
            log("  n = \(n), k = \(k): \(us(row.viewlog)) to the change set (refresh \(us(row.viewlogRefresh)), CPU \(us(row.viewlogCPU))), "
                + "\(String(format1: row.viewlog.medianNs / Double(k) / 1e3)) µs per row" + peer)
        }
        view = nil
        grdb?.close()
        for suffix in ["", "-wal", "-shm"] { removeTree(gpath + suffix) }
        removeTree(path)
    }

    // MARK: 3. Initial fetch of a view sorted and filtered through a relationship.
    for n in o.fetchSizes {
        let org = Org(employees: n, fill: max(1, n / 100))
        log("relationships: initial fetch, \(n) employees, \(org.filteredRows) rows pass \(RelWorkload.filter): building both stores")
        let store = makeRelStore(path: scratchPath(root, "rel-fetch-viewlog"), org: org, durable: false)
        let gpath = scratchPath(root, "rel-fetch-grdb.sqlite")
        let pool = GRDBRelWorkload.makePool(path: gpath, org: org, durable: false)
        sync()
        let request = RelWorkload.request(filtered: true)
        let check = viewLogRelationalFetch(store, request)
        let viewIDs = check.snapshot.rowIDs.map { id -> Int64 in if case .int(let v) = id { return v }; fatalError("int ids") }
        precondition(viewIDs == GRDBRelWorkload.fetchIDs(pool, RelWorkload.filteredIdsSQL), "the filtered view and GRDB's JOIN differ")
        let reps = o.quick ? 2 : (n >= 1_000_000 ? 3 : (n >= 100_000 ? 7 : 21))
        var vf: [Double] = [], gr: [Double] = [], gi: [Double] = []
        for _ in 0..<reps {
            vf.append(time { _ = viewLogRelationalFetch(store, request).numberOfRows })
            gr.append(time { _ = grdbFetchJoinRecords(pool).count })
            gi.append(time { _ = GRDBRelWorkload.fetchIDs(pool, RelWorkload.filteredIdsSQL).count })
        }
        let row = RelationshipReport.FetchRow(size: n, rows: viewIDs.count, viewlog: Timing(vf), grdbRecords: Timing(gr), grdbIDs: Timing(gi))
        report.fetch.append(row)
        log("  \(n): ViewLog \(us(row.viewlog)), GRDB records \(us(row.grdbRecords)), GRDB ids \(us(row.grdbIDs)): "
            + "\(String(format1: row.viewlog.medianNs / row.grdbRecords.medianNs))× GRDB's records")
        do { try pool.close() } catch { fatalError("close: \(error)") }
        removeTree(root + "/rel-fetch-viewlog")
        for suffix in ["", "-wal", "-shm"] { removeTree(gpath + suffix) }
    }

    report.peakResidentBytes = peakResidentBytes()
    report.seconds = Double(nowNanoseconds() - started) / 1e9
    return report
}

extension String {
    /// `x` with one decimal, or as an integer from 100 up.
    init(format1 x: Double) {
        if x >= 100 { self = String(Int(x.rounded())); return }
        let tenths = Int((x * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
