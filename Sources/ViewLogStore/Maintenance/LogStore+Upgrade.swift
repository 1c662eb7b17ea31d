@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Object rows rewritten per cursor pass when upgrading: bounds the rows held in memory at once.
    static let upgradeChunkRows = 4096

    /// The store's log format (``formatVersion`` for a new store; 1 for a store made before version 2).
    public var format: Int {
        get throws(StoreError) { try perform(read: true) { txn in try self.format(in: txn) } }
    }

    /// Upgrades a store of an older log format to ``formatVersion`` (`viewlog upgrade STORE`), in **one** LMDB
    /// write: every object row and metadata record is rewritten with its checksum, then the format record.
    /// The log itself is unchanged (its entries had checksums from version 1). The store must verify first,
    /// so that the checksums are computed over sound data.
    /// - Returns: the format the store had; nothing is written when it was already current.
    /// - Throws: ``StoreError/corrupt(seq:reason:)`` when the store does not verify; nothing is changed then.
    @discardableResult
    public func upgrade() throws(StoreError) -> Int {
        let current = try format
        guard current < Self.formatVersion else { return current }
        let report = try verify()
        guard report.isOK else {
            throw .corrupt(seq: nil, reason: "the store does not verify, so it is not upgraded (first problem: \(report.problems[0]))")
        }
        return try perform { txn -> Int in
            let format = try self.format(in: txn)
            guard format < Self.formatVersion else { return format }
            guard try self.head(in: txn) == report.transactions else {
                throw StoreError.storage("\(self.path) changed while it was verified for the upgrade; nothing was changed, try again")
            }
            try self.rewriteObjectRows(txn)
            var records: [(key: [UInt8], value: [UInt8])] = []
            try txn.scan(self.metaDB) { e in
                if !e.key.elementsEqual(MetaKey.format) { records.append((Array(e.key), Array(e.value))) }
                return .next
            }
            for r in records { try self.putMeta(txn, r.key, r.value, format: Self.formatVersion) }
            try self.putMeta(txn, MetaKey.format, bigEndianBytes(UInt64(Self.formatVersion)), format: Self.formatVersion)
            return format
        }
    }

    /// Rewrites every object row of a format-1 store as a checksummed format-2 row, in chunks of
    /// ``upgradeChunkRows`` (a cursor pass reads a chunk, then the puts write it).
    private func rewriteObjectRows(_ txn: LMDBTransaction) throws {
        var last: [UInt8]?
        while true {
            var rows: [(key: [UInt8], record: (values: ObjectValues, seq: UInt64))] = []
            try txn.scan(objectsDB, from: last.map { .after($0) } ?? .first) { e in
                do { rows.append((Array(e.key), try ObjectRecordCodec.decode(e.value))) } catch {
                    throw StoreError.corrupt(seq: nil, reason: "object record \(ObjectRecordCodec.describeKey(e.key)): \(error)")
                }
                return rows.count < Self.upgradeChunkRows ? .next : .stop
            }
            guard let end = rows.last?.key else { return }
            for row in rows {
                try txn.put(objectsDB, key: row.key, value: ObjectRecordCodec.encode(values: row.record.values, seq: row.record.seq, key: row.key))
            }
            last = end
        }
    }
}
