import LMDB

extension LogStore {
    /// Checks the whole store: every log entry decodes and its checksum matches, seqs are contiguous from 1,
    /// every change fits the state it was applied to (previous values match), and the objects at the head
    /// equal a replay of the log (values and last-changed seq), and the head in the metadata is the last seq.
    /// Every record it does not replay is checked too: each object row's and metadata record's checksum (log
    /// format 2), every stored schema loads, and each schema the log changed to equals the one stored for its seq.
    /// - Parameter progress: called with (transactions read, head) every few thousand transactions.
    public func verify(progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> VerifyReport {
        var verifier = LogVerifier(store: self)
        return try verifier.run(progress: progress)
    }
}

/// One run of ``LogStore/verify(progress:)``: replays the log into a plain dictionary of objects, then compares
/// the store's objects and metadata with it.
///
/// The log is read in short read transactions of ``LogStore/scanChunkEntries`` entries, entry by entry, so that
/// one damaged entry is reported and the rest still checked; the objects and metadata are compared in one read
/// transaction at the end (which first replays whatever was appended meanwhile).
struct LogVerifier {
    /// Most problems listed before the verifier stops collecting more.
    static let problemsMax = 100

    let store: LogStore
    private(set) var problems: [String] = []
    /// The objects the log says exist, with the seq that last changed each.
    private var replayed: [ObjectKey: (values: ObjectValues, seq: UInt64)] = [:]
    /// The schema each schema change of the log set, by seq.
    private var logSchemas: [UInt64: Schema] = [:]

    init(store: LogStore) {
        self.store = store
    }

    mutating func run(progress: ((UInt64, UInt64) -> Void)?) throws(StoreError) -> VerifyReport {
        let head = try store.head
        var seq: UInt64 = 0
        while seq < head {
            let start = seq + 1, end = min(head, seq + UInt64(LogStore.scanChunkEntries))
            for (s, result) in try readEntries(start, through: end) {
                switch result {
                case .failure(let e): problem(e.description)
                case .success(let t): replay(t)
                }
                seq = s
            }
            progress?(seq, head)
        }
        let objects: Int = try store.perform(read: true) { txn in try self.checkStoredState(txn, verifiedHead: head) }
        return VerifyReport(transactions: head, objects: objects, problems: problems)
    }

    private mutating func problem(_ s: String) {
        if problems.count < Self.problemsMax { problems.append(s) }
    }

    /// The log entries `start...end`, each decoded or the reason it is not (missing, a bad key, a bad entry).
    private func readEntries(_ start: UInt64, through end: UInt64) throws(StoreError) -> [(UInt64, Result<Transaction, StoreError>)] {
        try store.perform(read: true) { txn in
            var out: [(UInt64, Result<Transaction, StoreError>)] = []
            var expected = start
            try txn.scan(store.logDB, from: .atLeast(bigEndianBytes(start))) { e in
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
    }

    /// Compares the objects database and the metadata with the replay, in one read transaction. Returns the
    /// number of object rows.
    private mutating func checkStoredState(_ txn: LMDBTransaction, verifiedHead head: UInt64) throws -> Int {
        let metaHead = try store.head(in: txn)
        if metaHead != head {
            // Appends happened meanwhile: replay them too, inside this transaction.
            for t in try store.readTransactions(txn, from: head + 1, through: metaHead) { replay(t) }
        }
        var lastSeq: UInt64?
        try txn.scan(store.logDB, from: .last) { e in
            lastSeq = uint64FromBigEndian(e.key)
            return .stop
        }
        if let lastSeq, lastSeq != metaHead {
            problem("the head in the metadata is \(metaHead) but the last log entry is seq \(lastSeq)")
        }
        let format = try store.format(in: txn)
        try checkMeta(txn, format: format)
        return try checkObjects(txn, format: format)
    }

    /// Checks every object row (its key, checksum and values) against the replay, and reports what the replay
    /// has that the store does not. Returns the number of rows.
    private mutating func checkObjects(_ txn: LMDBTransaction, format: Int) throws -> Int {
        let seen = try txn.scan(store.objectsDB) { e in
            do {
                let key = try ObjectRecordCodec.decodeKey(e.key)
                let record = try ObjectRecordCodec.decode(e.value, key: e.key, format: format)
                if let expected = replayed.removeValue(forKey: key) {
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
        for key in replayed.keys.sorted().prefix(Self.problemsMax) {
            problem("object \(key) is in the replay of the log but missing from the object store")
        }
        return seen
    }

    /// Checks every record of the `meta` database: its checksum (format 2), that every stored schema loads, that
    /// each schema change of the log is the one stored for its seq and the other way round, and that there is no
    /// record of an unknown key.
    private mutating func checkMeta(_ txn: LMDBTransaction, format: Int) throws {
        var stored: Set<UInt64> = []
        try txn.scan(store.metaDB) { e in
            let key = Array(e.key)
            if key == MetaKey.format || key == MetaKey.head {
                // Read and checked by format(in:) and head(in:) before the verifier gets here.
            } else if key == MetaKey.replica {
                do { _ = try store.replicaLink(in: txn) } catch let error as StoreError { problem(error.description) }
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

    /// Applies `t` to the replay, reporting changes that do not fit the state they claim to follow.
    private mutating func replay(_ t: Transaction) {
        for change in t.changes {
            if case .schema(let schema, _) = change { logSchemas[t.seq] = schema }
            guard let key = change.key else { continue }
            // Taken out and put back, so that an update changes the values in place: read through the dictionary
            // and written back, they were held twice and copied by every update.
            var current = replayed.removeValue(forKey: key)?.values
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
            ObjectValues.apply(change, to: &current)
            if let current { replayed[key] = (current, t.seq) }
        }
    }
}
