// Usage: replication-bench --nats URLS --replicas N --label TEXT [--appends N] [--lag N] --dir DIR
// Prints one JSON line: append latency percentiles (µs), appends/s, and replica lag percentiles (µs).
import Foundation
@_spi(Replication) import ViewLog
import ViewLogReplication

func argument(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

let servers = (argument("--nats") ?? "nats://127.0.0.1:4222").split(separator: ",").map(String.init)
let replicas = Int(argument("--replicas") ?? "1") ?? 1
let label = argument("--label") ?? "\(replicas)-node"
let appends = Int(argument("--appends") ?? "1000") ?? 1000
let lagSamples = Int(argument("--lag") ?? "300") ?? 300
let dir = argument("--dir") ?? NSTemporaryDirectory()

let schema = try Schema(jsonText: """
    {"entities": {"Employee": {"id": "string", "attributes": {
       "name": {"type": "string"}, "height": {"type": "int", "optional": true}, "sectionName": {"type": "string", "default": ""}}}},
     "views": {"tall": {"entity": "Employee", "where": "height > 170", "sort": "name"}}}
    """)

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}
func insert(_ id: String, _ height: Int64) -> TransactionRequest {
    TransactionRequest(author: "bench", changes: [.insert(entity: "Employee", id: .string(id),
        values: ["name": .string(id), "height": .int(height)])])
}

let stream = "bench\(getpid())"
let a = try Replica.create(at: dir + "/a", schema: schema, servers: servers, stream: stream, replicas: replicas)
let b = try Replica.join(at: dir + "/b", servers: servers.reversed(), stream: stream)

// 1. Append latency and throughput: one single-change durable transaction at a time (LMDB flushes per commit,
//    the stream's file store acknowledges after its RAFT quorum when clustered).
for i in 0..<50 { try a.append([insert("w\(i)", 100)]) }  // warm-up
var latencies: [UInt64] = []
let start = now()
for i in 0..<appends {
    let t0 = now()
    try a.append([insert("x\(i)", 100)])
    latencies.append(now() - t0)
}
let elapsed = Double(now() - start) / 1e9
latencies.sort()

// 1b. Where an append's time goes: the stream-info round trip of the catch-up, the validation (an LMDB write
//     rolled back), and a durable local LMDB append of the same size on a plain store.
func median(_ body: () throws -> Void) rethrows -> Double {
    var t: [UInt64] = []
    for _ in 0..<200 { let t0 = now(); try body(); t.append(now() - t0) }
    return percentile(t.sorted(), 0.5)
}
let infoMicroseconds = try median { _ = try a.state() }
let prepareMicroseconds = try median { _ = try a.store.prepareEncoded(insert("p", 100)) }
let plain = try LogStore.create(at: dir + "/plain", schema: schema)
var n = 0
let localMicroseconds = try median { n += 1; try plain.append([insert("q\(n)", 100)]) }

// 2. Replica lag: A commits an insert that enters B's view "tall"; B follows the stream, its context merges
//    automatically, and the lag is the time from A's append returning to B's controller delivering the batch.
try b.sync()
let lags: [UInt64] = try await Task { @MainActor in
    let context = try Context(store: b.store, name: "ui")
    let controller = try context.makeResultsController(view: "tall")
    var events = controller.changes.makeAsyncIterator()
    let merging = Task { @MainActor in try await context.mergeChangesAutomatically() }
    let following = Task.detached { for try await _ in b.follow() {} }
    defer { merging.cancel(); following.cancel() }
    var out: [UInt64] = []
    for i in 0..<lagSamples {
        let id = "l\(i)"
        let writer = Task.detached { () throws -> UInt64 in try a.append([insert(id, 180)]); return now() }
        let committed = try await writer.value
        var delivered: UInt64 = 0
        while delivered == 0 {
            guard let event = await events.next() else { break }
            if case .changes(let c) = event, c.rowChanges.contains(where: { $0.id == .string(id) }) { delivered = now() }
        }
        out.append(delivered > committed ? delivered - committed : 0)
    }
    return out.sorted()
}.value

let json = """
{"label": "\(label)", "replicas": \(replicas), "appends": \(appends), "appendsPerSecond": \(Int(Double(appends) / elapsed)), \
"appendMicroseconds": {"p50": \(percentile(latencies, 0.5)), "p90": \(percentile(latencies, 0.9)), "p99": \(percentile(latencies, 0.99))}, \
"streamInfoMicrosecondsP50": \(infoMicroseconds), "validateMicrosecondsP50": \(prepareMicroseconds), \
"localDurableAppendMicrosecondsP50": \(localMicroseconds), "lagSamples": \(lagSamples), "lagMicroseconds": {"p50": \(percentile(lags, 0.5)), "p90": \(percentile(lags, 0.9)), "p99": \(percentile(lags, 0.99))}}
"""
print(json)
