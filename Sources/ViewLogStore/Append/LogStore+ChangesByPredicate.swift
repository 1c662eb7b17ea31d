@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// Changes by predicate inside an append's write (DESIGN §14): a form is resolved when the write reaches it — against
/// the store's state before the write with the write's own changes so far on top — into one request per matching
/// object in id order, which the write then applies as if the input had named them.
extension LogStore {
    /// The requests `request` (a change by predicate) resolves to at this point of the write: one update or delete
    /// per object of its entity that its predicate matches in the state of `objects` over the rows in `txn`, in id
    /// order.
    /// - Throws: ``ChangeResolver/Refusal`` when the predicate does not check against the schema, an update's values
    ///   do not (checked even when nothing matches), or more objects match than its `max`.
    func requests(matching request: ChangeRequest, objects: borrowing AppendedObjects, schema: Schema, format: Int,
                  in txn: LMDBTransaction) throws -> [ChangeRequest] {
        let entityName = request.entity, predicate: ViewPredicate, max: Int?
        var values: ObjectValues?
        switch request {
        case let .updateMatching(_, p, v, m):
            (predicate, values, max) = (p, v, m)
        case let .deleteMatching(_, p, m):
            (predicate, max) = (p, m)
        case .insert, .update, .delete:
            preconditionFailure("\(request.operation) of one object is not a change by predicate")
        }
        let what = "\(request.operation) of \(entityName) where \(predicate.format)"
        guard let entity = schema.entities[entityName] else {
            throw ChangeResolver.Refusal(reason: "\(what): unknown entity '\(entityName)'")
        }
        if let v = values {
            guard !v.isEmpty else {
                throw ChangeResolver.Refusal(reason: "\(what): sets no values (an update needs at least one attribute)")
            }
            do { values = try entity.checkedValues(v) } catch { throw ChangeResolver.Refusal(reason: "\(what): \(error)") }
        }
        if let max, max < 0 { throw ChangeResolver.Refusal(reason: "\(what): max must not be negative, got \(max)") }
        let matcher: ObjectMatcher
        do { matcher = try ObjectMatcher(entity: entityName, predicate: predicate, schema: schema) } catch {
            throw ChangeResolver.Refusal(reason: "\(what): \(error)")
        }
        // The write's objects so far, by key: they stand over the rows in `txn`, which hold the state before it.
        var written: [ObjectKey: ObjectValues?] = [:]
        written.reserveCapacity(objects.count)
        for slot in 0..<objects.count {  // bounded by the write's objects
            let key = try objects.withKey(of: slot) { k throws(CodecError) in try ObjectRecordCodec.decodeKey(k) }
            written[key] = .some(objects[slot].values)
        }
        func state(of entity: String) throws -> [(id: ObjectID, values: ObjectValues)] {
            var out: [(id: ObjectID, values: ObjectValues)] = []
            for (id, v) in try headObjects(of: entity, in: txn) where written[ObjectKey(entity: entity, id: id)] == nil {
                out.append((id, v))
            }
            for (key, v) in written where key.entity == entity {
                if let v { out.append((key.id, v)) }
            }
            out.sort { $0.id < $1.id }
            return out
        }
        try matcher.fill(state)
        final class Failure { var first: (any Error)? }
        let failure = Failure()
        let lookup = PathLookup(object: { [written] key in
            if let known = written[key] { return known }
            do { return try self.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values } catch {
                if failure.first == nil { failure.first = error }
                return nil
            }
        }, failure: { failure.first })
        var matched: [ObjectID] = []
        if matcher.isFlat, !written.keys.contains(where: { $0.entity == entityName }) {
            // The common form: the entity's own attributes, none of its objects changed yet in this write — one scan of
            // the rows, each decoding only the attributes the predicate reads (as an initial fetch does), in id order.
            try forEachHeadObject(of: entityName, reading: matcher.attributesRead(of: entity), in: txn) { id, fetched in
                if matcher.matches(fetched, id: id) { matched.append(id) }
            }
            matched.sort()
        } else {
            for (id, v) in try state(of: entityName) where matcher.matches(v, id: id, lookup: lookup) {
                matched.append(id)
            }
        }
        if let error = failure.first { throw error }
        if let max, matched.count > max {
            throw ChangeResolver.Refusal(reason: "\(what): \(matched.count) objects match, more than its max \(max)")
        }
        if let values {
            return matched.map { .update(entity: entityName, id: $0, values: values) }
        }
        return matched.map { .delete(entity: entityName, id: $0) }
    }
}
