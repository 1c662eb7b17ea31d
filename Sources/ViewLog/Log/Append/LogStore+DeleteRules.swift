import LMDB

extension LogStore {
    /// Runs the delete rules of the objects that name `deleted`, just deleted by change `change` of the transaction
    /// `seq` (DESIGN §10): `nullify` logs an update setting the relationship to `null`, `cascade` a delete followed by
    /// its own consequences (depth first); `deny` is checked when the transaction ends
    /// (``ReferenceWrite/integrityProblem(refs:objects:in:)``). Referring entities run in code-point order of their
    /// names, then their relationships in code-point order, then the referring objects in id order; an object already
    /// deleted in the transaction is skipped. Each consequence is appended to `changes`, with `change` as its cause.
    func applyDeleteRules(of deleted: ObjectKey, seq: UInt64, change: Int, objects: inout AppendedObjects,
                          changes: inout [Change], causes: inout [Int], references: inout ReferenceWrite,
                          format: Int, in txn: LMDBTransaction) throws {
        let refs = try refsDatabase()
        // Depth first without recursion (a cascade may run down a chain as long as the store): a stack of the
        // referrers still to visit, one level per cascaded delete.
        var stack: [(referrers: [(key: ObjectKey, relationship: Attribute, target: ObjectID)], next: Int)] = []
        stack.append((try referrers(of: deleted, references: references, refs: refs, in: txn), 0))
        while let top = stack.last {  // bounded: each object is deleted at most once, each (object, relationship) nulled once
            guard top.next < top.referrers.count else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let (key, relationship, target) = top.referrers[top.next]
            objects.reserveOneMore()
            let (slot, isNew) = objects.slot(of: key)
            let current = isNew ? try objectRecord(objects.withKey(of: slot) { Array($0) }, of: key, format: format, in: txn)?.values
                                : objects[slot].values
            if isNew { objects[slot].before = current }
            guard let current, current[relationship.name].flatMap(ObjectID.init) == target else { continue }
            let consequence: Change
            switch relationship.relationship!.deleteRule {
            case .nullify:
                consequence = .update(key, values: [relationship.name: .null], previous: [relationship.name: target.value])
            case .cascade:
                consequence = .delete(key, previous: current)
            case .deny:
                continue
            }
            guard changes.count < Limits.transactionChangesMax else {
                throw ChangeResolver.Refusal(reason: "delete of \(deleted.entity) \(deleted.id.json.text): its delete rules make more than \(Limits.transactionChangesMax) changes in one transaction")
            }
            let after = ObjectValues.applying(consequence, to: current)
            objects[slot].changed(to: after, at: seq, inserted: 0..<0)
            changes.append(consequence)
            causes.append(change)
            references.record(consequence, before: current, after: after, index: change)
            if case .delete = consequence {
                stack.append((try referrers(of: key, references: references, refs: refs, in: txn), 0))
            }
        }
    }

    /// The objects that name `target` through a relationship whose rule is not `deny`, in the order delete rules
    /// visit them, as the write leaves them so far.
    private func referrers(of target: ObjectKey, references: ReferenceWrite, refs: LMDBDatabase,
                           in txn: LMDBTransaction) throws -> [(key: ObjectKey, relationship: Attribute, target: ObjectID)] {
        var out: [(ObjectKey, Attribute, ObjectID)] = []
        for (source, a) in references.referringRelationships[target.entity] ?? [] where a.relationship!.deleteRule != .deny {
            for id in try references.referrers(of: target, source: source, relationship: a.name, db: refs, in: txn) {
                out.append((ObjectKey(entity: source, id: id), a, target.id))
            }
        }
        return out
    }

    /// The `refs` database; a store opened read-only without one cannot be written anyway.
    func refsDatabase() throws -> LMDBDatabase {
        guard let refsDB else { throw StoreError.storage("\(path): the store has no relationships index (open it for writing once to add one)") }
        return refsDB
    }
}
