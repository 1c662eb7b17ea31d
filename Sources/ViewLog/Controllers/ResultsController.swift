@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
#if canImport(FoundationEssentials)
import FoundationEssentials  // IndexPath
import Observation
#else
import Foundation
#endif

/// A live materialized view (see the query language and the change-set rules): the objects of one entity that match a predicate, sorted,
/// sectioned and optionally windowed by `limit`/`offset`, kept current by applying each move of its
/// context's position as one batch, and reporting that batch with NSFetchedResultsController /
/// UITableView batch-update semantics.
///
/// ## What it holds
/// Every matching object's id and key values (section value, sort values) in an order-statistic B+tree,
/// including rows outside the `limit`/`offset` window, so that the window moves in O(log n). It keeps no
/// other attribute values: look rows up by id in the store (``fetchedObjects``, ``object(at:)``).
///
/// ## Applying a batch
/// `apply(_:)` takes a ``Delta`` (each touched object once, with its values before and after) and computes
/// the ``ChangeSet`` incrementally: every touched object of the entity is evaluated once for its old place
/// (from the tree) and its new one (predicate and key of its values after); rows that only crossed a window
/// edge are found by rank at the edges. The cost is O(k log n) for k touched objects — never a refetch,
/// never a scan of the view.
///
/// ## Delivery
/// A non-empty batch goes to the ``delegate`` (`willChangeContent`, each section change, each row change,
/// `didChangeContent`), then to every observer (``observe(_:)``) and every ``changes`` sequence, in the order
/// they subscribed. A definition change (``performFetch(_:)``) or a context reset (``Context/reset(to:)``) is
/// reported as one ``ViewEvent/reload(_:)``.
///
/// ## Concurrency
/// A controller is not `Sendable`: it is confined to the isolation of whoever owns it (its context's actor,
/// or the main actor for a UI). The delegate is called synchronously on that isolation. The values it
/// produces (``ChangeSet``, ``ViewSnapshot``, ``ViewEvent``) are `Sendable`, and ``changes`` may be iterated
/// from any task.
public final class ResultsController {
    // `fetchRequest`, `rows` and `scratch` are unchecked for exclusivity at run time, as the tree's storage is
    // (``CountedBTree``): the controller is confined to one isolation, no access to them spans a call out of the
    // controller, and a batch read them (and checked each access) several times — 3 % of an apply at 1M rows.

    /// What the view shows.
    @exclusivity(unchecked) public private(set) var fetchRequest: FetchRequest
    /// The entity of the rows.
    public private(set) var entity: EntityDescription
    /// The position of the view: the `to` of the last batch applied.
    public private(set) var position: UInt64
    /// Told about every non-empty batch and every reload, synchronously, in order.
    public weak var delegate: (any ResultsControllerDelegate)?
    /// The context that made this controller (``Context/makeResultsController(_:)``), kept alive by it: the
    /// controller follows the context's moves and fetches from it. `nil` for a controller made directly
    /// from objects.
    public internal(set) var context: Context?

    /// Most events the ``changes`` sequence buffers for a consumer that is behind.
    public let changesBufferLimit: Int
    /// Swift's Observation of ``sections`` and ``fetchedObjects`` (`ResultsController+Observation.swift`).
    let observationRegistrar = ObservationRegistrar()
    /// Whether the rows were ever read through ``sections`` or ``fetchedObjects``: until then no one can be observing
    /// them, and a batch tells the registrar nothing (its bookkeeping hashes key paths: ~10 % of a small apply).
    var rowsRead = false

    /// Set when the view uses key paths (DESIGN §10): what it keeps to follow relationships.
    var relational: RelationalView?
    /// The error that kept the view from following the last move (a damaged store): the view was reloaded instead
    /// (``ViewEvent/reload(_:)``). For callers that must not show a reload as a change set (the CLI).
    @_spi(Engine) public internal(set) var followError: (any Error)?
    /// Where the rows come from: every row of the view, or the part of a stored view its window needs (DESIGN §11).
    var source = ViewSource.whole
    @exclusivity(unchecked) var rows: OrderedRows
    var membership: RowMembership
    /// Working memory of ``apply(_:)``, reused from batch to batch.
    @exclusivity(unchecked) var scratch = ApplyScratch()
    /// Whether a batch into a view with no rows and no window is built at once (``OrderedRows/fillEmpty(_:entity:shape:membership:)``); tests turn
    /// it off to compare with the general path.
    var fillsEmptyViewAtOnce = true
    /// During a reload's call of the delegate: the view before it, for the default
    /// ``ResultsControllerDelegate/controllerDidReload(_:snapshot:)`` (``reportReload(to:snapshot:)``).
    var reloadedFrom: (snapshot: ViewSnapshot, isSectioned: Bool, position: UInt64)?
    /// Observers and `changes` subscribers, in subscription order.
    private var subscribers: [(id: UInt64, subscriber: Subscriber)] = []
    private var nextSubscriberID: UInt64 = 0

    private enum Subscriber {
        case handler((ViewEvent) -> Void)
        case stream(AsyncStream<ViewEvent>.Continuation)
    }

    /// Makes a controller showing `fetchRequest` over `objects` — every object of the entity at `position`,
    /// as the store gives them (the controller applies the predicate).
    ///
    /// - Throws: a ``QueryError`` naming an unknown sort or section key, an entity other than the request's,
    ///   or what the predicate's compilation reports (unknown attribute, type mismatch, missing variable).
    public convenience init<S: Sequence<(ObjectID, ObjectValues)>>(
        fetchRequest: FetchRequest, entity: EntityDescription, objects: S, position: UInt64 = 0,
        changesBufferLimit: Int = 256
    ) throws(QueryError) {
        self.init(plan: try ViewPlan(fetchRequest, for: entity), entity: entity, objects: objects, position: position,
                  changesBufferLimit: changesBufferLimit)
    }

    /// Makes a controller whose membership is decided by `isIncluded` instead of the request's predicate,
    /// with B+tree nodes of `nodeCapacity` slots. For tests of the view engine.
    @_spi(Testing)
    public convenience init<S: Sequence<(ObjectID, ObjectValues)>>(
        fetchRequest: FetchRequest, entity: EntityDescription, objects: S, position: UInt64 = 0,
        nodeCapacity: Int = 64, isIncluded: @escaping (ObjectValues, ObjectID) -> Bool
    ) throws(QueryError) {
        self.init(fetchRequest: fetchRequest, entity: entity, membership: .closure(isIncluded),
                  order: try RowOrder(fetchRequest, entity), position: position,
                  changesBufferLimit: 256, nodeCapacity: nodeCapacity)
        load(objects)
    }

    /// Makes a controller of `plan` over `objects` (see ``init(fetchRequest:entity:objects:position:changesBufferLimit:)``).
    convenience init<S: Sequence<(ObjectID, ObjectValues)>>(plan: ViewPlan, entity: EntityDescription, objects: S,
                                                            position: UInt64, changesBufferLimit: Int = 256) {
        self.init(fetchRequest: plan.request, entity: entity, membership: .predicate(plan.predicate), order: plan.order,
                  position: position, changesBufferLimit: changesBufferLimit, nodeCapacity: 64)
        load(objects)
    }

    /// Makes a controller of `plan` over the objects `feed` streams: `feed` calls its argument with every object
    /// of the entity at `position` — values of at least ``ViewPlan/attributesRead(of:)``, in a ``FetchedValues``
    /// the controller does not keep — so that no object is materialized. The argument returns whether the object
    /// belongs to the view, for a feed that keeps the rows' other values (``Context/makeResultsControllerKeepingRows(_:)``).
    /// - Throws: what `feed` throws.
    convenience init(plan: ViewPlan, entity: EntityDescription, position: UInt64,
                     streaming feed: ((ObjectID, FetchedValues) -> Bool) throws -> Void) throws {
        self.init(fetchRequest: plan.request, entity: entity, membership: .predicate(plan.predicate), order: plan.order,
                  position: position, changesBufferLimit: 256, nodeCapacity: 64)
        let predicate = plan.predicate
        let order = rows.order
        var key = ByteWriter(capacity: order.inlineKeyBytes)
        try feed { id, values in
            guard predicate.evaluate(values, id: id) else { return false }
            rows.stage(id, values, order: order, key: &key)
            return true
        }
        rows.finishLoad()
    }

    /// Makes a controller of `plan` from its rows' keys, as ``RowOrder`` encodes them, which `feed` streams in key
    /// order (a stored view's rows, DESIGN §11): nothing decoded, evaluated or sorted. `feed` calls its argument with
    /// each key and the offset of the id in it.
    /// - Throws: what `feed` throws.
    convenience init(plan: ViewPlan, entity: EntityDescription, position: UInt64,
                     orderedKeys feed: ((UnsafeRawBufferPointer, Int) -> Void) throws -> Void) throws {
        self.init(fetchRequest: plan.request, entity: entity, membership: .predicate(plan.predicate), order: plan.order,
                  position: position, changesBufferLimit: 256, nodeCapacity: 64)
        try feed { key, idStart in rows.stage(key, idStart: idStart) }
        rows.finishLoad(presorted: true)
    }

    /// Sets the controller's state with no rows yet: every initializer loads them after.
    private init(fetchRequest: FetchRequest, entity: EntityDescription, membership: RowMembership, order: RowOrder,
                 position: UInt64, changesBufferLimit: Int, nodeCapacity: Int) {
        precondition(changesBufferLimit > 0, "changesBufferLimit must be positive")
        self.fetchRequest = fetchRequest
        self.entity = entity
        self.position = position
        self.membership = membership
        self.changesBufferLimit = changesBufferLimit
        self.rows = OrderedRows(order: order, capacity: nodeCapacity)
    }

    /// Builds the rows from every member of `objects`: each key encoded once into bytes, then one sort of the
    /// byte keys and a bulk load of the trees.
    ///
    /// The initializers are public, generic and not inlinable, so a caller's sequence would be walked through its
    /// witness table (unspecialized: ~10 % of an initial fetch in `perf`); the forms the contexts and the store
    /// give are cast to first, so that their walk is specialized.
    private func load<S: Sequence<(ObjectID, ObjectValues)>>(_ objects: S) {
        typealias Rows = [(id: ObjectID, values: ObjectValues)]
        if let mapped = objects as? LazyMapSequence<Rows, (ObjectID, ObjectValues)> { return loadRows(mapped) }
        if let array = objects as? [(ObjectID, ObjectValues)] { return loadRows(array) }
        loadRows(objects)
    }

    @inline(__always)
    private func loadRows<S: Sequence<(ObjectID, ObjectValues)>>(_ objects: S) {
        rows.reserve(objects.underestimatedCount)
        let order = rows.order
        var key = ByteWriter(capacity: order.inlineKeyBytes)
        // Read once: the property of a class, its enum (defined in another module) would be copied for every row.
        let membership = membership
        for (id, values) in objects where membership.evaluate(values, id) { rows.stage(id, values, order: order, key: &key) }
        rows.finishLoad()
    }

    /// ``addRowsPastWindow(_:)`` of objects read from the store, where a row landing in the window means the store
    /// disagrees with itself (its stored view lacks a row of the window).
    /// - Throws: ``StoreError/corrupt(seq:reason:)``.
    func addRowsPastWindowOfSoundStore(_ objects: [(ObjectID, ObjectValues)]) throws(StoreError) {
        guard addRowsPastWindow(objects) else {
            throw .corrupt(seq: nil, reason: "a stored view of '\(entity.name)' lacks a row of its window: run 'viewlog verify'")
        }
    }

    /// Adds the rows of `objects` that belong to the view and are not in it, without reporting them: each is past
    /// the window (the controller of a stored view's window holds every row before its window's end).
    /// - Returns: `false` when a row landed in the window after all (objects read from a store that disagrees with
    ///   itself): the rows are then no longer the view's, and the caller must load them again.
    func addRowsPastWindow(_ objects: [(ObjectID, ObjectValues)]) -> Bool {
        guard let limit = fetchRequest.limit else { return objects.isEmpty }
        let order = rows.order
        var key = ByteWriter(capacity: order.inlineKeyBytes)
        let membership = membership
        for (id, values) in objects where !rows.contains(id) && membership.evaluate(values, id) {
            key.truncate(to: 0)
            let idStart = order.encode(id: id, values: values, into: &key)
            let rank = key.withBytes(0..<key.count) { rows.insert($0, idStart: idStart) }
            if rank < fetchRequest.offset + limit { return false }
        }
        return true
    }

    // MARK: - Reload

    /// Replaces the view: with a new definition (`fetchRequest`, checked like the initializer's) and/or the
    /// objects of a reset context, at `position`. Reported as one ``ViewEvent/reload(_:)`` to the delegate
    /// and on ``changes``; returns the new snapshot.
    @discardableResult
    @_spi(Engine) public func reload<S: Sequence<(ObjectID, ObjectValues)>>(
        objects: S, position: UInt64, fetchRequest: FetchRequest? = nil
    ) throws(QueryError) -> ViewSnapshot {
        reload(objects: objects, position: position, plan: try fetchRequest.map { (r) throws(QueryError) in try ViewPlan(r, for: entity) })
    }

    /// ``reload(objects:position:fetchRequest:)`` with the new request already planned.
    @discardableResult
    func reload<S: Sequence<(ObjectID, ObjectValues)>>(objects: S, position: UInt64, plan: ViewPlan?) -> ViewSnapshot {
        // A delegate that does not handle reloads gets the view before for the batches of the default (O(n), as the
        // reload is).
        let before = delegate == nil ? nil : (self.snapshot, isSectioned, self.position)
        if let plan {
            guard case .predicate = membership else {
                preconditionFailure("a controller made with a membership closure cannot change its fetch request")
            }
            self.fetchRequest = plan.request
            self.membership = .predicate(plan.predicate)
            rows = OrderedRows(order: plan.order, capacity: rows.capacity)
        } else {
            rows = OrderedRows(order: rows.order, capacity: rows.capacity)
        }
        self.position = position
        load(objects)
        let snapshot = self.snapshot
        if let delegate {
            reloadedFrom = before
            delegate.controllerDidReload(self, snapshot: snapshot)
            reloadedFrom = nil
        }
        send(.reload(snapshot))
        return snapshot
    }

    /// The default ``ResultsControllerDelegate/controllerDidReload(_:snapshot:)``: reports the reload to `delegate`
    /// through its batch callbacks, as two batches — every row (and section) of the view before deleted, then
    /// every row (and section) of `after` inserted — so that a delegate that mirrors the batches (a table) ends
    /// with the new view. An empty batch is not reported. Outside a reload's call of the delegate it does nothing.
    func reportReload(to delegate: some ResultsControllerDelegate, snapshot after: ViewSnapshot) {
        guard let (before, wasSectioned, from) = reloadedFrom else { return }
        reloadedFrom = nil  // once
        // The one section of a view without a section key is a section to delete or insert only when the other side
        // has sections (a definition change): a table then has that many sections.
        let sectionsChange = wasSectioned || isSectioned
        var deletes: [RowChange] = []
        for (s, section) in before.sections.enumerated() {
            for (r, id) in section.rows.enumerated() { deletes.append(.delete(id, from: IndexPath(row: r, section: s), seq: position)) }
        }
        let sectionDeletes = sectionsChange
            ? before.sections.enumerated().map { SectionChange(kind: .delete, index: $0.offset, value: $0.element.value) } : []
        var inserts: [RowChange] = []
        for (s, section) in after.sections.enumerated() {
            for (r, id) in section.rows.enumerated() { inserts.append(.insert(id, to: IndexPath(row: r, section: s), seq: position)) }
        }
        let sectionInserts = sectionsChange
            ? after.sections.enumerated().map { SectionChange(kind: .insert, index: $0.offset, value: $0.element.value) } : []
        for batch in [ChangeSet(from: from, to: position, isSectioned: wasSectioned, sectionChanges: sectionDeletes, rowChanges: deletes),
                      ChangeSet(from: from, to: position, isSectioned: isSectioned, sectionChanges: sectionInserts, rowChanges: inserts)]
        where !batch.isEmpty {
            delegate.controllerWillChangeContent(self)
            for s in batch.sectionChanges { delegate.controller(self, didChange: s) }
            for r in batch.rowChanges { delegate.controller(self, didChange: r) }
            delegate.controllerDidChangeContent(self)
        }
    }

    // MARK: - Carrying the view through migrations

    /// Carries the view through the migrations of `delta` (DESIGN §13), before its batch: its request takes the
    /// names of the move's end (``MigrationCarry/request(_:)``) and the entity of the schema there; its rows stay (a rename leaves
    /// their keys; the batch re-keys every value a conversion changed, reported as an update or a move). A partial
    /// source, whose reads name the schema before, gives way to the whole view at the move's start. A view over key
    /// paths is left: an entity with relationships is not migrated.
    /// - Throws: a ``QueryError`` naming the attribute when the request reads one a migration removed, or does not
    ///   plan in the new schema.
    func carry(_ delta: Delta, context: Context) throws {
        guard relational == nil, let carry = delta.carry, let schema = delta.schemaChange else { return }
        guard let request = carry.request(fetchRequest) else {
            throw QueryError(.unknownKey, "the view of '\(entity.name)' reads an attribute a migration removed", entity: entity.name)
        }
        guard let carried = schema.entities[request.entity] else {
            throw QueryError(.unknownKey, "a migration removed the entity '\(entity.name)'", entity: entity.name)
        }
        guard request != fetchRequest || carried != entity else { return }
        let plan = try ViewPlan(request, for: carried)
        rows.carry(to: plan.order)
        fetchRequest = plan.request
        entity = carried
        if case .predicate = membership { membership = .predicate(plan.predicate) }
        if !source.isWhole {
            source = .whole
            try addRowsPastWindowOfSoundStore(try context.objectsBefore(delta, of: carried.name).map { ($0.id, $0.values) })
        }
    }

    // MARK: - Applying a batch

    /// Applies one move of the context's position as one batch and reports it (when not empty) to the
    /// delegate and on ``changes``. Objects of other entities are ignored.
    ///
    /// - Precondition: `delta.from` is the controller's ``position``.
    /// - Returns: the batch, possibly empty.
    @discardableResult
    @_spi(Engine) public func apply(_ delta: Delta) -> ChangeSet {
        precondition(delta.from == position,
                     "ResultsController at position \(position) was given a delta from \(delta.from)")
        let changeSet = computeChangeSet(delta)
        position = delta.to
        if !changeSet.isEmpty { deliver(changeSet) }
        return changeSet
    }

    private func deliver(_ changeSet: ChangeSet) {
        if let delegate {
            delegate.controllerWillChangeContent(self)
            for s in changeSet.sectionChanges { delegate.controller(self, didChange: s) }
            for r in changeSet.rowChanges { delegate.controller(self, didChange: r) }
            delegate.controllerDidChangeContent(self)
        }
        send(.changes(changeSet))
    }

    // MARK: - Observers and the changes sequence

    /// Calls `handler` with every later non-empty batch and reload, synchronously on the controller's isolation,
    /// right after the ``delegate``. Any number of observers may watch one controller (a UI adapter, a
    /// `ViewLogTesting` recorder, a log); the delegate stays free for the app.
    ///
    /// - Returns: the observation; it ends when you call ``ViewObservation/cancel()`` or release it.
    public func observe(_ handler: @escaping (ViewEvent) -> Void) -> ViewObservation {
        let id = subscribe(.handler(handler))
        return ViewObservation { [weak self] in self?.unsubscribe(id) }
    }

    /// A new sequence of the view's events for each access: first the view as it is now (a
    /// ``ViewEvent/reload(_:)`` with the current ``snapshot``, as GRDB's `ValueObservation` starts with the
    /// current value), then every later non-empty batch and reload, in order. Every access is its own
    /// subscription, so any number of consumers each see every event from the moment they subscribed.
    ///
    /// Subscribe where you make the consumer, not inside it: `let events = controller.changes` and then
    /// `Task { for await event in events { … } }` — the sequence is `Sendable`, the controller is not.
    ///
    /// **Buffering.** A subscription buffers at most ``changesBufferLimit`` events for a consumer that is behind.
    /// Rather than skip a batch, a subscription that would overflow **finishes**: the consumer gets every buffered
    /// event and then the end of the sequence, never a silent gap. Access ``changes`` again to start over from
    /// the current snapshot. Releasing or cancelling the consumer ends the subscription.
    public var changes: AsyncStream<ViewEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ViewEvent.self,
                                                            bufferingPolicy: .bufferingOldest(changesBufferLimit))
        continuation.yield(.reload(snapshot))
        _ = subscribe(.stream(continuation))
        return stream
    }

    private func subscribe(_ subscriber: Subscriber) -> UInt64 {
        nextSubscriberID += 1
        subscribers.append((nextSubscriberID, subscriber))
        return nextSubscriberID
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers.removeAll { $0.id == id }
    }

    private func send(_ event: ViewEvent) {
        // Every batch and reload passes here: observers of the rows learn of it (after the delegate, as the others).
        changedRows()
        guard !subscribers.isEmpty else { return }
        var ended: [UInt64] = []
        // A handler may subscribe or cancel while it runs: deliver to the subscribers of the moment.
        for (id, subscriber) in subscribers {
            switch subscriber {
            case .handler(let handle):
                handle(event)
            case .stream(let continuation):
                switch continuation.yield(event) {
                case .enqueued: break
                case .dropped, .terminated: fallthrough
                @unknown default:
                    continuation.finish()
                    ended.append(id)
                }
            }
        }
        if !ended.isEmpty { subscribers.removeAll { ended.contains($0.id) } }
    }

    deinit {
        for case (_, .stream(let continuation)) in subscribers { continuation.finish() }
    }
}
