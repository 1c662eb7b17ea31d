import RawLMDB
@_spi(Engine) import ViewLog

/// How many changes one append carries and how they are grouped.
public enum AppendShape: String, Sendable, Codable, CaseIterable {
    /// One transaction of one change per LMDB write.
    case one = "1 change per transaction"
    /// One transaction of 10,000 changes per LMDB write.
    case batch = "10,000 changes per transaction"
    /// 10,000 one-change transactions in one LMDB write (`append([TransactionRequest])`).
    case manyTransactions = "10,000 one-change transactions per write"

    public var changesPerWrite: Int { self == .one ? 1 : 10_000 }
    public var transactionsPerWrite: Int { self == .manyTransactions ? 10_000 : 1 }
}

/// Inserts of new items, as ViewLog requests and as the raw peer's puts.
public struct AppendPlan {
    /// The requests of each write.
    public var requests: [[TransactionRequest]] = []
    /// The raw peer's puts of each write.
    public var raw: [RawWrite] = []
    /// Key + value bytes written per change (log entry share + object row; meta head excluded).
    public var bytesPerChange: Double = 0

    /// `writes` writes of `shape`, inserting items from `firstID` on, the log starting after `firstSeq - 1`.
    public init(shape: AppendShape, writes: Int, firstID: Int, firstSeq: UInt64) {
        var id = firstID, seq = firstSeq
        var bytes = 0, changes = 0
        let time = Timestamp(milliseconds: 1_790_000_000_000)
        for _ in 0..<writes {
            var txs: [TransactionRequest] = []
            var w = RawWrite(firstSeq: seq)
            let perTx = shape.changesPerWrite / shape.transactionsPerWrite
            var objects: [(key: [UInt8], valueBytes: Int)] = []
            for _ in 0..<shape.transactionsPerWrite {
                var requests: [ChangeRequest] = []
                var logged: [Change] = []
                for _ in 0..<perTx {
                    let values = Workload.values(id, score: Int64(id % 1000))
                    requests.append(.insert(entity: Workload.entityName, id: .int(Int64(id)), values: values))
                    let key = ObjectKey(entity: Workload.entityName, id: .int(Int64(id)))
                    logged.append(.insert(key, values: values))
                    objects.append((ObjectRecordCodec.key(key), ObjectRecordCodec.encode(values: values, seq: seq).count))
                    id += 1
                }
                txs.append(TransactionRequest(author: Workload.author, changes: requests))
                let entry = TransactionCodec.encode(Transaction(seq: seq, time: time, author: Workload.author, changes: logged))
                w.logValueBytes.append(UInt32(entry.count))
                bytes += entry.count + 8
                seq += 1
            }
            objects.sort { $0.key.lexicographicallyPrecedes($1.key) }
            for o in objects {
                w.objectKeys += o.key
                w.objectKeyBytes.append(UInt32(o.key.count))
                w.objectValueBytes.append(UInt32(o.valueBytes))
                bytes += o.key.count + o.valueBytes
                changes += 1
            }
            requests.append(txs)
            raw.append(w)
        }
        bytesPerChange = Double(bytes) / Double(max(changes, 1))
    }
}

/// The puts of one raw write.
public struct RawWrite {
    public var firstSeq: UInt64
    public var logValueBytes: [UInt32] = []
    public var objectKeys: [UInt8] = []
    public var objectKeyBytes: [UInt32] = []
    public var objectValueBytes: [UInt32] = []
}

/// The raw-LMDB peer: an environment shaped like a ViewLog store.
public final class RawStore {
    let handle: OpaquePointer

    public init(path: String, durable: Bool, mapSizeBytes: Int = 1 << 32) {
        guard let h = rawlmdb_create(path, mapSizeBytes, durable ? 1 : 0) else { fatalError("rawlmdb_create \(path)") }
        handle = h
    }

    deinit { rawlmdb_close(handle) }

    /// Does the puts of `w` in one LMDB write.
    public func write(_ w: RawWrite) {
        let rc = w.logValueBytes.withUnsafeBufferPointer { lv in
            w.objectKeys.withUnsafeBufferPointer { k in
                w.objectKeyBytes.withUnsafeBufferPointer { kb in
                    w.objectValueBytes.withUnsafeBufferPointer { vb in
                        rawlmdb_append(handle, w.firstSeq, lv.count, lv.baseAddress, kb.count, k.baseAddress,
                                       kb.baseAddress, vb.baseAddress)
                    }
                }
            }
        }
        precondition(rc == 0, "rawlmdb_append: \(rc)")
    }

    public var usedBytes: Int { rawlmdb_used_bytes(handle) }
}

/// Measures appends of `shape` to a fresh ViewLog store and to a fresh raw-LMDB environment, interleaved in
/// rounds so that both see the same machine load. Returns nanoseconds per write for each.
public func measureAppend(root: String, shape: AppendShape, durable: Bool, writes: Int, rounds: Int = 5)
    -> (viewlog: [Double], raw: [Double], bytesPerChange: Double, viewlogFileBytes: Int, rawFileBytes: Int)
{
    let tag = "\(shape.changesPerWrite)-\(shape.transactionsPerWrite)-\(durable ? "d" : "n")"
    let store: LogStore
    do {
        store = try LogStore.create(at: scratchPath(root, "append-viewlog-\(tag)"), schema: Workload.schema(),
                                    options: StoreOptions(durable: durable, mapSizeBytes: 1 << 30))
    } catch { fatalError("create store: \(error)") }
    let raw = RawStore(path: scratchPath(root, "append-raw-\(tag)"), durable: durable)
    let plan = AppendPlan(shape: shape, writes: writes * rounds + 1, firstID: 1, firstSeq: 1)
    var v: [Double] = [], r: [Double] = []
    // One warm-up write each (creates the trees' first pages).
    do { try store.append(plan.requests[0]) } catch { fatalError("append: \(error)") }
    raw.write(plan.raw[0])
    var next = 1
    for _ in 0..<rounds {
        for i in next..<(next + writes) {
            let requests = plan.requests[i]
            v.append(time { do { try store.append(requests) } catch { fatalError("append: \(error)") } })
        }
        for i in next..<(next + writes) {
            let w = plan.raw[i]
            r.append(time { raw.write(w) })
        }
        next += writes
    }
    return (v, r, plan.bytesPerChange, store.usedBytes, raw.usedBytes)
}
