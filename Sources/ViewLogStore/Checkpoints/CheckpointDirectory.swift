@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// What the `checkpoints` database holds, in its first record: the complete checkpoints, and the one being built.
///
/// A checkpoint at seq C is a copy of every object row as it was at C, so that a state at an older position can be
/// folded from the nearest checkpoint instead of from the empty store or the head. Appends build it a few rows at a
/// time (``LogStore`` `+CheckpointWriter`), so no single write pays for the whole copy. Layout:
/// `schema/log-format.md`, "Checkpoints".
struct CheckpointDirectory: Equatable, Sendable {
    /// The record's version byte.
    static let version: UInt8 = 1
    /// The directory's key: 8 zero bytes, below every checkpoint row's key (whose first 8 bytes are a seq ≥ 1).
    package static let key = [UInt8](repeating: 0, count: 8)
    /// Most checkpoints a directory lists. Checkpoints are at least ``CheckpointPolicy/minimumEntries`` apart, so
    /// this is reached only by a log of over 2³⁶ entries at the default policy.
    static let checkpointsMax = 1 << 20

    /// The complete checkpoints, oldest first: each seq's rows are the whole state at that seq.
    var complete: [UInt64] = []
    /// The seq of the checkpoint being built, or `nil` when none is.
    var building: UInt64?
    /// While building: the object key up to which (inclusive) the rows have been copied; empty when none has.
    var cursor: [UInt8] = []
    /// While building: the head after the last write that kept the checkpoint up to date. A write by code that does
    /// not keep checkpoints (an older ViewLog) leaves it behind the head, and the build is then dropped: its rows
    /// would miss that write's before-images.
    var maintained: UInt64 = 0

    /// The payload: version, `maintained`, `building` (0: none), the cursor as a length and bytes, then the count
    /// and seqs of the complete checkpoints.
    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 32 + cursor.count + complete.count * 8)
        w.u8(Self.version)
        w.u64(maintained)
        w.u64(building ?? 0)
        w.varint(cursor.count)
        cursor.withUnsafeBytes { w.raw($0) }
        w.varint(complete.count)
        for seq in complete { w.u64(seq) }
        return w.finish()
    }

    /// Decodes a payload written by ``encoded()``: every field checked (seqs in 1 … 2⁶³−1, complete seqs strictly
    /// increasing and below the one being built, a cursor only while building, no trailing bytes).
    init(decoding payload: UnsafeRawBufferPointer) throws(CodecError) {
        var r = ByteReader(payload)
        let version = try r.u8("checkpoint directory version")
        guard version == Self.version else {
            throw .invalid(field: "checkpoint directory version", offset: 0, reason: "unsupported version \(version)")
        }
        maintained = try r.u64("maintained head")
        let start = r.offset
        let building = try r.u64("checkpoint being built")
        guard building <= UInt64(Int64.max) else {
            throw .invalid(field: "checkpoint being built", offset: start, reason: "\(building) is not a seq")
        }
        self.building = building == 0 ? nil : building
        let cursorStart = r.offset
        let n = try r.count("cursor", limit: ObjectRecordCodec.keyBytesMax, bytesEach: 1)
        cursor = Array(try r.bytes(n, "cursor"))
        guard cursor.isEmpty || self.building != nil else {
            throw .invalid(field: "cursor", offset: cursorStart, reason: "a cursor without a checkpoint being built")
        }
        let count = try r.count("complete checkpoints", limit: Self.checkpointsMax, bytesEach: 8)
        complete.reserveCapacity(count)
        for _ in 0..<count {
            let at = r.offset
            let seq = try r.u64("complete checkpoint")
            guard seq >= 1, seq <= UInt64(Int64.max), seq > (complete.last ?? 0), seq < (self.building ?? .max) else {
                throw .invalid(field: "complete checkpoint", offset: at,
                               reason: "\(seq) is not a seq above the one before it and below the one being built")
            }
            complete.append(seq)
        }
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
    }

    init() {}

    /// The seq of the newest checkpoint, complete or being built (0 when there is none): the next is due a
    /// checkpoint interval after it.
    var newest: UInt64 { building ?? complete.last ?? 0 }

    /// The nearest complete checkpoints around `position`: the newest at or below it and the oldest at or above it.
    func bases(around position: UInt64) -> (below: UInt64?, above: UInt64?) {
        // Binary search: the first checkpoint above `position`.
        var lo = 0, hi = complete.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if complete[mid] <= position { lo = mid + 1 } else { hi = mid }
        }
        let below = lo > 0 ? complete[lo - 1] : nil
        if below == position { return (below, below) }
        return (below, lo < complete.count ? complete[lo] : nil)
    }
}
