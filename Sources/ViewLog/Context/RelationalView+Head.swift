@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
import LMDB

extension RelationalView {
    /// The ids of the rows of `entity` whose path values the objects of `delta` may change, found in the index at the
    /// head in `txn` (``LogStore/rowsReached(by:paths:quantified:entity:refs:in:)``, which says why it finds them all).
    func rowsReached(by delta: Delta, entity: String, store: LogStore, refs: LMDBDatabase,
                     in txn: LMDBTransaction) throws -> Set<ObjectID> {
        try store.rowsReached(by: delta, paths: paths, quantified: quantified, entity: entity, refs: refs, in: txn)
    }
}
