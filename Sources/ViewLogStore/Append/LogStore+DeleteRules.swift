@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

extension LogStore {
    /// Runs the delete rules of the objects that name `deleted`, just deleted by change `change` of the transaction
    /// `seq` (DESIGN §10, ``DeleteRuleWalk``): the referrers are found in the `refs` index as the write leaves it so
    /// far, and each consequence is appended to `changes`, with `change` as its cause, and applied to the write's
    /// objects and index entries.
    func applyDeleteRules(of deleted: ObjectKey, seq: UInt64, change: Int, objects: inout AppendedObjects,
                          changes: inout [Change], causes: inout [Int], references: inout ReferenceWrite,
                          format: Int, in txn: LMDBTransaction) throws {
        let refs = try refsDatabase()
        try DeleteRuleWalk(referringRelationships: references.referringRelationships).run(
            from: deleted, changesMax: Limits.transactionChangesMax - changes.count,
            referrers: { target, source, relationship in
                try references.referrers(of: target, source: source, relationship: relationship.name, db: refs, in: txn)
            },
            values: { key in
                objects.reserveOneMore()
                let (slot, isNew) = objects.slot(of: key)
                let current = isNew ? try objectRecord(objects.withKey(of: slot) { Array($0) }, of: key, format: format, in: txn)?.values
                                    : objects[slot].values
                if isNew { objects[slot].before = current }
                return (current, slot)
            },
            apply: { consequence, slot in
                let after = consequence.after
                objects[slot].changed(to: after, at: seq, inserted: 0..<0)
                changes.append(consequence.change)
                causes.append(change)
                references.record(consequence.change, before: consequence.before, after: after, index: change)
            })
    }

    /// The `refs` database; a store opened read-only without one cannot be written anyway.
    func refsDatabase() throws -> LMDBDatabase {
        guard let refsDB else { throw StoreError.storage("\(path): the store has no relationships index (open it for writing once to add one)") }
        return refsDB
    }
}
