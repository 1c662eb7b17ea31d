@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The binary form of a log entry (one ``Transaction``), version ``formatVersion``; byte layout in
/// `schema/log-format.md`.
///
/// An entry is a 32-byte header — magic `VLTX`, format version, flags, total length, CRC-32C of everything after
/// the checksum field, seq, time — then the author and the changes. Encoding is deterministic: equal
/// transactions give equal bytes (attribute names are written in code-point order). Decoding is total: any
/// bytes give a transaction or a ``CodecError``, never a trap; lengths and counts are checked against the bytes
/// that remain and against ``Limits`` before anything is allocated.
@_spi(Engine) public enum TransactionCodec {
    /// The version of the format this build writes and reads.
    public static let formatVersion: UInt16 = CodecError.formatVersionRead

    /// The four bytes every entry starts with: `VLTX`.
    public static let magic: [UInt8] = [0x56, 0x4C, 0x54, 0x58]

    /// Bytes of the fixed header: magic, version, flags, length, checksum, seq, time.
    public static let headerBytes = 32

    /// Offset of the length field (`UInt32`, little-endian).
    static let lengthOffset = 8
    /// Offset of the CRC-32C field (`UInt32`, little-endian); the checksum covers every byte after it.
    static let checksumOffset = 12
    /// Offset of the seq field, the first byte the checksum covers.
    static let seqOffset = 16

    /// Change kinds.
    enum Kind {
        package static let insert: UInt8 = 1
        package static let update: UInt8 = 2
        static let delete: UInt8 = 3
        static let schema: UInt8 = 4
        static let migration: UInt8 = 5
    }

    /// Encodes `t` as one log entry.
    ///
    /// - Precondition: `t` is a transaction the store may log: seq in `1...Int64.max`, 1…
    ///   ``Limits/transactionChangesMax`` changes, names of 1…``Limits/nameBytesMax`` bytes, string ids of at most
    ///   ``Limits/idBytesMax`` bytes, strings of at most ``Limits/stringBytesMax`` bytes, at most
    ///   ``Limits/attributesMax`` attributes per change, updates whose `previous` has the keys of `values`, and
    ///   at most ``Limits/transactionBytesMax`` bytes in all. The store checks these before it encodes; a
    ///   violation is a programmer error and traps rather than writing an entry that could not be read back.
    public static func encode(_ t: Transaction) -> [UInt8] {
        var entry = EntryWriter(capacity: headerBytes + 8 + t.author.utf8.count + t.changes.count * 96)
        entry.begin(seq: t.seq, time: t.time, author: t.author, changeCount: t.changes.count, reverts: t.reverts)
        for change in t.changes { entry.append(change) }
        _ = entry.end()
        return entry.finish()
    }

    /// Decodes one log entry, checking in order: magic, version, flags, length, checksum, seq, then the body.
    ///
    /// - Parameters:
    ///   - bytes: exactly one entry (as LMDB returns the value of one `log` record).
    ///   - expectedSeq: the seq the entry must hold (the log's key for it), or `nil` to accept any. It is also the
    ///     seq a ``CodecError/checksumMismatch(seq:stored:computed:)`` names.
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    public static func decode(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64?) throws(CodecError) -> Transaction {
        var (r, seq, time, flags) = try checkedHeader(bytes, expectedSeq: expectedSeq)
        let author = try r.string("author", limit: Limits.stringBytesMax)
        let reverts = try Self.reverts(&r, flags: flags, seq: seq)
        let count = try changeCount(&r)
        var changes: [Change] = []
        changes.reserveCapacity(count)
        for _ in 0..<count { changes.append(try decodeChange(&r)) }
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
        return Transaction(seq: seq, time: time, author: author, changes: changes, reverts: reverts)
    }

    /// The flag bits of an entry's header.
    enum Flag {
        /// The entry lists the transactions it reverts (DESIGN §14) after its author.
        static let reverts: UInt16 = 1
        static let all: UInt16 = reverts
    }

    /// Reads the list of reverted seqs that follows the author when `flags` has ``Flag/reverts`` (empty otherwise):
    /// `varint` n (1 … ``Limits/revertsMax``), then n × `u64`, strictly descending, each in `1 ..< seq`.
    static func reverts(_ r: inout ByteReader, flags: UInt16, seq: UInt64) throws(CodecError) -> [UInt64] {
        guard flags & Flag.reverts != 0 else { return [] }
        let at = r.offset
        let n = try r.count("reverts count", limit: Limits.revertsMax, bytesEach: 8)
        guard n >= 1 else { throw .invalid(field: "reverts count", offset: at, reason: "the reverts flag with no seqs") }
        var out: [UInt64] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            let o = r.offset
            let s = try r.u64("reverted seq")
            guard s >= 1, s < seq, out.last.map({ s < $0 }) ?? true else {
                throw .invalid(field: "reverted seq", offset: o, reason: "\(s) is not below the seq \(seq) and the seq before it")
            }
            out.append(s)
        }
        return out
    }

    /// Checks an entry's header in order — magic, version, flags, length, checksum, seq — and returns a reader
    /// positioned at the author, with the seq, time and flags.
    static func checkedHeader(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64?)
        throws(CodecError) -> (reader: ByteReader, seq: UInt64, time: Timestamp, flags: UInt16) {
        var r = ByteReader(bytes)
        try r.need(magic.count, "magic")
        for b in magic where try r.u8("magic") != b { throw .badMagic }
        let version = try r.u16("format version")
        guard version == formatVersion else { throw .unsupportedVersion(version) }
        let flags = try r.u16("flags")
        guard flags & ~Flag.all == 0 else { throw .invalid(field: "flags", offset: 6, reason: "unknown flags \(flags)") }
        let length = Int(try r.u32("length"))
        guard length == bytes.count else { throw .lengthMismatch(declared: length, actual: bytes.count) }
        guard length >= headerBytes else { throw .truncated(field: "header", offset: 0) }
        guard length <= Limits.transactionBytesMax else {
            throw .tooLarge(field: "length", offset: lengthOffset, value: length, limit: Limits.transactionBytesMax)
        }
        let stored = try r.u32("checksum")
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[seqOffset...]))
        let seq = try r.u64("seq")
        guard stored == computed else {
            throw .checksumMismatch(seq: expectedSeq ?? seq, stored: stored, computed: computed)
        }
        guard seq >= 1, seq <= UInt64(Int64.max) else {
            throw .invalid(field: "seq", offset: seqOffset, reason: "\(seq) is not in 1...\(Int64.max)")
        }
        if let expectedSeq, seq != expectedSeq { throw .unexpectedSeq(expected: expectedSeq, found: seq) }
        let time = Timestamp(milliseconds: Int64(bitPattern: try r.u64("time")))
        return (r, seq, time, flags)
    }

    /// The change count (1 … ``Limits/transactionChangesMax``).
    static func changeCount(_ r: inout ByteReader) throws(CodecError) -> Int {
        let countAt = r.offset
        let count = try r.count("change count", limit: Limits.transactionChangesMax, bytesEach: EncodedSize.changeMin)
        guard count >= 1 else {
            throw .invalid(field: "change count", offset: countAt, reason: "a transaction has at least one change")
        }
        return count
    }

    static func decodeChange(_ r: inout ByteReader) throws(CodecError) -> Change {
        let at = r.offset
        let kind = try r.u8("change kind")
        switch kind {
        case Kind.insert:
            let key = try r.key()
            return .insert(key, values: try r.objectValues())
        case Kind.update:
            let key = try r.key()
            let (values, previous) = try r.updatePairs()
            return .update(key, values: values, previous: previous)
        case Kind.delete:
            let key = try r.key()
            return .delete(key, previous: try r.objectValues())
        case Kind.schema:
            let schema = try decodeSchema(&r, field: "schema")
            return .schema(schema, previous: try decodeSchema(&r, field: "previous schema"))
        case Kind.migration:
            let migration = try decodeMigration(&r)
            let schema = try decodeSchema(&r, field: "schema")
            return .migration(migration, schema: schema, previous: try decodeSchema(&r, field: "previous schema"))
        default:
            throw .invalid(field: "change kind", offset: at, reason: "unknown kind \(kind)")
        }
    }

    /// The steps of a migration change (after its kind byte).
    static func decodeMigration(_ r: inout ByteReader) throws(CodecError) -> Migration {
        let at = r.offset
        let text = try r.string("migration", limit: Limits.stringBytesMax)
        do { return try Migration(jsonText: text) } catch {
            throw .invalid(field: "migration", offset: at, reason: error.description)
        }
    }

    /// The migration that opens the entry, or `nil` when its first change is not one: the header and checksum are
    /// checked, and nothing past the first change's steps is decoded (an additive schema change's updates of every
    /// object are not).
    static func openingMigration(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64) throws(CodecError) -> Migration? {
        var (r, seq, _, flags) = try checkedHeader(bytes, expectedSeq: expectedSeq)
        try r.skipString("author", limit: Limits.stringBytesMax)
        _ = try reverts(&r, flags: flags, seq: seq)
        _ = try changeCount(&r)
        guard try r.u8("change kind") == Kind.migration else { return nil }
        return try decodeMigration(&r)
    }

    static func decodeSchema(_ r: inout ByteReader, field: StaticString) throws(CodecError) -> Schema {
        let at = r.offset
        let text = try r.string(field, limit: Limits.stringBytesMax)
        do {
            return try Schema(jsonText: text)
        } catch {
            throw .invalid(field: "\(field)", offset: at, reason: error.description)
        }
    }
}

extension TransactionCodec {
    /// Decodes one log entry from an array; see ``decode(_:expectedSeq:)``.
    public static func decode(_ bytes: [UInt8], expectedSeq: UInt64?) throws(CodecError) -> Transaction {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try decode(raw, expectedSeq: expectedSeq) }
        }
        return try result.get()
    }
}
