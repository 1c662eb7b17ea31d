import LMDB

extension LogStore {
    /// Appends `requests` as one transaction on behalf of a context at `position`, applying `policy` to every
    /// object that a transaction after `position` changed — all inside one write, so the check and the append
    /// are atomic. Returns `nil` when the policy dropped every change (nothing appended). `contextObjects`
    /// holds, for ``MergePolicy/overwrite``, each staged object's whole state as the context sees it (nil:
    /// deleted).
    func save(_ requests: [ChangeRequest], author: String, basedOn position: UInt64,
              policy: MergePolicy, contextObjects: [ObjectKey: ObjectValues?] = [:]) throws(StoreError) -> Transaction? {
        guard !requests.isEmpty else { return nil }
        let time = Timestamp.now
        let saved = try perform { txn -> Transaction? in
            let head = try self.head(in: txn)
            precondition(position <= head, "a context cannot be ahead of the head")
            var adjusted: [ChangeRequest] = []
            var conflicts: [Conflict] = []
            // Attributes others changed after `position`, per object: read lazily, only when a conflict exists.
            var theirs: [ObjectKey: (attributes: Set<String>, structural: Bool, seq: UInt64)]?
            for request in requests {
                let key = request.key
                let record = try self.objectRecord(key, in: txn)
                let changedAfter = record.map { $0.seq > position } ?? false
                var deletedAfter = false
                if record == nil, position < head {
                    if theirs == nil { theirs = try self.changedAttributes(after: position, in: txn) }
                    deletedAfter = theirs?[key] != nil
                }
                guard changedAfter || deletedAfter else { adjusted.append(request); continue }
                if theirs == nil { theirs = try self.changedAttributes(after: position, in: txn) }
                guard let their = theirs?[key] else { adjusted.append(request); continue }
                let mine = Self.attributes(of: request)
                let overlap = mine.intersection(their.attributes).sorted()
                let structural = their.structural || mine.isEmpty || { if case .update = request { return false } else { return true } }()
                let conflict = Conflict(key: key, attributes: structural ? [] : overlap, seq: their.seq)
                switch policy {
                case .error:
                    conflicts.append(conflict)
                case .rollback:
                    continue  // drop the context's change of this object
                case .mergeByPropertyStoreTrump:
                    // Structural changes on either side: the store's version wins whole.
                    guard !structural, case let .update(e, id, values) = request else { continue }
                    let kept = values.filter { !their.attributes.contains($0.key) }
                    if !kept.isEmpty { adjusted.append(.update(entity: e, id: id, values: kept)) }
                case .mergeByPropertyObjectTrump:
                    adjusted.append(contentsOf: Self.forcing(request, current: record?.values))
                case .overwrite:
                    guard let whole = contextObjects[key] else {
                        preconditionFailure("overwrite needs the context's state of every staged object")
                    }
                    adjusted.append(contentsOf: Self.overwriting(key, with: whole, current: record?.values))
                case .mergeDisjointProperties:
                    if structural || !overlap.isEmpty { conflicts.append(conflict) } else { adjusted.append(request) }
                }
            }
            if !conflicts.isEmpty { throw StoreError.conflict(conflicts) }
            guard !adjusted.isEmpty else { return nil }
            return try self.appendInTransaction(txn, [TransactionRequest(author: author, changes: adjusted)], time: time)[0]
        }
        if let saved { notifyHead(saved.seq) }
        return saved
    }

    /// The attributes a request sets; empty for a delete.
    static func attributes(of request: ChangeRequest) -> Set<String> {
        switch request {
        case .insert(_, _, let v), .update(_, _, let v): return Set(v.keys)
        case .delete: return []
        }
    }

    /// A request rewritten so that it applies whatever the store did (context wins).
    static func forcing(_ request: ChangeRequest, current: ObjectValues?) -> [ChangeRequest] {
        switch request {
        case let .insert(e, id, values):
            return current == nil ? [request] : [.update(entity: e, id: id, values: values)]
        case let .update(e, id, values):
            return current == nil ? [.insert(entity: e, id: id, values: values)] : [request]
        case .delete:
            return current == nil ? [] : [request]
        }
    }

    /// The requests that make the store's object `key` exactly `whole` (the context's state; nil: deleted).
    static func overwriting(_ key: ObjectKey, with whole: ObjectValues?, current: ObjectValues?) -> [ChangeRequest] {
        switch (whole, current) {
        case (nil, nil): return []
        case (nil, _?): return [.delete(entity: key.entity, id: key.id)]
        case (let values?, nil): return [.insert(entity: key.entity, id: key.id, values: values)]
        case (let values?, _?): return [.update(entity: key.entity, id: key.id, values: values)]
        }
    }

    /// Per object changed after `position`: the attributes updates set, whether it was inserted or deleted,
    /// and the last seq that changed it.
    func changedAttributes(after position: UInt64, in txn: LMDBTransaction) throws -> [ObjectKey: (attributes: Set<String>, structural: Bool, seq: UInt64)] {
        var out: [ObjectKey: (attributes: Set<String>, structural: Bool, seq: UInt64)] = [:]
        let head = try self.head(in: txn)
        for t in try readTransactions(txn, from: position + 1, through: head) {
            for change in t.changes {
                guard let key = change.key else { continue }
                var entry = out[key] ?? ([], false, t.seq)
                entry.seq = t.seq
                switch change {
                case .update(_, let values, _): entry.attributes.formUnion(values.keys)
                default: entry.structural = true
                }
                out[key] = entry
            }
        }
        return out
    }
}
