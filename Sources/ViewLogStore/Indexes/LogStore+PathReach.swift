@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// The incremental way a view over key paths follows a move that ends at the head (DESIGN §10 "Cost"): the rows a
/// change of related objects reaches are found through the relationships index (`refs`), walking each path backwards
/// from the objects the move touched, and only their path values are computed — a department renamed with k
/// employees costs O(k log n), not a scan of the view's entity.
///
/// Why it finds every row whose path values changed: take such a row and the first object along its path whose values
/// differ between the two positions (the row itself, an object on its to-one hops, or a member of the to-many the path
/// ends in). That object is in the move's delta, and the row still reaches it at the head through objects that did not
/// change — so a backwards walk from it over the head's index reaches the row. For a member, the walk starts from the
/// objects it named before and after.
extension LogStore {
    /// The ids of the rows of `entity` whose values along `paths` and `quantified` the objects of `delta` may change,
    /// found in the relationships index (`refs`) at the head in `txn`.
    package func rowsReached(by delta: Delta, paths: [KeyPath], quantified: [QuantifiedPath], entity: String,
                             refs: LMDBDatabase, in txn: LMDBTransaction) throws -> Set<ObjectID> {
        var rows = Set<ObjectID>()
        // Each path's hops as (leaves from, relationship, reaches), and for aggregates and quantifiers the inverse.
        var chains: [(hops: [KeyPath.Hop], inverse: InverseRelationship?)] = paths.map { p in
            if case .aggregate(_, let inverse, _) = p.tail { return (p.hops, inverse) }
            return (p.hops, nil)
        }
        chains += quantified.map { ($0.hops, $0.inverse) }
        // Walks `hops[..<end]` backwards from the objects `ids` of `hops[end - 1].target` (of the row entity when
        // `end` is 0) to the rows.
        func walkBack(_ hops: [KeyPath.Hop], from end: Int, ids: Set<ObjectID>) throws {
            var current = ids
            var j = end
            while j > 0, !current.isEmpty {  // bounded: at most Limits.keyPathRelationshipsMax hops
                j -= 1
                let hop = hops[j]
                var next = Set<ObjectID>()
                for id in current {
                    try referrers(of: ObjectKey(entity: hop.target, id: id), source: hop.entity,
                                        relationship: hop.relationship, refs: refs, in: txn) { next.insert($0) }
                }
                current = next
            }
            rows.formUnion(current)
        }
        for d in delta.objects {
            for (hops, inverse) in chains {
                // A touched object on the to-one hops (or the row entity's own object, which `own` covers).
                for (k, hop) in hops.enumerated() where hop.target == d.key.entity {
                    try walkBack(hops, from: k + 1, ids: [d.key.id])
                }
                // A touched member of the to-many: the objects it named before and after.
                if let inverse, inverse.source == d.key.entity {
                    var targets = Set<ObjectID>()
                    for values in [d.before, d.after] {
                        if let v = values?[inverse.relationship], let t = ObjectID(v) { targets.insert(t) }
                    }
                    if !targets.isEmpty { try walkBack(hops, from: hops.count, ids: targets) }
                }
            }
        }
        return rows
    }
}


extension LogStore {
    /// Calls `body` with the id of each object of `source` whose `relationship` names `target` at the head in `txn`,
    /// in id order.
    package func referrers(of target: ObjectKey, source: String, relationship: String, refs: LMDBDatabase,
                   in txn: LMDBTransaction, _ body: (ObjectID) -> Void) throws {
        let prefix = ReferenceKey.prefix(target: target, source: source, relationship: relationship)
        try txn.scan(refs, prefix: prefix) { e in
            body(try Self.referenceSourceID(e))
            return .next
        }
    }

    /// The source id of an entry of the relationships index, checked; a damaged entry is a
    /// ``StoreError/corrupt(seq:reason:)``.
    package static func referenceSourceID(_ e: LMDBCursor.Entry) throws -> ObjectID {
        do { return try ReferenceKey.sourceID(key: e.key, value: e.value) } catch {
            throw StoreError.corrupt(seq: nil, reason: "an entry of the relationships index (refs): \(error)")
        }
    }

    /// A look-up of objects at the head in `txn`, reading each related object once (the objects of `viewEntity`, each
    /// looked up once by a move, are not kept).
    package func headPathLookup(viewEntity: String, in txn: LMDBTransaction) throws -> PathLookup {
        let format = try self.format(in: txn)
        final class Cache {
            var objects: [ObjectKey: ObjectValues?] = [:]
            var failure: (any Error)?
        }
        let cache = Cache()
        return PathLookup(object: { key in
            if let known = cache.objects[key] { return known }
            // The view's own rows are read once each: only related objects (read by many rows) are kept.
            if key.entity == viewEntity {
                do { return try self.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values } catch {
                    cache.failure = error
                    return nil
                }
            }
            let values: ObjectValues?
            do { values = try self.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values } catch {
                cache.failure = error
                values = nil
            }
            cache.objects[key] = values
            return values
        }, failure: { cache.failure })
    }
}
