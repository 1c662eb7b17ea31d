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
    /// - Parameter progress: called with (transactions read, head) every few thousand transactions.
    public func verify(progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> VerifyReport {
        var problems: [String] = []
        func problem(_ s: String) { if problems.count < Self.verifyProblemsMax { problems.append(s) } }
        var replay: [ObjectKey: (values: ObjectValues, seq: UInt64)] = [:]
        let head = try self.head
        var seq: UInt64 = 0
        // Read entry by entry so that one damaged entry is reported and the rest still checked.
        while seq < head {
            let start = seq + 1, end = min(head, seq + UInt64(Self.scanChunkEntries))
            let entries: [(UInt64, Result<Transaction, StoreError>)] = try perform(read: true) { txn in
                var out: [(UInt64, Result<Transaction, StoreError>)] = []
                try txn.withCursor(self.logDB) { cursor in
                    var entry = try cursor.seek(atLeast: bigEndianBytes(start))
                    var expected = start
                    while let e = entry, expected <= end {
                        guard let s = uint64FromBigEndian(e.key) else {
                            out.append((expected, .failure(.corrupt(seq: expected, reason: "log key of \(e.key.count) bytes"))))
                            break
                        }
                        while expected < s, expected <= end {
                            out.append((expected, .failure(.corrupt(seq: expected, reason: "missing from the log"))))
                            expected += 1
                        }
                        if s > end { break }
                        do { out.append((s, .success(try TransactionCodec.decode(e.value, expectedSeq: s)))) } catch {
                            out.append((s, .failure(.corrupt(seq: s, reason: "\(error)"))))
                        }
                        expected = s + 1
                        entry = try cursor.next()
                    }
                    while expected <= end {
                        out.append((expected, .failure(.corrupt(seq: expected, reason: "missing from the log"))))
                        expected += 1
                    }
                }
                return out
            }
            for (s, result) in entries {
                switch result {
                case .failure(let e): problem(e.description)
                case .success(let t): Self.replay(t, into: &replay, problem: problem)
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
                }
            }
            if let last = try txn.withCursor(self.logDB, { try $0.last() }), let lastSeq = uint64FromBigEndian(last.key),
               lastSeq != metaHead {
                problem("the head in the metadata is \(metaHead) but the last log entry is seq \(lastSeq)")
            }
            var seen = 0
            try txn.withCursor(self.objectsDB) { cursor in
                var entry = try cursor.first()
                while let e = entry {
                    seen += 1
                    do {
                        let key = try ObjectRecordCodec.decodeKey(e.key)
                        let record = try ObjectRecordCodec.decode(e.value)
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
                        problem("object record: \(error)")
                    }
                    entry = try cursor.next()
                }
            }
            for key in replay.keys.sorted().prefix(Self.verifyProblemsMax) {
                problem("object \(key) is in the replay of the log but missing from the object store")
            }
            return seen
        }
        return VerifyReport(transactions: head, objects: objectCount, problems: problems)
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
