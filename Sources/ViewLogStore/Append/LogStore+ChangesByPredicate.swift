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
        // The append names the form in its refusals.
        func named(_ refusal: ChangeResolver.Refusal) -> ChangeResolver.Refusal {
            ChangeResolver.Refusal(reason: "\(request.operation) of \(request.entity) where \(request.predicateFormat): \(refusal.reason)")
        }
        let form: PredicateChange
        do { form = try PredicateChange(request, schema: schema) } catch { throw named(error) }
        let entityName = form.entity, entity = form.description, matcher = form.matcher
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
        let lookup = PathLookup.recordingFailures { [written] key in
            if let known = written[key] { return known }
            return try self.objectRecord(ObjectRecordCodec.key(key), of: key, format: format, in: txn)?.values
        }
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
        if let error = lookup.failure() { throw error }
        do { try form.check(matches: matched.count) } catch { throw named(error) }
        return matched.map(form.request(for:))
    }
}

/// A change by predicate checked against a schema (DESIGN §14): its entity, the values an update sets (checked), its
/// `max` and its matcher — the one set of checks of a form, for the store's write and a context's staging alike.
package struct PredicateChange {
    package let entity: String
    package let description: EntityDescription
    package let predicate: ViewPredicate
    /// The update's values, checked against the entity; `nil` for a delete.
    package let values: ObjectValues?
    package let max: Int?
    package let matcher: ObjectMatcher

    /// - Throws: ``ChangeResolver/Refusal`` saying what is wrong (the caller names the form): an unknown entity, an
    ///   update without values or with values the entity refuses (checked even when nothing will match), a negative
    ///   `max`, a predicate that does not check (``ObjectMatcher/init(entity:predicate:schema:)``).
    /// - Precondition: `request` is a change by predicate.
    package init(_ request: ChangeRequest, schema: Schema) throws(ChangeResolver.Refusal) {
        let given: ObjectValues?
        switch request {
        case let .updateMatching(_, p, v, m): (predicate, given, max) = (p, v, m)
        case let .deleteMatching(_, p, m): (predicate, given, max) = (p, nil, m)
        case .insert, .update, .updateMembers, .delete: preconditionFailure("\(request.operation) of one object is not a change by predicate")
        }
        entity = request.entity
        guard let described = schema.entities[entity] else {
            throw ChangeResolver.Refusal(reason: "unknown entity '\(entity)'")
        }
        description = described
        if let given {
            guard !given.isEmpty else { throw ChangeResolver.Refusal(reason: "sets no values (an update needs at least one attribute)") }
            do { values = try described.checkedValues(given) } catch { throw ChangeResolver.Refusal(reason: error.description) }
        } else {
            values = nil
        }
        if let max, max < 0 { throw ChangeResolver.Refusal(reason: "max must not be negative, got \(max)") }
        do { matcher = try ObjectMatcher(entity: entity, predicate: predicate, schema: schema) } catch {
            throw ChangeResolver.Refusal(reason: error.description)
        }
    }

    /// Refuses `count` matches when there are more than `max`.
    package func check(matches count: Int) throws(ChangeResolver.Refusal) {
        if let max, count > max { throw ChangeResolver.Refusal(reason: "\(count) objects match, more than its max \(max)") }
    }

    /// The change of the object `id`, a match: an update setting ``values``, or a delete.
    package func request(for id: ObjectID) -> ChangeRequest {
        values.map { .update(entity: entity, id: id, values: $0) } ?? .delete(entity: entity, id: id)
    }
}
