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
        func refused(_ reason: String) -> StoreError {
            .invalidStagedChangeByPredicate(entity: request.entity, operation: request.operation,
                                            predicate: request.predicateFormat, reason: reason)
        }
        let schema = try self.schema
        let form: PredicateChange
        do { form = try PredicateChange(request, schema: schema) } catch { throw refused(error.reason) }
        var matched: [ObjectID] = []
        do {
            try form.matcher.fill { entity throws(StoreError) in try objects(of: entity) }
            let lookup = PathLookup.recordingFailures { key in try self.object(key) }
            for (id, v) in try objects(of: form.entity) where form.matcher.matches(v, id: id, lookup: lookup) {
                matched.append(id)
            }
            if let error = lookup.failure() { throw error }
        } catch let error as StoreError {
            throw error
        } catch {
            preconditionFailure("the context's reads throw only StoreError")
        }
        do { try form.check(matches: matched.count) } catch { throw refused(error.reason) }
        let before = staged
        var done: [ObjectID] = []
        do {
            for id in matched {
                guard try object(ObjectKey(entity: form.entity, id: id)) != nil else { continue }  // deleted by an earlier match's rules
                try stage(form.request(for: id))
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
