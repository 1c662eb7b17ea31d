@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
import Observation
/// A projection of the log at a position, with unsaved changes: how applications read and write a store,
/// the way they use a managed object context in Core Data — but every view sees every logged change
///.
///
/// - Position: the context shows the store as it was after transaction ``position``. ``refresh()`` moves it
///   to the head, ``move(to:)`` anywhere, backwards too; each move is **one** batch for every results
///   controller of the context.
/// - Staged changes: ``insert(_:id:values:)``, ``update(_:id:values:)`` and `delete(_:id:)` change only this
///   context; ``processPendingChanges()`` shows them to its controllers as one batch; ``save()`` appends them
///   as one transaction at the head (conflicts decided by ``mergePolicy``) and moves the context to the head.
/// - The position is pinned by seq, never by an open LMDB reader, so a context may sit at an old position
///   for as long as it likes without making the store file grow.
///
/// Concurrency: a `Context` is not `Sendable`. It is confined to the isolation domain that created it (the
/// main actor for a UI, or one task), like a Core Data context to its queue; its results controllers share
/// that confinement. The ``LogStore`` is `Sendable`: give each task its own context on the same store.
public final class Context {
    /// The store this context projects.
    public let store: LogStore
    /// The author of this context's saves.
    public let name: String
    /// The seq this context shows (0: the empty store). Observable (Swift's Observation), as ``hasChanges``,
    /// ``canUndo`` and ``canRedo`` are.
    public internal(set) var position: UInt64 {
        get {
            observationRegistrar.access(self, keyPath: \.position)
            return storedPosition
        }
        set {
            guard newValue != storedPosition else { return }
            // A move changes what there is to undo or redo (a save, a merge of others' saves, an undo).
            observationRegistrar.willSet(self, keyPath: \.position)
            observationRegistrar.willSet(self, keyPath: \.canUndo)
            observationRegistrar.willSet(self, keyPath: \.canRedo)
            storedPosition = newValue
            observationRegistrar.didSet(self, keyPath: \.position)
            observationRegistrar.didSet(self, keyPath: \.canUndo)
            observationRegistrar.didSet(self, keyPath: \.canRedo)
        }
    }
    private var storedPosition: UInt64
    /// Swift's Observation of ``position``, ``hasChanges``, ``canUndo`` and ``canRedo``.
    let observationRegistrar = ObservationRegistrar()
    /// Whether ``hasChanges`` was ever read: until then no one can be observing it, and a staging tells the registrar
    /// nothing (its bookkeeping hashes key paths on every call; a move, rarer, always tells it).
    var observed = false
    /// What ``save()`` does when another transaction changed an object this context changes.
    public var mergePolicy: MergePolicy = .error

    var staged = StagedChanges() {
        // Only didSet, without oldValue: a mutation of the staged changes stays in place (no copy of them).
        didSet {
            guard observed else { return }
            observationRegistrar.willSet(self, keyPath: \.hasChanges)
            observationRegistrar.didSet(self, keyPath: \.hasChanges)
        }
    }
    /// The staged state the controllers have been shown (by ``processPendingChanges()``).
    var processed = StagedChanges()
    var observers: [WeakObserver] = []
    var schemaCache: (position: UInt64, schema: Schema)?
    /// The follower that ``startMergingChangesAutomatically(isolation:)`` started, until it stops.
    var automaticMerge: (task: Task<Void, Never>, generation: UInt64)?
    var automaticMergeGenerations: UInt64 = 0
    /// Why the last follower that ``startMergingChangesAutomatically(isolation:)`` started stopped on its own: the
    /// store's files were removed, or a ``refresh()`` failed. `nil` while it runs, and after a stop you asked for.
    public internal(set) var automaticMergeError: (any Error)?
    /// The objects changed between the position and the head, for finding referrers through the head's index while
    /// the context sits below it (``PositionChanges``); made again once the position or the head has moved.
    var positionChanges: PositionChanges?
    /// The objects of the store the delete rules of staged deletes have read (an entity read whole counts its
    /// objects): what tests check their cost by.
    var deleteRuleObjectsRead = 0
    /// Tests: find referrers by reading entities, as with a store opened read-only without a relationships index.
    var scansForReferrers = false
    /// The fewest rows a watcher's window no stored view serves keeps past its end (``firstRowsReserve(windowEnd:)``);
    /// tests lower it so that a few objects use the reserve up.
    var firstRowsReserveMinimum = 64
    /// A fork's parent, its staged changes when forked, and the changes staged on the fork since (``fork(name:)``).
    var fork: (parent: Context, base: StagedChanges, own: [ChangeRequest])?
    /// The undo manager each save registers with (``registerSavesForUndo(with:onFailure:)``).
    var undoRegistration: UndoRegistration?

    /// Makes a context on `store` at `position` (default: the head).
    public init(store: LogStore, name: String, at position: UInt64? = nil) throws(StoreError) {
        self.store = store
        self.name = name
        self.storedPosition = try store.checkedPosition(position)
    }

    deinit {
        automaticMerge?.task.cancel()
    }

    /// Whether the context has unsaved changes.
    public var hasChanges: Bool {
        observed = true
        observationRegistrar.access(self, keyPath: \.hasChanges)
        return !staged.isEmpty
    }

    /// The schema at the context's position.
    public var schema: Schema {
        get throws(StoreError) {
            if let cache = schemaCache, cache.position == position { return cache.schema }
            let s = try store.schema(at: position)
            schemaCache = (position, s)
            return s
        }
    }

    // MARK: Staging

    /// Stages the insert of a new object; absent attributes get their defaults when saved.
    public func insert(_ entity: String, id: ObjectID, values: ObjectValues) throws(StoreError) {
        try stage(.insert(entity: entity, id: id, values: values))
    }

    /// Stages setting `values` on an existing object.
    public func update(_ entity: String, id: ObjectID, values: ObjectValues) throws(StoreError) {
        try stage(.update(entity: entity, id: id, values: values))
    }

    /// Stages the delete of an existing object.
    public func delete(_ entity: String, id: ObjectID) throws(StoreError) {
        try stage(.delete(entity: entity, id: id))
    }

    /// Stages `request` after checking it against the schema and the context's state. A change by predicate is
    /// resolved against the context's state into one change per match (``update(_:where:values:max:)``).
    public func stage(_ request: ChangeRequest) throws(StoreError) {
        if request.isByPredicate {
            _ = try stageMatching(request)
            return
        }
        let schema = try self.schema
        var resolver = ChangeResolver(schema: schema)
        let key = request.key
        let base = try store.object(key, at: position)
        let current = staged.values(of: key, base: base)
        let resolved: Change
        do { resolved = try resolver.resolve(request, current: current) } catch {
            // Say what was staged, not a transaction and change of an append that never happened.
            let operation = request.operation
            let prefix = "\(operation) of \(key.entity) \(key.id.json.text): "
            let reason = error.reason.hasPrefix(prefix) ? String(error.reason.dropFirst(prefix.count)) : error.reason
            throw .invalidStagedChange(key, operation: operation, reason: reason)
        }
        // Stage what the save will log: inserts with their defaults, values converted to their types, so the
        // controllers show staged objects exactly as they will be saved.
        var logged = resolved.request ?? request
        // An entry holds the values an update leaves, so a set is staged whole (the save logs the members it adds and
        // removes against the store's state).
        if case let .update(k, values, _) = resolved, let after = ObjectValues.applying(resolved, to: current) {
            logged = .update(entity: k.entity, id: k.id, values: after.filter { values[$0.key] != nil })
        }
        let staging = try staged.stage(logged, existsInBase: base != nil,
                                       relationships: schema.entities[key.entity]?.relationships ?? [])
        do { try updateImpliedChanges(after: staging, schema: schema) } catch {
            staged.unstage(staging)
            // Name the change refused, with what the rules would do.
            if case .invalidStagedChange(_, _, let reason) = error {
                throw .invalidStagedChange(key, operation: request.operation, reason: reason)
            }
            throw error
        }
        fork?.own.append(logged)
    }

    /// Discards unsaved changes; controllers that were shown them get one batch back.
    public func rollback() throws(StoreError) {
        staged.removeAll()
        try processPendingChanges()
    }

    // MARK: Reading

    /// The object's values in this context (its position plus unsaved changes), or `nil`.
    public func object(_ key: ObjectKey) throws(StoreError) -> ObjectValues? {
        staged.values(of: key, base: try store.object(key, at: position))
    }

    /// Every object of `entity` in this context (position plus unsaved changes), in id order.
    public func objects(of entity: String) throws(StoreError) -> [(id: ObjectID, values: ObjectValues)] {
        try objects(of: entity, staged: staged)
    }

    /// Every object of `entity` in this context with `staged` as its unsaved changes; with `attributes`, the
    /// objects of the position may hold only those (see ``LogStore/objects(of:at:via:reading:)``).
    func objects(of entity: String, staged: StagedChanges, reading attributes: [Attribute]? = nil) throws(StoreError)
        -> [(id: ObjectID, values: ObjectValues)] {
        var base = try store.objects(of: entity, at: position, reading: attributes)
        let touched = staged.keys.filter { $0.entity == entity }
        guard !touched.isEmpty else { return base }
        var byID = Dictionary(uniqueKeysWithValues: base.map { ($0.id, $0.values) })
        for key in touched {
            byID[key.id] = staged.values(of: key, base: byID[key.id])
        }
        base = byID.sorted { $0.key < $1.key }.map { (id: $0.key, values: $0.value) }
        return base
    }

    // MARK: Moving

    /// Shows the unsaved changes to this context's controllers as one batch (Core Data's
    /// `processPendingChanges`). Saving does it too.
    public func processPendingChanges() throws(StoreError) {
        let delta = try batch(to: position, staged: staged)
        processed = staged
        deliver(delta)
    }

    /// Saves the unsaved changes as one transaction at the head and moves the context there; its controllers
    /// get one batch covering everything between (other contexts' transactions included).
    /// - Returns: the appended transaction, or `nil` when there was nothing to save (or the merge policy
    ///   dropped every change).
    /// - Throws: ``StoreError/conflict(_:)`` under ``MergePolicy/error`` and, for overlapping changes,
    ///   ``MergePolicy/mergeDisjointProperties`` (nothing appended, nothing lost: the changes stay staged);
    ///   ``StoreError/acrossMigration(position:seq:)`` under any policy when a migration was logged after the context's
    ///   position (the changes name the schema before it; they stay staged).
    @discardableResult
    public func save() throws(StoreError) -> Transaction? {
        guard hasChanges else { return nil }
        var whole: [ObjectKey: ObjectValues?] = [:]
        if mergePolicy == .overwrite {
            for request in staged.requests { whole[request.key] = .some(try object(request.key)) }
        }
        let merge = ChangeMerge(policy: mergePolicy, contextObjects: whole)
        let transaction = try store.save(staged.requests, author: name, basedOn: position,
                                         resolve: merge.resolve(_:theirs:current:))
        let head = try store.head
        let delta = try batch(to: transaction?.seq ?? head, staged: StagedChanges())
        staged.removeAll()
        processed.removeAll()
        position = delta.to
        deliver(delta)
        if transaction != nil { registerSaveForUndo() }
        return transaction
    }

    /// Moves to the head (a merge of everything saved since the position). Unsaved changes are kept.
    public func refresh() throws(StoreError) {
        try move(to: try store.head)
    }

    /// Moves to `target`, forwards or backwards; one batch for every controller. Unsaved changes are kept
    /// and stay applied on top of the new position (what the delete rules of staged deletes do is worked out there).
    ///
    /// Across a migration (DESIGN §13) each controller is carried through it: its request takes the new names, it keeps
    /// its rows, and a value a conversion changed is an update or a move under the new name (a rename alone is no
    /// change).
    /// - Throws: ``StoreError/positionPastHead(position:head:)``; ``StoreError/compacted(position:horizon:)`` when
    ///   `target`, or the context's own position, is below the store's horizon (the log between them is gone:
    ///   `reset(to:)` reloads the controllers at a position instead); ``StoreError/acrossMigration(position:seq:)``
    ///   when the context has unsaved changes and a migration lies between (nothing moved).
    public func move(to target: UInt64) throws(StoreError) {
        _ = try store.checkedPosition(target)
        guard target != position || processed != staged else { return }
        // What the staged deletes' rules do depends on the objects at the position.
        var next = staged
        if target != position && staged.hasDeletes {
            next = try rerunDeleteRules(of: staged, at: target, schema: try store.schema(at: target))
        }
        let delta = try batch(to: target, staged: next)
        // Unsaved changes name the schema of the position: refused across a migration, never carried in the wrong names.
        if let carry = delta.carry, !processed.isEmpty || !next.isEmpty {
            throw .acrossMigration(position: position, seq: carry.passed[0].seq)
        }
        position = target
        staged = next
        processed = staged
        deliver(delta)
    }

    /// The delta from (position, processed changes) to (`target`, `staged`), of the entities the context's
    /// observers show (every entity when one of them follows all).
    func batch(to target: UInt64, staged next: StagedChanges) throws(StoreError) -> Delta {
        observers.removeAll { $0.observer == nil }
        var entities: Set<String>? = []
        for o in observers {
            guard let entity = o.observer?.observedEntity else { entities = nil; break }
            entities?.insert(entity)
        }
        let base = try store.delta(from: position, to: target, entities: entities)
        var objects: [ObjectKey: ObjectDelta] = [:]
        for d in base.objects { objects[d.key] = d }
        for key in Set(processed.keys).union(next.keys) where objects[key] == nil {
            let values = try store.object(key, at: target)
            objects[key] = ObjectDelta(key: key, before: values, after: values, seq: target)
        }
        var result: [ObjectDelta] = []
        result.reserveCapacity(objects.count)
        for (key, var d) in objects {
            d.before = processed.values(of: key, base: d.before)
            d.after = next.values(of: key, base: d.after)
            if d.before != d.after { result.append(d) }
        }
        result.sort { $0.key < $1.key }
        return Delta(from: position, to: target, objects: result, schemaChange: base.schemaChange, carry: base.carry)
    }
}

extension Context {
    /// Something that follows the context's moves: its results controllers.
    struct WeakObserver {
        weak var observer: (any ContextObserver)?
    }

    func deliver(_ delta: Delta) {
        observers.removeAll { $0.observer == nil }
        for o in observers { o.observer?.context(self, didMoveWith: delta) }
    }

    /// Adds `observer`, held weakly, after the ones before it: it gets every later move's delta, in order.
    @_spi(Engine) public func addObserver(_ observer: any ContextObserver) {
        observers.append(WeakObserver(observer: observer))
    }
}

/// Follows a context's moves: its results controllers, and a CLI view printing rows' values.
@_spi(Engine) public protocol ContextObserver: AnyObject {
    /// The entity whose objects it needs in each delta; `nil` for every entity.
    var observedEntity: String? { get }
    /// Called after every move of `context` (merge, save, move, processed changes) with what it touched.
    func context(_ context: Context, didMoveWith delta: Delta)
}

/// A context is observable with Swift's Observation: ``position``, ``hasChanges``, ``canUndo`` and ``canRedo``.
extension Context: Observable {}
