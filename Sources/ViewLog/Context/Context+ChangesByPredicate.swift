@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore

/// Changes by predicate staged in a context (DESIGN §14, Core Data's `NSBatchUpdateRequest` and
/// `NSBatchDeleteRequest` without their flaw: they go through the context, so its controllers show them before the
/// save, and every other view sees them as ordinary changes once saved).
///
/// A context resolves the form when it is staged, against its own state (its position and its unsaved changes,
/// delete rules' effects included): each match is staged as ``update(_:id:values:)`` or ``delete(_:id:)`` in id
/// order, and the save logs those changes, under the context's merge policy like any other. (An append of the form
/// itself — `viewlog append`, ``LogStore/append(_:)-([TransactionRequest])`` — resolves it inside the write.)
extension Context {
    /// Stages an update setting `values` on every object of `entity` that `predicate` matches in this context.
    /// - Parameters:
    ///   - entity: the entity whose objects it updates.
    ///   - predicate: which of them: the query language of DESIGN §4 and §10, without variables or `id`.
    ///   - values: the attributes to set on each.
    ///   - max: refuse (staging nothing) when more objects match.
    /// - Returns: the ids of the objects updated, in id order.
    /// - Throws: ``StoreError/invalidStagedChangeByPredicate(entity:operation:predicate:reason:)`` when the predicate
    ///   or the values do not check against the schema, or more than `max` objects match; nothing is staged.
    @discardableResult
    public func update(_ entity: String, where predicate: ViewPredicate, values: ObjectValues,
                       max: Int? = nil) throws(StoreError) -> [ObjectID] {
        try stageMatching(.updateMatching(entity: entity, predicate: predicate, values: values, max: max))
    }

    /// Stages the delete of every object of `entity` that `predicate` matches in this context, each with its delete
    /// rules (a match an earlier one's cascade already deleted is skipped).
    /// - Parameters:
    ///   - entity: the entity whose objects it deletes.
    ///   - predicate: which of them, as for ``update(_:where:values:max:)``.
    ///   - max: refuse (staging nothing) when more objects match.
    /// - Returns: the ids of the objects deleted by the form itself, in id order.
    /// - Throws: as ``update(_:where:values:max:)``; nothing is staged.
    @discardableResult
    public func delete(_ entity: String, where predicate: ViewPredicate, max: Int? = nil) throws(StoreError) -> [ObjectID] {
        try stageMatching(.deleteMatching(entity: entity, predicate: predicate, max: max))
    }

    /// Stages each match of `request`, a change by predicate, all or none.
    func stageMatching(_ request: ChangeRequest) throws(StoreError) -> [ObjectID] {
        let predicate: ViewPredicate, values: ObjectValues?, max: Int?
        switch request {
        case let .updateMatching(_, p, v, m): (predicate, values, max) = (p, v, m)
        case let .deleteMatching(_, p, m): (predicate, values, max) = (p, nil, m)
        case .insert, .update, .delete: preconditionFailure("\(request.operation) of one object is not a change by predicate")
        }
        func refused(_ reason: String) -> StoreError {
            .invalidStagedChangeByPredicate(entity: request.entity, operation: request.operation, predicate: predicate.format,
                                            reason: reason)
        }
        let schema = try self.schema
        guard let entity = schema.entities[request.entity] else { throw refused("unknown entity '\(request.entity)'") }
        if let values {
            guard !values.isEmpty else { throw refused("sets no values (an update needs at least one attribute)") }
            do { _ = try entity.checkedValues(values) } catch { throw refused(error.description) }
        }
        if let max, max < 0 { throw refused("max must not be negative, got \(max)") }
        let matcher: ObjectMatcher
        do { matcher = try ObjectMatcher(entity: request.entity, predicate: predicate, schema: schema) } catch {
            throw refused(error.description)
        }
        var matched: [ObjectID] = []
        do {
            try matcher.fill { entity throws(StoreError) in try objects(of: entity) }
            final class Failure { var first: StoreError? }
            let failure = Failure()
            let lookup = PathLookup(object: { key in
                do throws(StoreError) { return try self.object(key) } catch {
                    if failure.first == nil { failure.first = error }
                    return nil
                }
            }, failure: { failure.first })
            for (id, v) in try objects(of: request.entity) where matcher.matches(v, id: id, lookup: lookup) {
                matched.append(id)
            }
            if let error = failure.first { throw error }
        } catch let error as StoreError {
            throw error
        } catch {
            preconditionFailure("the context's reads throw only StoreError")
        }
        if let max, matched.count > max { throw refused("\(matched.count) objects match, more than its max \(max)") }
        let before = staged
        var done: [ObjectID] = []
        do {
            for id in matched {
                let key = ObjectKey(entity: request.entity, id: id)
                guard try object(key) != nil else { continue }  // deleted by an earlier match's rules
                if let values {
                    try stage(.update(entity: request.entity, id: id, values: values))
                } else {
                    try stage(.delete(entity: request.entity, id: id))
                }
                done.append(id)
            }
        } catch {
            staged = before  // all or none
            if case let .invalidStagedChange(key, _, reason) = error {
                throw refused("\(key.entity) \(key.id.json.text): \(reason)")
            }
            throw error
        }
        return done
    }
}
