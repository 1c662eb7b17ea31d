import LMDB

/// What ``LogStore/verify(progress:)`` found.
public struct VerifyReport: Sendable, Hashable {
    /// Transactions read (the head verified).
    public var transactions: UInt64
    /// Objects at the head.
    public var objects: Int
    /// Everything wrong, each naming the seq or object; empty when the store is sound.
    public var problems: [String]

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }
}

extension LogStore {
    /// Most problems listed before verify stops collecting more.
    static let verifyProblemsMax = 100

    /// Checks the whole store: every log entry decodes and its checksum matches, seqs are contiguous from 1,
    /// every change fits the state it was applied to (previous values match), and the objects at the head
    /// equal a replay of the log (values and last-changed seq), and the head in the metadata is the last seq.
    /// Every record it does not replay is checked too: each object row's and metadata record's checksum (log
    /// format 2), every stored schema loads, and each schema the log changed to equals the one stored for its seq.
    /// - Parameter progress: called with (transactions read, head) every few thousand transactions.
    public func verify(progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> VerifyReport {
        var problems: [String] = []
        func problem(_ s: String) { if problems.count < Self.verifyProblemsMax { problems.append(s) } }
        var replay: [ObjectKey: (values: ObjectValues, seq: UInt64)] = [:]
        var logSchemas: [UInt64: Schema] = [:]
        let head = try self.head
        var seq: UInt64 = 0
        // Read entry by entry so that one damaged entry is reported and the rest still checked.
        while seq < head {
            let start = seq + 1, end = min(head, seq + UInt64(Self.scanChunkEntries))
            let entries: [(UInt64, Result<Transaction, StoreError>)] = try perform(read: true) { txn in
                var out: [(UInt64, Result<Transaction, StoreError>)] = []
                var expected = start
                try txn.scan(self.logDB, from: .atLeast(bigEndianBytes(start))) { e in
                    guard let s = uint64FromBigEndian(e.key) else {
                        out.append((expected, .failure(.corrupt(seq: expected, reason: "log key of \(e.key.count) bytes"))))
                        return .stop
                    }
                    while expected < s, expected <= end {
                        out.append((expected, .failure(.corrupt(seq: expected, reason: "missing from the log"))))
                        expected += 1
                    }
                    if s > end { return .stop }
                    do { out.append((s, .success(try TransactionCodec.decode(e.value, expectedSeq: s)))) } catch {
                        out.append((s, .failure(.corrupt(seq: s, reason: "\(error)"))))
                    }
                    expected = s + 1
                    return expected <= end ? .next : .stop
                }
                while expected <= end {
                    out.append((expected, .failure(.corrupt(seq: expected, reason: "missing from the log"))))
                    expected += 1
                }
                return out
            }
            for (s, result) in entries {
                switch result {
                case .failure(let e): problem(e.description)
                case .success(let t):
                    Self.replay(t, into: &replay, problem: problem)
                    for case .schema(let schema, _) in t.changes { logSchemas[t.seq] = schema }
                }
                seq = s
            }
            progress?(seq, head)
        }
        // Compare the objects database with the replay, in one read transaction.
        let objectCount: Int = try perform(read: true) { txn in
            let metaHead = try self.head(in: txn)
            if metaHead != head {
                // Appends happened meanwhile: replay them too, inside this transaction.
                for t in try self.readTransactions(txn, from: head + 1, through: metaHead) {
                    Self.replay(t, into: &replay, problem: problem)
                    for case .schema(let schema, _) in t.changes { logSchemas[t.seq] = schema }
                }
            }
            if let last = try txn.withCursor(self.logDB, { try $0.last() }), let lastSeq = uint64FromBigEndian(last.key),
               lastSeq != metaHead {
                problem("the head in the metadata is \(metaHead) but the last log entry is seq \(lastSeq)")
            }
            let format = try self.format(in: txn)
            try self.verifyMeta(txn, format: format, logSchemas: logSchemas, problem: problem)
            var seen = 0
            try txn.scan(self.objectsDB) { e in
                seen += 1
                do {
                    let key = try ObjectRecordCodec.decodeKey(e.key)
                    let record = try ObjectRecordCodec.decode(e.value, key: e.key, format: format)
                    if let expected = replay.removeValue(forKey: key) {
                        if expected.values != record.values {
                            problem("object \(key): values differ from the replay of the log")
                        } else if expected.seq != record.seq {
                            problem("object \(key): last changed at seq \(record.seq), the log says \(expected.seq)")
                        }
                    } else {
                        problem("object \(key) is in the object store but not in the replay of the log")
                    }
                } catch {
                    problem("object record \(ObjectRecordCodec.describeKey(e.key)): \(error)")
                }
                return .next
            }
            for key in replay.keys.sorted().prefix(Self.verifyProblemsMax) {
                problem("object \(key) is in the replay of the log but missing from the object store")
            }
            return seen
        }
        return VerifyReport(transactions: head, objects: objectCount, problems: problems)
    }

    /// Checks every record of the `meta` database: its checksum (format 2), that every stored schema loads, that
    /// each schema change of the log (`logSchemas`, by seq) is the one stored for its seq and the other way round,
    /// and that there is no record of an unknown key.
    func verifyMeta(_ txn: LMDBTransaction, format: Int, logSchemas: [UInt64: Schema], problem: (String) -> Void) throws {
        var stored: Set<UInt64> = []
        try txn.scan(metaDB) { e in
            let key = Array(e.key)
            if key == MetaKey.format || key == MetaKey.head {
                // Read and checked by format(in:) and head(in:) before verify gets here.
            } else if key == MetaKey.replica {
                do { _ = try replicaLink(in: txn) } catch let error as StoreError { problem(error.description) }
            } else if key.starts(with: MetaKey.schemaPrefix), key.count == MetaKey.schemaPrefix.count + 8,
                      let seq = uint64FromBigEndian(key.dropFirst(MetaKey.schemaPrefix.count)) {
                stored.insert(seq)
                do {
                    let payload = try MetaRecord.payload(e.value, key: key, format: format, record: "the schema of position \(seq)")
                    let schema = try Schema(jsonText: String(decoding: payload, as: UTF8.self))
                    if seq > 0, let logged = logSchemas[seq], logged != schema {
                        problem("the schema stored for position \(seq) differs from the schema change the log holds at seq \(seq)")
                    } else if seq > 0, logSchemas[seq] == nil {
                        problem("the metadata holds a schema for position \(seq), but the log has no schema change at seq \(seq)")
                    }
                } catch let error as StoreError {
                    problem(error.description)
                } catch {
                    problem("the schema of position \(seq) in the metadata does not load: \(error)")
                }
            } else {
                problem("unknown metadata record '\(String(decoding: key.prefix(64), as: UTF8.self))'")
            }
            return .next
        }
        if !stored.contains(0) { problem("the metadata holds no schema for position 0") }
        for seq in logSchemas.keys.sorted() where !stored.contains(seq) {
            problem("the log changes the schema at seq \(seq), but the metadata holds no schema for it")
        }
    }

    /// Applies `t` to `state`, reporting changes that do not fit the state they claim to follow.
    static func replay(_ t: Transaction, into state: inout [ObjectKey: (values: ObjectValues, seq: UInt64)],
                       problem: (String) -> Void) {
        for change in t.changes {
            guard let key = change.key else { continue }
            let current = state[key]?.values
            switch change {
            case .insert:
                if current != nil { problem("seq \(t.seq): insert of \(key), which exists") }
            case .update(_, _, let previous):
                if let current {
                    for (k, v) in previous where (current[k] ?? .null) != v {
                        problem("seq \(t.seq): update of \(key): previous '\(k)' does not match the replay")
                        break
                    }
                } else {
                    problem("seq \(t.seq): update of \(key), which does not exist")
                }
            case .delete(_, let previous):
                if current == nil { problem("seq \(t.seq): delete of \(key), which does not exist") }
                else if current != previous { problem("seq \(t.seq): delete of \(key): previous values do not match the replay") }
            case .schema: break
            }
            if let next = ObjectValues.applying(change, to: current) {
                state[key] = (next, t.seq)
            } else {
                state[key] = nil
            }
        }
    }
}
