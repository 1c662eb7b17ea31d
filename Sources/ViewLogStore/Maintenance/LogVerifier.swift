@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension ObjectValues {
    /// Whether `a` and `b` have the same names with identical values (``Value/isIdentical(to:)``).
    static func areIdentical(_ a: ObjectValues, _ b: ObjectValues) -> Bool {
        a.count == b.count && a.allSatisfy { name, value in b[name].map { value.isIdentical(to: $0) } ?? false }
    }
}

extension LogStore {
    /// Checks the whole store: every log entry decodes and its checksum matches, seqs are contiguous from 1,
    /// every change fits the state it was applied to (previous values match), and the objects at the head
    /// equal a replay of the log (values and last-changed seq), and the head in the metadata is the last seq.
    /// Every record it does not replay is checked too: each object row's and metadata record's checksum (log
    /// format 2), every stored schema loads, and each schema the log changed to equals the one stored for its seq; the
    /// relationships index and the stored views match the objects.
    /// - Parameter progress: called with (transactions read, head) every few thousand transactions.
    public func verify(progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> VerifyReport {
        try verify(bySlot: true, progress: progress)
    }

    /// ``verify(progress:)``, replaying the log by slot where it can only when `bySlot` (a test compares the two
    /// ways).
    func verify(bySlot: Bool, progress: ((UInt64, UInt64) -> Void)? = nil) throws(StoreError) -> VerifyReport {
        var verifier = LogVerifier(store: self, bySlot: bySlot)
        var report = try verifier.run(progress: progress)
        report.problems += try referenceProblems(limit: max(0, LogVerifier.problemsMax - report.problems.count))
        report.problems += try storedViewProblems(limit: max(0, LogVerifier.problemsMax - report.problems.count))
        return report
    }
}

/// One run of ``LogStore/verify(progress:)``: replays the log, then compares the store's objects and metadata with
/// the replay.
///
/// A log without schema changes is replayed by slot (``CheckedFold``): every entity's objects in compact rows,
/// each change checked against them, each object row compared with its replayed row as bytes. Any other log (a
/// schema change, or a name the first schema lacks) is replayed into a plain dictionary of objects by key, change by
/// change; both find the same problems, in the same words.
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

    /// Whether the log is replayed by slot where it can be (see the type's comment).
    package let bySlot: Bool
    /// The store's horizon: the replay starts from the objects at it.
    private var horizon: UInt64 = 0

    init(store: LogStore, bySlot: Bool = true) {
        self.store = store
        self.bySlot = bySlot
    }

    package mutating func run(progress: ((UInt64, UInt64) -> Void)?) throws(StoreError) -> VerifyReport {
        if bySlot, let report = try runBySlot(progress: progress) { return report }
        problems = []
        let (head, checkpoints) = try headAndCheckpoints()
        var pending = checkpoints[...]
        // A compacted store: the objects at the horizon (its checkpoint), then the log after it.
        var seq = horizon
        if horizon > 0 { try seedFromHorizon() }
        while seq < head {
            let start = seq + 1, end = min(head, seq + UInt64(LogStore.scanChunkEntries), pending.first?.seq ?? .max)
            for (s, result) in try readEntries(start, through: end) {
                switch result {
                case .failure(let e): problem(e.description)
                case .success(let t): replay(t)
                }
                seq = s
            }
            if let c = pending.first, c.seq == seq {
                pending.removeFirst()
                try store.perform(read: true) { txn in _ = try self.checkObjects(txn, format: try store.format(in: txn), in: c) }
            }
            progress?(seq, head)
        }
        let objects: Int = try store.perform(read: true) { txn in try self.checkStoredState(txn, verifiedHead: head) }
        return VerifyReport(transactions: head, objects: objects, checkpoints: checkpoints.count, problems: problems)
    }

    /// The head, and the checkpoints to compare with the replay (complete ones and the one being built), read in
    /// one transaction; also reports a directory that does not decode, checkpoints past the head, and rows of
    /// checkpoints the directory does not list.
    /// The checkpoints are listed after the horizon's (the state the replay starts from, not compared), and with
    /// the one a compaction is building (its rows up to its cursor).
    private mutating func headAndCheckpoints() throws(StoreError) -> (UInt64, [StoredRows]) {
        try store.perform(read: true) { txn in
            let head = try store.head(in: txn)
            horizon = try store.horizon(in: txn)
            var compaction: CompactionRecord?
            do { compaction = try store.compactionRecord(in: txn) } catch let error as StoreError { problem(error.description) }
            let directory: CheckpointDirectory
            do { directory = try store.checkpointDirectory(in: txn) } catch let error as StoreError {
                problem(error.description)
                return (head, [])
            }
            if horizon > 0 && !directory.complete.contains(horizon) {
                problem("the checkpoint directory does not list the horizon (\(horizon)) as a complete checkpoint")
            }
            var listed = directory.complete.map { StoredRows.checkpoint(seq: $0, passed: nil) }
            if let building = directory.building { listed.append(.checkpoint(seq: building, passed: directory.cursor)) }
            if let compaction, compaction.phase == .build, !directory.complete.contains(compaction.target) {
                listed.append(.checkpoint(seq: compaction.target, passed: compaction.cursor))
                listed.sort { $0.seq < $1.seq }
            }
            for c in listed where c.seq > head {
                problem("the checkpoint directory lists seq \(c.seq), past the head (\(head))")
            }
            // Rows below a compaction's target are on their way out.
            try checkUnlistedCheckpoints(txn, listed: Set(listed.map(\.seq)), leaving: compaction?.target ?? 0)
            return (head, listed.filter { $0.seq <= head && $0.seq > horizon })
        }
    }

    /// Loads the replay with the objects at the horizon: the rows of its checkpoint, with the seq that last
    /// changed each.
    private mutating func seedFromHorizon() throws(StoreError) {
        let seq = horizon
        try store.perform(read: true) { txn in
            let format = try store.format(in: txn)
            guard store.checkpointsDB != nil else { return }
            _ = try StoredRows.checkpoint(seq: seq, passed: nil).scan(store, txn) { fullKey, k, value in
                do {
                    replayed[try ObjectRecordCodec.decodeKey(k)] = try ObjectRecordCodec.decode(value, key: fullKey, format: format)
                } catch {
                    problem("the checkpoint at the horizon (\(seq)): object record \(ObjectRecordCodec.describeKey(k)): \(error)")
                }
            }
        }
    }

    /// Reports rows of the checkpoints database stored under a seq the directory does not list (one problem per
    /// seq), stepping from one seq to the next; rows of seqs below `leaving` are not reported.
    private mutating func checkUnlistedCheckpoints(_ txn: LMDBTransaction, listed: Set<UInt64>, leaving: UInt64) throws {
        guard let db = store.checkpointsDB else { return }
        var next: UInt64 = 1
        for _ in 0...(listed.count + Self.problemsMax) {  // each pass finds one seq with rows, or ends
            var found: UInt64?
            try txn.scan(db, from: .atLeast(bigEndianBytes(next))) { e in
                found = e.key.count > 8 ? uint64FromBigEndian(UnsafeRawBufferPointer(rebasing: e.key[..<8])) : nil
                if found == nil { problem("the checkpoints database holds a key of \(e.key.count) bytes") }
                return .stop
            }
            guard let seq = found else { return }
            if !listed.contains(seq), seq >= leaving { problem("the checkpoints database holds rows of seq \(seq), which its directory does not list") }
            guard seq < UInt64(Int64.max) else { return }
            next = seq + 1
        }
    }

    private mutating func problem(_ s: String) {
        if problems.count < Self.problemsMax { problems.append(s) }
    }

    /// The log entries `start...end`, each decoded or the reason it is not (missing, a bad key, a bad entry).
    private func readEntries(_ start: UInt64, through end: UInt64) throws(StoreError) -> [(UInt64, Result<Transaction, StoreError>)] {
        try store.perform(read: true) { txn in
            var out: [(UInt64, Result<Transaction, StoreError>)] = []
            try scanEntries(txn, start, through: end) { s, entry in
                out.append((s, entry.flatMap { bytes in
                    Result { () throws(StoreError) in
                        do { return try TransactionCodec.decode(bytes, expectedSeq: s) } catch {
                            throw .corrupt(seq: s, reason: "\(error)")
                        }
                    }
                }))
            }
            return out
        }
    }

    /// Calls `body` with each seq of `start...end`, in order, and its entry's bytes — or why there is none: missing
    /// from the log, or, from a key that is not a seq on, unreadable.
    private func scanEntries(_ txn: LMDBTransaction, _ start: UInt64, through end: UInt64,
                             _ body: (UInt64, Result<UnsafeRawBufferPointer, StoreError>) throws -> Void) throws {
        var expected = start
        try txn.scan(store.logDB, from: .atLeast(bigEndianBytes(start))) { e in
            guard let s = uint64FromBigEndian(e.key) else {
                try body(expected, .failure(.corrupt(seq: expected, reason: "log key of \(e.key.count) bytes")))
                expected += 1
                return .stop
            }
            while expected < s, expected <= end {
                try body(expected, .failure(.corrupt(seq: expected, reason: "missing from the log")))
                expected += 1
            }
            if s > end { return .stop }
            try body(s, .success(e.value))
            expected = s + 1
            return expected <= end ? .next : .stop
        }
        while expected <= end {
            try body(expected, .failure(.corrupt(seq: expected, reason: "missing from the log")))
            expected += 1
        }
    }

    /// Verifies by slot (see the type's comment), or returns `nil` when the log cannot be replayed so: the schema
    /// at position 0 does not load, or an entry holds a schema change or names what that schema lacks.
    private mutating func runBySlot(progress: ((UInt64, UInt64) -> Void)?) throws(StoreError) -> VerifyReport? {
        guard try store.horizon == 0, let schema = try? store.schema(at: 0) else { return nil }
        var fold = CheckedFold(schema: schema, appendChecks: false)
        let (head, checkpoints) = try headAndCheckpoints()
        var pending = checkpoints[...]
        var seq: UInt64 = 0
        while seq < head {
            let start = seq + 1, end = min(head, seq + UInt64(LogStore.scanChunkEntries), pending.first?.seq ?? .max)
            let folded: Bool = try store.perform(read: true) { txn in
                guard try self.fold(&fold, txn, start, through: end) else { return false }
                if let c = pending.first, c.seq == end {
                    pending.removeFirst()
                    _ = try checkObjects(txn, format: try store.format(in: txn), against: &fold, in: c)
                }
                return true
            }
            guard folded else { return nil }
            seq = end
            progress?(seq, head)
        }
        let objects: Int? = try store.perform(read: true) { txn -> Int? in
            // Appends made meanwhile are folded too, inside this transaction.
            let metaHead = try store.head(in: txn)
            if metaHead > head, !(try self.fold(&fold, txn, head + 1, through: metaHead)) { return nil }
            try checkHead(txn, metaHead)
            let format = try store.format(in: txn)
            try checkMeta(txn, format: format)
            return try checkObjects(txn, format: format, against: &fold)
        }
        guard let objects else { return nil }
        return VerifyReport(transactions: head, objects: objects, checkpoints: checkpoints.count, problems: problems)
    }

    /// Folds entries `start...end` into `fold`, reporting each entry that is missing or damaged and each change
    /// that does not fit its state, in seq order. Returns `false` at an entry the fold cannot read by slot.
    private mutating func fold(_ fold: inout CheckedFold, _ txn: LMDBTransaction, _ start: UInt64,
                               through end: UInt64) throws -> Bool {
        var folded = true
        try scanEntries(txn, start, through: end) { s, entry in
            guard folded else { return }
            do {
                let bytes = try entry.get()
                folded = try fold.read(bytes, seq: s)
                if fold.pendingChanges >= LogStore.slotFoldBatchChanges { fold.flush { problem($0.description) } }
            } catch {
                // What went before it is reported first.
                fold.flush { problem($0.description) }
                problem((error as? StoreError ?? .corrupt(seq: s, reason: "\(error)")).description)
            }
        }
        fold.flush { problem($0.description) }
        return folded
    }

    /// Reports a head in the metadata other than the last log entry's seq.
    private mutating func checkHead(_ txn: LMDBTransaction, _ metaHead: UInt64) throws {
        var lastSeq: UInt64?
        try txn.scan(store.logDB, from: .last) { e in
            lastSeq = uint64FromBigEndian(e.key)
            return .stop
        }
        if let lastSeq, lastSeq != metaHead {
            problem("the head in the metadata is \(metaHead) but the last log entry is seq \(lastSeq)")
        }
    }

    /// Checks every object row of `source` against the fold's rows — its key, checksum, seq and values, compared as
    /// bytes with the replayed row's encoding — and reports what the fold has that `source` should and does not.
    /// Returns the number of rows.
    private mutating func checkObjects(_ txn: LMDBTransaction, format: Int, against fold: inout CheckedFold,
                                       in source: StoredRows = .head) throws -> Int {
        var seen = fold.entities.map { [Bool](repeating: false, count: $0.rows.count) }
        var encoded = ByteWriter(capacity: 256)
        let count = try source.scan(store, txn) { fullKey, k, value in
            // The entity: the key's bytes before its first 0x00.
            let prefixEnd = k.prefix(Limits.nameBytesMax + 1).firstIndex(of: 0)
            guard let prefixEnd, let ei = fold.entityIndex(named: UnsafeRawBufferPointer(rebasing: k[..<prefixEnd])),
                  let id = try? ObjectRecordCodec.decodeID(k, prefixCount: prefixEnd + 1),
                  let record = try? ObjectRecordCodec.decodeFrame(value, key: fullKey, format: format, values: { r throws(CodecError) in
                      let start = r.offset
                      try r.skipObjectValues()
                      return start..<r.offset
                  }) else {
                // Not an entity of the schema, or a row that does not decode: the general check words it.
                checkObjectByName(k, fullKey, value, format: format, in: source)
                return
            }
            let key = ObjectKey(entity: fold.entities[ei].description.name, id: id)
            guard let r = fold.entities[ei].rows.row(of: id), fold.entities[ei].rows.exists(r) else {
                problem("\(source.label)object \(key) is in the \(source.name) but not in the \(source.replay)")
                return
            }
            seen[ei][r] = true
            encoded.truncate(to: 0)
            fold.entities[ei].rows.writeObjectValues(ofRow: r, into: &encoded)
            let same = encoded.withBytes(0..<encoded.count) {
                $0.elementsEqual(UnsafeRawBufferPointer(rebasing: value[record.values]))
            }
            if !same {
                // As the general check words it: a row that does not decode, or values that differ.
                checkObjectByName(k, fullKey, value, format: format, in: source, differs: true)
            } else if case let logged = fold.entities[ei].rows.seq(ofRow: r), record.seq != logged {
                problem("\(source.label)object \(key): last changed at seq \(record.seq), the log says \(logged)")
            }
        }
        var missing: [ObjectKey] = []
        for (ei, entity) in fold.entities.enumerated() {
            for r in 0..<entity.rows.count where entity.rows.exists(r) && !seen[ei][r] {
                let key = ObjectKey(entity: entity.description.name, id: entity.rows.ids[r])
                if source.mustHold(key) { missing.append(key) }
            }
        }
        for key in missing.sorted().prefix(Self.problemsMax) {
            problem("\(source.label)object \(key) is in the \(source.replay) but missing from the \(source.name)")
        }
        return count
    }

    /// Reports what is wrong with an object row the fold by slot does not match, in the words of the check by name:
    /// a key or record that does not decode, an object the replay does not have, or (`differs`) values other than
    /// the replay's.
    private mutating func checkObjectByName(_ key: UnsafeRawBufferPointer, _ fullKey: UnsafeRawBufferPointer,
                                            _ value: UnsafeRawBufferPointer, format: Int, in source: StoredRows,
                                            differs: Bool = false) {
        do {
            let k = try ObjectRecordCodec.decodeKey(key)
            _ = try ObjectRecordCodec.decode(value, key: fullKey, format: format)
            problem(differs ? "\(source.label)object \(k): values differ from the \(source.replay)"
                            : "\(source.label)object \(k) is in the \(source.name) but not in the \(source.replay)")
        } catch {
            problem("\(source.label)object record \(ObjectRecordCodec.describeKey(key)): \(error)")
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
        try checkHead(txn, metaHead)
        let format = try store.format(in: txn)
        try checkMeta(txn, format: format)
        return try checkObjects(txn, format: format)
    }

    /// Checks every object row of `source` (its key, checksum and values) against the replay, and reports what the
    /// replay has that `source` should and does not. Returns the number of rows.
    private mutating func checkObjects(_ txn: LMDBTransaction, format: Int, in source: StoredRows = .head) throws -> Int {
        // The head's check takes the replay apart (it is not needed after); a checkpoint's works on a copy.
        var expected = replayed
        if case .head = source { replayed = [:] }
        let seen = try source.scan(store, txn) { fullKey, k, value in
            do {
                let key = try ObjectRecordCodec.decodeKey(k)
                let record = try ObjectRecordCodec.decode(value, key: fullKey, format: format)
                if let e = expected.removeValue(forKey: key) {
                    if !ObjectValues.areIdentical(e.values, record.values) {
                        problem("\(source.label)object \(key): values differ from the \(source.replay)")
                    } else if e.seq != record.seq {
                        problem("\(source.label)object \(key): last changed at seq \(record.seq), the log says \(e.seq)")
                    }
                } else {
                    problem("\(source.label)object \(key) is in the \(source.name) but not in the \(source.replay)")
                }
            } catch {
                problem("\(source.label)object record \(ObjectRecordCodec.describeKey(k)): \(error)")
            }
        }
        for key in expected.keys.sorted().prefix(Self.problemsMax) where source.mustHold(key) {
            problem("\(source.label)object \(key) is in the \(source.replay) but missing from the \(source.name)")
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
            if key == MetaKey.format || key == MetaKey.head || key == MetaKey.horizon || key == MetaKey.compaction {
                // Read and checked by format(in:), head(in:), horizon(in:) and compactionRecord(in:) before the
                // verifier gets here.
            } else if key == MetaKey.replica {
                do { _ = try store.replicaLink(in: txn) } catch let error as StoreError { problem(error.description) }
            } else if key == MetaKey.features {
                do { try store.checkFeatures(in: txn, format: format) } catch let error as StoreError { problem(error.description) }
            } else if key.starts(with: MetaKey.schemaPrefix), key.count == MetaKey.schemaPrefix.count + 8,
                      let seq = uint64FromBigEndian(key.dropFirst(MetaKey.schemaPrefix.count)) {
                stored.insert(seq)
                do {
                    let payload = try MetaRecord.payload(e.value, key: key, format: format, record: "the schema of position \(seq)")
                    let schema = try Schema(jsonText: String(decoding: payload, as: UTF8.self))
                    // The log no longer holds the schema changes up to the horizon (nor position 0's).
                    let logged = seq > horizon ? logSchemas[seq] : schema
                    if let logged, logged != schema {
                        problem("the schema stored for position \(seq) differs from the schema change the log holds at seq \(seq)")
                    } else if logged == nil {
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
            if let schema = change.newSchema { logSchemas[t.seq] = schema }
            guard let key = change.key else { continue }
            // Taken out and put back, so that an update changes the values in place: read through the dictionary
            // and written back, they were held twice and copied by every update.
            var current = replayed.removeValue(forKey: key)?.values
            switch change {
            case .insert:
                if current != nil { problem("seq \(t.seq): insert of \(key), which exists") }
            case .update(_, let values, let previous):
                if let current {
                    // In name order, so that the first difference named does not depend on hashing.
                    for k in previous.keys.sorted(by: { Value.compareUTF8($0, $1) < 0 })
                    where !(current[k] ?? .null).precedes(update: values[k] ?? .null, previous: previous[k] ?? .null) {
                        problem("seq \(t.seq): update of \(key): previous '\(k)' does not match the replay")
                        break
                    }
                } else {
                    problem("seq \(t.seq): update of \(key), which does not exist")
                }
            case .delete(_, let previous):
                if let current {
                    if !ObjectValues.areIdentical(current, previous) {
                        problem("seq \(t.seq): delete of \(key): previous values do not match the replay")
                    }
                } else {
                    problem("seq \(t.seq): delete of \(key), which does not exist")
                }
            case .schema, .migration: break
            }
            ObjectValues.apply(change, to: &current)
            if let current { replayed[key] = (current, t.seq) }
        }
    }
}

/// The rows a verify compares with the replay of the log: the object rows at the head, or a checkpoint's.
enum StoredRows {
    case head
    /// The checkpoint at `seq`; `passed` is `nil` when it is complete (it must hold every object of the replay to
    /// `seq`), else the object key up to which its build has copied rows (it must hold those at or below it).
    case checkpoint(seq: UInt64, passed: [UInt8]?)

    /// The checkpoint's seq; the head's rows sort after every checkpoint (`UInt64.max`).
    package var seq: UInt64 {
        switch self {
        case .head: .max
        case .checkpoint(let seq, _): seq
        }
    }

    /// What a problem found in these rows starts with.
    var label: String {
        switch self {
        case .head: ""
        case .checkpoint(let seq, _): "the checkpoint at seq \(seq): "
        }
    }

    /// The rows, as problems name them.
    var name: String {
        switch self {
        case .head: "object store"
        case .checkpoint: "checkpoint"
        }
    }

    /// The replay they are compared with, as problems name it.
    var replay: String {
        switch self {
        case .head: "replay of the log"
        case .checkpoint(let seq, _): "replay of the log to seq \(seq)"
        }
    }

    /// Whether the rows must hold `key`, an object of the replay.
    func mustHold(_ key: ObjectKey) -> Bool {
        guard case .checkpoint(_, let passed?) = self else { return true }
        return ObjectRecordCodec.key(key).withUnsafeBytes { k in passed.withUnsafeBytes { ByteReader.compare(k, $0) <= 0 } }
    }

    /// Calls `body` with each row's LMDB key, object key and record, in key order; returns how many there were.
    func scan(_ store: LogStore, _ txn: LMDBTransaction,
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var checkpoint: UInt64?
        if case .checkpoint(let seq, _) = self {
            guard store.checkpointsDB != nil else { return 0 }
            checkpoint = seq
        }
        let (db, prefix) = store.storedRows(at: checkpoint)
        return try txn.scan(db, prefix: prefix) { e in
            try body(e.key, UnsafeRawBufferPointer(rebasing: e.key[prefix.count...]), e.value)
            return .next
        }
    }
}
