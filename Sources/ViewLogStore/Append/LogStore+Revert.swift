@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Revert, undo and redo (DESIGN §14): one appended transaction whose changes are the inverses of the reverted
/// transactions' logged changes, and whose log entry lists them (`reverts`). Conflicts are judged by the log, so the
/// history survives restarts and works across processes and replicas.
extension LogStore {
    /// Appends one transaction that undoes the transactions `seqs`: the inverse of each of their logged changes,
    /// each listed transaction newest first and within it the last change first (an insert becomes a delete, a delete
    /// an insert of the values it removed, an update sets back the values it overwrote), applying no delete rule of
    /// its own — the rules' consequences logged in those transactions are undone with them.
    /// - Returns: the transaction appended; its ``Transaction/reverts`` lists `seqs` descending.
    /// - Throws: ``StoreError/revertConflict(_:attribute:seq:)`` when a later transaction not listed changed an
    ///   attribute it would set back, or changed at all an object it would insert or delete;
    ///   ``StoreError/cannotRevert(seq:reason:)`` for a seq that is not in the log, a schema change, or a revert
    ///   whose result would break integrity. Nothing is appended on any error.
    @discardableResult
    public func revert(_ seqs: [UInt64], author: String) throws(StoreError) -> Transaction {
        guard let appended = try revert(seqs, author: author, conflicts: .refuse) else {
            preconditionFailure("a revert that refuses conflicts leaves nothing out")
        }
        return appended
    }

    /// Reverts `author`'s newest transaction that is an ordinary one (no ``Transaction/reverts``) or a redo, and that
    /// no later transaction reverts.
    /// - Throws: ``StoreError/cannotRevert(seq:reason:)`` when there is nothing to undo (or it is a schema change);
    ///   what ``revert(_:author:)`` throws.
    @discardableResult
    public func undo(author: String) throws(StoreError) -> Transaction {
        try revert([try stepTarget(author: author, redo: false)], author: author)
    }

    /// Reverts `author`'s newest undo (a revert of an ordinary transaction or of a redo) that no later transaction
    /// reverts.
    /// - Throws: ``StoreError/cannotRevert(seq:reason:)`` when there is nothing to redo; what
    ///   ``revert(_:author:)`` throws.
    @discardableResult
    public func redo(author: String) throws(StoreError) -> Transaction {
        try revert([try stepTarget(author: author, redo: true)], author: author)
    }

    /// The seq an undo (`redo` false) or a redo of `author` reverts now: what ``undo(author:)`` and ``redo(author:)``,
    /// a context's and the CLI's (through a replica's stream too) revert.
    /// - Throws: ``StoreError/cannotRevert(seq:reason:)`` when there is none.
    package func stepTarget(author: String, redo: Bool) throws(StoreError) -> UInt64 {
        guard let target = redo ? try redoTarget(author: author) : try undoTarget(author: author) else {
            throw .cannotRevert(seq: nil, reason: "\(author) has nothing to \(redo ? "redo" : "undo")")
        }
        return target
    }

    /// The seq ``undo(author:)`` would revert now, or `nil`.
    public func undoTarget(author: String) throws(StoreError) -> UInt64? {
        try historyTarget(author: author) { $0 == .ordinary || $0 == .redo }
    }

    /// The seq ``redo(author:)`` would revert now, or `nil`.
    public func redoTarget(author: String) throws(StoreError) -> UInt64? {
        try historyTarget(author: author) { $0 == .undo }
    }

    /// What a transaction is in an author's undo history.
    enum HistoryKind { case ordinary, undo, redo }

    /// `author`'s newest transaction of a kind `wanted` accepts that no later transaction reverts, reading the log
    /// backwards from the head to the horizon (bounded by the head: each entry is read at most once, its kind
    /// remembered). A kind that depends on a transaction below the horizon is ``StoreError/compacted(position:horizon:)``.
    private func historyTarget(author: String, _ wanted: (HistoryKind) -> Bool) throws(StoreError) -> UInt64? {
        try perform(read: true) { txn in
            let head = try self.head(in: txn)
            var revertedLater = Set<UInt64>()
            var kinds: [UInt64: HistoryKind] = [:]
            var cache: [UInt64: Transaction] = [:]
            func transaction(_ seq: UInt64) throws -> Transaction {
                if let t = cache[seq] { return t }
                let t = try self.readTransactions(txn, from: seq, through: seq)[0]
                cache[seq] = t
                return t
            }
            // An undo reverts ordinary transactions or redos; a redo reverts undos (a revert's kind follows from the
            // first transaction it lists). Iterative: a chain of reverts of reverts is as long as the log at most.
            func kind(_ seq: UInt64) throws -> HistoryKind {
                var chain: [UInt64] = []
                var at = seq
                while kinds[at] == nil {  // bounded: each step goes to a lower seq
                    let t = try transaction(at)
                    guard let first = t.reverts.first else {
                        kinds[at] = .ordinary
                        break
                    }
                    chain.append(at)
                    at = first
                }
                var k = kinds[at]!
                for s in chain.reversed() {
                    k = (k == .undo) ? .redo : .undo
                    kinds[s] = k
                }
                return kinds[seq]!
            }
            // The history the log still holds: a compacted store's starts after its horizon.
            let horizon = try self.horizon(in: txn)
            var seq = head
            while seq > horizon {  // bounded by the head
                let t = try transaction(seq)
                if t.author == author, !revertedLater.contains(seq), try wanted(kind(seq)) { return seq }
                revertedLater.formUnion(t.reverts)
                cache[seq] = nil
                seq -= 1
            }
            return nil
        }
    }

    /// The request that reverts `seqs` now, checked against the log for conflicts (what ``revert(_:author:)``
    /// appends; a replica appends it through its stream).
    /// - Throws: as ``revert(_:author:)``.
    public func revertRequest(_ seqs: [UInt64], author: String) throws(StoreError) -> TransactionRequest {
        try perform(read: true) { txn in try self.revertRequest(seqs, author: author, in: txn)! }
    }

    /// What a revert does about a later change of what it would set back.
    package enum RevertConflicts {
        /// Refuse: ``StoreError/revertConflict(_:attribute:seq:)`` (`revert`, `undo`, `redo`; a context's `.error`).
        case refuse
        /// The later change stays: the revert leaves out what it touched (a context's store-trump policies).
        case keepLater
        /// The revert wins: it sets back what it would whatever came later, against the objects as they are now (a
        /// context's object-trump policies).
        case force
    }

    /// Appends the revert of `seqs` with `conflicts` deciding about later changes; `nil` when nothing is left to
    /// append (every change of it left out).
    package func revert(_ seqs: [UInt64], author: String, conflicts: RevertConflicts) throws(StoreError) -> Transaction? {
        let time = Timestamp.now
        let appended = try perform { txn -> Transaction? in
            guard let request = try self.revertRequest(seqs, author: author, conflicts: conflicts, in: txn) else { return nil }
            do {
                return try self.appendInTransaction(txn, [request], time: time)[0]
            } catch let error as StoreError {
                if case .invalidChange(_, _, let reason) = error { throw StoreError.cannotRevert(seq: nil, reason: reason) }
                throw error
            }
        }
        if let appended { notifyHead(appended.seq) }
        return appended
    }

    /// The request that reverts `seqs` at the head in `txn`, after checking the log for conflicts.
    func revertRequest(_ seqs: [UInt64], author: String, conflicts: RevertConflicts = .refuse,
                       in txn: LMDBTransaction) throws -> TransactionRequest? {
        let head = try self.head(in: txn)
        let listed = Array(Set(seqs)).sorted(by: >)
        guard !listed.isEmpty else { throw StoreError.cannotRevert(seq: nil, reason: "no transaction to revert") }
        guard listed.count <= Limits.revertsMax else {
            throw StoreError.cannotRevert(seq: nil, reason: "more than \(Limits.revertsMax) transactions in one revert")
        }
        for s in listed where s < 1 || s > head {
            throw StoreError.cannotRevert(seq: s, reason: "no transaction \(s) in the log (the head is \(head))")
        }
        // What the revert sets back: per object, the whole object (an insert or delete's inverse), attributes (an
        // update's) or a set's members (those an update added or removed: DESIGN §10, a revert conflicts per member),
        // each with the oldest listed seq that sets it back — a later change of it conflicts.
        struct SetBack {
            var whole: UInt64?
            var attributes: [String: UInt64] = [:]
            var members: [String: [ObjectID: UInt64]] = [:]
            var oldest: UInt64? { (attributes.values + members.values.flatMap(\.values)).min() }
        }
        var requests: [ChangeRequest] = []
        var setsBack: [ObjectKey: SetBack] = [:]
        for s in listed {  // newest first: the oldest seq that sets a thing back is the last written
            let t = try readTransactions(txn, from: s, through: s)[0]
            for change in t.changes.reversed() {
                switch change {
                case let .insert(key, _):
                    requests.append(.delete(entity: key.entity, id: key.id))
                    setsBack[key, default: SetBack()].whole = s
                case let .delete(key, previous):
                    requests.append(.insert(entity: key.entity, id: key.id, values: previous))
                    setsBack[key, default: SetBack()].whole = s
                case let .update(key, values, previous):
                    // Values set back, and a set's members added removed and removed added again.
                    requests.append(change.inverse.request!)
                    for name in previous.keys {
                        guard case .set = values[name]! else { setsBack[key, default: SetBack()].attributes[name] = s; continue }
                        for m in values[name]!.memberIDs + previous[name]!.memberIDs { setsBack[key, default: SetBack()].members[name, default: [:]][m] = s }
                    }
                case .schema, .migration:
                    throw StoreError.cannotRevert(seq: s, reason: "transaction \(s) changes the schema, which cannot be reverted")
                }
            }
        }
        // Conflicts, judged by the log: a later transaction not listed that touched what the revert sets back.
        // Kept later (`keepLater`): the objects, attributes and members to leave out.
        var keptObjects = Set<ObjectKey>(), keptAttributes: [ObjectKey: Set<String>] = [:]
        var keptMembers: [ObjectKey: [String: Set<ObjectID>]] = [:]
        func conflict(_ key: ObjectKey, _ attribute: String?, _ seq: UInt64, whole: Bool, member: ObjectID? = nil) throws {
            switch conflicts {
            case .refuse: throw StoreError.revertConflict(key, attribute: attribute, seq: seq)
            case .keepLater:
                if whole || attribute == nil {
                    keptObjects.insert(key)
                } else if let member {
                    keptMembers[key, default: [:]][attribute!, default: []].insert(member)
                } else {
                    keptAttributes[key, default: []].insert(attribute!)
                }
            case .force: break
            }
        }
        let listedSet = Set(listed)
        var next = listed.last! + 1
        while next <= head {  // bounded by the head, a chunk of entries per step
            let through = min(head, next + UInt64(Self.scanChunkEntries) - 1)
            for t in try readTransactions(txn, from: next, through: through) where !listedSet.contains(t.seq) {
                for change in t.changes {
                    guard let key = change.key, let back = setsBack[key] else { continue }
                    if let whole = back.whole, t.seq > whole {
                        var attribute: String?
                        if case .update(_, let values, _) = change { attribute = values.keys.sorted().first }
                        try conflict(key, attribute, t.seq, whole: true)
                        continue
                    }
                    switch change {
                    case let .update(_, values, previous):
                        for name in values.keys.sorted() {
                            if case .set = values[name]! {
                                // A later change of a set conflicts only where it added or removed a member set back.
                                for m in (values[name]!.memberIDs + previous[name]!.memberIDs).sorted()
                                where (back.members[name]?[m].map { t.seq > $0 } ?? false) {
                                    try conflict(key, name, t.seq, whole: false, member: m)
                                }
                            } else if back.attributes[name].map({ t.seq > $0 }) ?? false {
                                try conflict(key, name, t.seq, whole: false)
                            }
                        }
                    case .insert, .delete:
                        if let oldest = back.oldest, t.seq > oldest {
                            try conflict(key, nil, t.seq, whole: true)
                        }
                    case .schema, .migration:
                        break
                    }
                }
            }
            next = through + 1
        }
        switch conflicts {
        case .refuse:
            break
        case .keepLater:
            requests = requests.compactMap { r in
                guard !keptObjects.contains(r.key) else { return nil }
                let kept = keptAttributes[r.key] ?? [], members = keptMembers[r.key] ?? [:]
                switch r {
                case let .update(e, id, values):
                    let left = values.filter { !kept.contains($0.key) }
                    return left.isEmpty ? nil : .update(entity: e, id: id, values: left)
                case let .updateMembers(e, id, values, add, remove):
                    // A set's members a later change touched are left as they are; the others are set back.
                    let left = values.filter { !kept.contains($0.key) }
                    var adding = ObjectValues(), removing = ObjectValues()
                    for (name, v) in add { adding[name] = .set(v.memberIDs.filter { !(members[name]?.contains($0) ?? false) }) }
                    for (name, v) in remove { removing[name] = .set(v.memberIDs.filter { !(members[name]?.contains($0) ?? false) }) }
                    let changesSets = (adding.values.contains { !$0.memberIDs.isEmpty }) || (removing.values.contains { !$0.memberIDs.isEmpty })
                    return left.isEmpty && !changesSets ? nil
                        : .updateMembers(entity: e, id: id, values: left, add: adding, remove: removing)
                default:
                    return r
                }
            }
        case .force:
            // Against the objects as they are now (with the revert's own changes before each): an insert of an object
            // that exists sets its values, an update or delete of one that does not is left out.
            var now: [ObjectKey: ObjectValues?] = [:]
            var forced: [ChangeRequest] = []
            for r in requests {
                let key = r.key
                let current: ObjectValues?
                if let known = now[key] { current = known } else { current = try objectRecord(ObjectRecordCodec.key(key), of: key, in: txn)?.values }
                switch r {
                case let .insert(e, id, values):
                    forced.append(current == nil ? r : .update(entity: e, id: id, values: values))
                    now[key] = .some(values)
                case let .update(_, _, values):
                    guard let current else { continue }
                    forced.append(r)
                    now[key] = .some(current.merging(values) { $1 })
                case .delete:
                    guard current != nil else { continue }
                    forced.append(r)
                    now[key] = .some(nil)
                case let .updateMembers(_, _, values, add, remove):
                    guard var next = current else { continue }
                    forced.append(r)
                    next.merge(values) { $1 }
                    for (name, added) in add { next[name] = (next[name] ?? .null).applyingMembers(added: added, removed: .set([])) }
                    for (name, removed) in remove { next[name] = (next[name] ?? .null).applyingMembers(added: .set([]), removed: removed) }
                    now[key] = .some(next)
                case .updateMatching, .deleteMatching:
                    preconditionFailure("a revert makes inserts, updates and deletes of one object")
                }
            }
            requests = forced
        }
        guard !requests.isEmpty else { return nil }
        return TransactionRequest(author: author, changes: requests, reverts: listed)
    }
}
