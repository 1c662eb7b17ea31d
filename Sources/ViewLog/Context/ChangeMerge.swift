@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// The pure rule of ``MergePolicy``: what one staged request becomes when transactions after the context's
/// position changed the same object. The store runs it inside the save's write transaction (so the check and
/// the append are atomic) without knowing the policy; tests run it on its own.
struct ChangeMerge {
    /// The context's policy.
    let policy: MergePolicy
    /// For ``MergePolicy/overwrite``: each staged object's whole state as the context sees it (nil: deleted).
    let contextObjects: [ObjectKey: ObjectValues?]

    /// Resolves `request` against `theirs` (what others did after the position) and `current` (the object's
    /// values at the head, `nil` when absent).
    func resolve(_ request: ChangeRequest, theirs: ConcurrentChange, current: ObjectValues?) -> MergeOutcome {
        let key = request.key
        let mine = Self.attributes(of: request)
        let overlap = mine.intersection(theirs.attributes).sorted()
        let structural = theirs.structural || mine.isEmpty || { if case .update = request { return false } else { return true } }()
        let conflict = Conflict(key: key, attributes: structural ? [] : overlap, seq: theirs.seq)
        switch policy {
        case .error:
            return .conflict(conflict)
        case .rollback:
            return .requests([])  // drop the context's change of this object
        case .mergeByPropertyStoreTrump:
            // Structural changes on either side: the store's version wins whole.
            guard !structural, case let .update(e, id, values) = request else { return .requests([]) }
            let kept = values.filter { !theirs.attributes.contains($0.key) }
            return .requests(kept.isEmpty ? [] : [.update(entity: e, id: id, values: kept)])
        case .mergeByPropertyObjectTrump:
            return .requests(Self.forcing(request, current: current))
        case .overwrite:
            guard let whole = contextObjects[key] else {
                preconditionFailure("overwrite needs the context's state of every staged object")
            }
            return .requests(Self.overwriting(key, with: whole, current: current))
        case .mergeDisjointProperties:
            return structural || !overlap.isEmpty ? .conflict(conflict) : .requests([request])
        }
    }

    /// The attributes a request sets; empty for a delete.
    static func attributes(of request: ChangeRequest) -> Set<String> {
        switch request {
        case .insert(_, _, let v), .update(_, _, let v): return Set(v.keys)
        case .delete: return []
        case .updateMembers, .updateMatching, .deleteMatching:
            preconditionFailure("a context stages what a request resolves to: the matches of a change by predicate, an update's whole sets")
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
        case .updateMembers, .updateMatching, .deleteMatching:
            preconditionFailure("a context stages what a request resolves to: the matches of a change by predicate, an update's whole sets")
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
}
