@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The `compaction` metadata record: a compaction under way (``LogStore/compact(_:now:)``), so that one stopped at
/// any moment (a SIGKILL) is finished by the next, and `verify` knows which rows are on their way in or out.
/// Layout: `schema/log-format.md`, "Horizon and compaction".
struct CompactionRecord: Equatable, Sendable {
    /// The record's version byte.
    static let version: UInt8 = 1

    /// Where a compaction is.
    enum Phase: UInt8, Sendable {
        /// Writing the checkpoint at the target (the objects at it), a chunk of rows per write; the horizon is
        /// still the old one.
        case build = 1
        /// The horizon is the target: removing log entries up to it and checkpoint rows below it, a chunk per write.
        case remove = 2
    }

    /// The new horizon.
    var target: UInt64
    var phase: Phase
    /// While building: the object key up to which (inclusive) the checkpoint's rows are written; empty when none is.
    var cursor: [UInt8] = []

    /// The payload: version, target, phase, then the cursor as a length and bytes.
    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 24 + cursor.count)
        w.u8(Self.version)
        w.u64(target)
        w.u8(phase.rawValue)
        w.varint(cursor.count)
        cursor.withUnsafeBytes { w.raw($0) }
        return w.finish()
    }

    init(target: UInt64, phase: Phase, cursor: [UInt8] = []) {
        self.target = target
        self.phase = phase
        self.cursor = cursor
    }

    /// Decodes a payload written by ``encoded()``, every field checked.
    init(decoding payload: UnsafeRawBufferPointer) throws(CodecError) {
        var r = ByteReader(payload)
        let version = try r.u8("compaction record version")
        guard version == Self.version else {
            throw .invalid(field: "compaction record version", offset: 0, reason: "unsupported version \(version)")
        }
        let at = r.offset
        target = try r.u64("compaction target")
        guard target >= 1, target <= UInt64(Int64.max) else {
            throw .invalid(field: "compaction target", offset: at, reason: "\(target) is not a seq")
        }
        let phaseAt = r.offset
        let raw = try r.u8("compaction phase")
        guard let phase = Phase(rawValue: raw) else {
            throw .invalid(field: "compaction phase", offset: phaseAt, reason: "unknown phase \(raw)")
        }
        self.phase = phase
        let n = try r.count("cursor", limit: ObjectRecordCodec.keyBytesMax, bytesEach: 1)
        cursor = Array(try r.bytes(n, "cursor"))
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
    }
}
