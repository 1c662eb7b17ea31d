@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// A context's unsaved changes, collapsed per object as Core Data does: insert + update is one insert,
/// insert + delete is nothing, update + update is one update, update + delete is a delete.
struct StagedChanges: Equatable {
    enum Entry: Equatable {
        /// Inserted by the context (the values as given).
        case inserted(ObjectValues)
        /// Existing object with these attributes set.
        case updated(ObjectValues)
        /// Existing object deleted.
        case deleted
        /// Existing object deleted and inserted again with these values.
        case replaced(ObjectValues)

        /// Whether the save deletes the object (and runs its delete rules).
        var deletes: Bool {
            switch self {
            case .deleted, .replaced: return true
            case .inserted, .updated: return false
            }
        }

        /// The values the entry gives (all of them, or those an update sets); `nil` for a delete.
        var values: ObjectValues? {
            switch self {
            case .inserted(let v), .updated(let v), .replaced(let v): return v
            case .deleted: return nil
            }
        }

        /// The object's values once the entry is applied to `base`.
        func applied(to base: ObjectValues?) -> ObjectValues? {
            switch self {
            case .inserted(let v), .replaced(let v): return v
            case .updated(let v): return base.map { $0.merging(v) { $1 } }
            case .deleted: return nil
            }
        }
    }

    /// What a delete rule of a staged delete does to an object that names the deleted one (DESIGN §10): ``change``,
    /// the consequence the save logs (``DeleteRuleWalk/Consequence``). `walk` is the
    /// staged delete's place in ``order``: the save runs the rules right after that delete, so a change staged at a
    /// later place comes after this one and one at an earlier place before.
    struct Implied: Equatable {
        let walk: Int
        /// The change the rule makes, as the save will log it: a to-one set to `null` or the member taken out of a
        /// set (nullify), or the object's delete (cascade).
        let change: Change

        func apply(to values: inout ObjectValues?) {
            values = ObjectValues.applying(change, to: values)
        }
    }

    /// An object's relationship naming a target, as the staged values give it.
    struct Reference: Hashable {
        let target: ObjectKey
        let source: String
        let relationship: String
    }

    /// What one call of ``stage(_:existsInBase:relationships:)`` did, to tell what it may change of the delete rules'
    /// effects and to take it back.
    struct Staging {
        let key: ObjectKey
        /// The key's place in ``order``.
        let place: Int
        let previous: Entry?
        let next: Entry?
        /// Whether the key took a new place at the end of ``order``.
        let isNewInOrder: Bool
        /// The references the key's entry gave before and after.
        let previousReferences: [Reference]
        let nextReferences: [Reference]
        /// Whether it may change an object of delete rules' walks: whether the object exists, or what its
        /// relationships name.
        let affectsReferrers: Bool

        /// Whether the save now deletes the object where it did not before.
        var startsDelete: Bool { next?.deletes == true && previous?.deletes != true }
    }

    private(set) var entries: [ObjectKey: Entry] = [:]
    /// Keys in the order they were first staged: the order of the saved changes.
    private(set) var order: [ObjectKey] = []
    /// Each key's place in ``order``.
    private(set) var place: [ObjectKey: Int] = [:]
    /// The places of the staged deletes (and deletes inserted again), ascending: the order their rules run in.
    private(set) var deletePlaces: [Int] = []
    /// The changes a save appends (a delete inserted again counts twice).
    private(set) var requestCount = 0
    /// The ids of the staged objects whose staged values name a target, by the reference.
    private(set) var referrers: [Reference: Set<ObjectID>] = [:]
    /// What the delete rules of the staged deletes will do when they are saved (DESIGN §10), in the order they do it,
    /// per object they reach. Shown to the context's controllers as Core Data shows its delete rules' effects when it
    /// processes pending changes; never saved as requests (the store applies the rules itself and logs them).
    var implied: [ObjectKey: [Implied]] = [:]
    /// The number of changes in ``implied``.
    var impliedCount = 0

    var isEmpty: Bool { entries.isEmpty }
    /// The objects the unsaved changes touch: those staged, then those their delete rules touch.
    var keys: [ObjectKey] { order.filter { entries[$0] != nil } + implied.keys.filter { entries[$0] == nil }.sorted() }
    /// Whether a staged change deletes an object.
    var hasDeletes: Bool { !deletePlaces.isEmpty }

    /// Stages `request`; `relationships` are the relationships of its entity.
    @discardableResult
    mutating func stage(_ request: ChangeRequest, existsInBase: Bool, relationships: [Attribute]) throws(StoreError) -> Staging {
        let key = request.key
        let current = entries[key]
        let next: Entry?
        switch (request, current) {
        case (.insert(_, _, let values), nil):
            guard !existsInBase else { throw refused(request, "the id exists already") }
            next = .inserted(values)
        case (.insert(_, _, let values), .deleted?):
            next = .replaced(values)
        case (.insert, _?):
            throw refused(request, "the id exists already")
        case (.update(_, _, let values), nil):
            guard existsInBase else { throw refused(request, "no such object") }
            next = .updated(values)
        case (.update(_, _, let values), .inserted(let old)?):
            next = .inserted(old.merging(values) { $1 })
        case (.update(_, _, let values), .replaced(let old)?):
            next = .replaced(old.merging(values) { $1 })
        case (.update(_, _, let values), .updated(let old)?):
            next = .updated(old.merging(values) { $1 })
        case (.update, .deleted?):
            throw refused(request, "no such object (deleted in this context)")
        case (.delete, nil):
            guard existsInBase else { throw refused(request, "no such object") }
            next = .deleted
        case (.delete, .inserted?):
            next = nil
        case (.delete, .updated?), (.delete, .replaced?):
            next = .deleted
        case (.delete, .deleted?):
            throw refused(request, "no such object (deleted in this context)")
        case (.updateMembers, _), (.updateMatching, _), (.deleteMatching, _):
            preconditionFailure("a context stages what a request resolves to: the matches of a change by predicate, an update's whole sets")
        }
        let isNewInOrder = place[key] == nil
        if isNewInOrder {
            place[key] = order.count
            order.append(key)
        }
        let sameKind: Bool
        switch (current, next) {
        case (.inserted?, .inserted?), (.updated?, .updated?), (.replaced?, .replaced?): sameKind = true
        default: sameKind = false
        }
        let affectsReferrers = !relationships.isEmpty
            && (!sameKind || relationships.contains { current?.values?[$0.name] != next?.values?[$0.name] })
        let staging = Staging(key: key, place: place[key]!, previous: current, next: next, isNewInOrder: isNewInOrder,
                              previousReferences: Self.references(of: key, current, relationships),
                              nextReferences: Self.references(of: key, next, relationships),
                              affectsReferrers: affectsReferrers)
        apply(staging, from: current, to: next, unnaming: staging.previousReferences, naming: staging.nextReferences)
        return staging
    }

    /// Takes back what `staging` did (the last staging; ``implied`` is the caller's).
    mutating func unstage(_ staging: Staging) {
        apply(staging, from: staging.next, to: staging.previous, unnaming: staging.nextReferences,
              naming: staging.previousReferences)
        if staging.isNewInOrder {
            order.removeLast()
            place[staging.key] = nil
        }
    }

    /// Sets the entry of `staging`'s key from `old` to `new` and keeps the counts, the delete places and the
    /// referrers with it.
    private mutating func apply(_ staging: Staging, from old: Entry?, to new: Entry?, unnaming: [Reference], naming: [Reference]) {
        entries[staging.key] = new
        requestCount += Self.requests(new) - Self.requests(old)
        switch (old?.deletes == true, new?.deletes == true) {
        case (false, true): deletePlaces.insert(staging.place, at: deletePlaceIndex(staging.place))
        case (true, false): deletePlaces.remove(at: deletePlaceIndex(staging.place))
        default: break
        }
        for r in unnaming {
            referrers[r]?.remove(staging.key.id)
            if referrers[r]?.isEmpty == true { referrers[r] = nil }
        }
        for r in naming { referrers[r, default: []].insert(staging.key.id) }
    }

    /// The index of the first place in ``deletePlaces`` that is not below `place` (a binary search).
    private func deletePlaceIndex(_ place: Int) -> Int {
        var lo = 0, hi = deletePlaces.count
        while lo < hi {  // bounded: halves the range
            let mid = (lo + hi) / 2
            if deletePlaces[mid] < place { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private static func requests(_ entry: Entry?) -> Int {
        switch entry {
        case nil: return 0
        case .replaced?: return 2
        default: return 1
        }
    }

    /// The targets `entry`'s values name through `relationships`.
    private static func references(of key: ObjectKey, _ entry: Entry?, _ relationships: [Attribute]) -> [Reference] {
        guard let values = entry?.values, !relationships.isEmpty else { return [] }
        var out: [Reference] = []
        for a in relationships {
            for id in values[a.name]?.memberIDs ?? [] {
                out.append(Reference(target: ObjectKey(entity: a.relationship!.target, id: id), source: key.entity, relationship: a.name))
            }
        }
        return out
    }

    private func refused(_ request: ChangeRequest, _ why: String) -> StoreError {
        .invalidStagedChange(request.key, operation: request.operation, reason: why)
    }

    /// The object's values in the context given its values at the context's position: `base` when the
    /// object has no staged change and no delete rule reaches it.
    func values(of key: ObjectKey, base: ObjectValues?) -> ObjectValues? {
        values(of: key, base: base, atWalk: nil)
    }

    /// The object's values given its values at the context's position; with `walk`, as the save leaves them when it
    /// runs the delete rules of the staged delete at place `walk` (a change staged at a later place is not made yet).
    func values(of key: ObjectKey, base: ObjectValues?, atWalk walk: Int?) -> ObjectValues? {
        var entry = entries[key]
        var at = entry == nil ? Int.max : place[key]!
        if let walk, at > walk {
            entry = nil
            at = Int.max
        }
        // The object's own delete: its rules run before it is inserted again.
        if let walk, at == walk, entry?.deletes == true { return nil }
        guard let effects = implied[key] else { return entry.map { $0.applied(to: base) } ?? base }
        var v = base
        for e in effects where e.walk < at { e.apply(to: &v) }
        guard let entry else { return v }
        v = entry.applied(to: v)
        for e in effects where e.walk > at { e.apply(to: &v) }
        return v
    }

    /// The requests a save appends, in staging order.
    var requests: [ChangeRequest] {
        var out: [ChangeRequest] = []
        for key in order where entries[key] != nil {
            switch entries[key]! {
            case .inserted(let v): out.append(.insert(entity: key.entity, id: key.id, values: v))
            case .updated(let v): out.append(.update(entity: key.entity, id: key.id, values: v))
            case .deleted: out.append(.delete(entity: key.entity, id: key.id))
            case .replaced(let v):
                out.append(.delete(entity: key.entity, id: key.id))
                out.append(.insert(entity: key.entity, id: key.id, values: v))
            }
        }
        return out
    }

    mutating func removeAll() {
        self = StagedChanges()
    }
}
