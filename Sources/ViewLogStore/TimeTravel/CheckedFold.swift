@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// The whole store folded from its log by slot, each change checked against the state it follows: what `verify`
/// and `replay --into` run over a log without schema changes, instead of a dictionary of objects by key.
///
/// One ``SlotRows`` per entity of the schema keeps every attribute. Entries are decoded into a batch per entity
/// (``read(_:seq:)``) and the batches applied together (``flush(_:)``), so the fold's cache misses overlap, as
/// in time travel. Nothing is hashed by name and no object is a dictionary.
struct CheckedFold {
    /// One entity's objects and the changes read for it but not applied yet.
    struct Entity {
        let description: EntityDescription
        /// The name as UTF-8, matched against the logged names' bytes.
        let name: [UInt8]
        fileprivate(set) var rows: SlotRows
        fileprivate var batch = SlotChanges()
    }

    /// What is wrong with one change.
    struct Problem: CustomStringConvertible {
        package let seq: UInt64
        package let key: ObjectKey
        let kind: Kind

        enum Kind {
            /// The change does not fit the state it follows.
            case state(SlotProblem, attribute: String?)
            /// The change is not what an append would have logged (``CheckedFold/init(schema:appendChecks:tracksTouchedRows:)``).
            case notAsAppended(String)
        }

        /// The words `verify` has always used for these problems.
        var description: String {
            switch kind {
            case .state(.insertOfExisting, _): return "seq \(seq): insert of \(key), which exists"
            case .state(.updateOfAbsent, _): return "seq \(seq): update of \(key), which does not exist"
            case .state(.previousDiffers, let attribute):
                return "seq \(seq): update of \(key): previous '\(attribute ?? "")' does not match the replay"
            case .state(.deleteOfAbsent, _): return "seq \(seq): delete of \(key), which does not exist"
            case .state(.removedDiffers, _): return "seq \(seq): delete of \(key): previous values do not match the replay"
            case .notAsAppended(let reason): return "seq \(seq): \(key): \(reason)"
            }
        }
    }

    /// The entities of the schema, in the order of their names' bytes: the order of their keys in `objects`.
    private(set) var entities: [Entity]
    /// Whether every change must also be what an append would have logged: an id of the entity's type, an insert
    /// with a value for every attribute, an update of at least one, and each value of its attribute's type as
    /// the append stores it. A replay into a new store checks this; `verify` checks only the state, as it
    /// always has.
    let appendChecks: Bool
    /// Changes read and not yet applied.
    private(set) var pendingChanges = 0
    /// Problems found while reading (``appendChecks``), reported at the next flush.
    private var readProblems: [Problem] = []
    /// Each entity's batch size before the entry being read, to take a damaged entry's changes back out.
    private var marks: [Int]
    /// The entity the last change named: a log's changes usually name few, so it is tried first.
    private var lastEntity = 0

    /// An empty store of `schema`. With `tracksTouchedRows`, each entity's rows list the rows they change
    /// (``takeTouchedRows(of:)``).
    init(schema: Schema, appendChecks: Bool, tracksTouchedRows: Bool = false) {
        let sorted = schema.entities.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        entities = sorted.map { e in
            Entity(description: e, name: Array(e.name.utf8),
                   rows: SlotRows(layout: SlotLayout(attributes: e.attributes), tracksTouchedRows: tracksTouchedRows))
        }
        marks = Array(repeating: 0, count: entities.count)
        self.appendChecks = appendChecks
    }

    /// The index in ``entities`` of the entity named `raw` (UTF-8), if the schema has it.
    func entityIndex(named raw: UnsafeRawBufferPointer) -> Int? {
        entities.firstIndex { Self.same($0.name, raw) }
    }

    /// ``entityIndex(named:)``, trying the entity the last change named first.
    @inline(__always)
    private mutating func entity(named raw: UnsafeRawBufferPointer) -> Int? {
        if lastEntity < entities.count, Self.same(entities[lastEntity].name, raw) { return lastEntity }
        guard let e = entityIndex(named: raw) else { return nil }
        lastEntity = e
        return e
    }

    /// Whether `name` and `raw` are the same bytes.
    @inline(__always)
    package static func same(_ name: [UInt8], _ raw: UnsafeRawBufferPointer) -> Bool {
        name.withUnsafeBytes { ByteReader.compare($0, raw) == 0 }
    }

    /// Reads one entry into the batches: its header, checksum and every change, with the checks of the full
    /// decoder (``TransactionCodec/decode(_:expectedSeq:)``) for what the fold reads — the author's and ids'
    /// UTF-8, names strictly increasing, no trailing bytes. A damaged entry leaves the batches as they were.
    /// - Returns: `false` when the entry cannot be folded by slot: a schema change, or an entity or attribute the
    ///   schema lacks. The fold is then incomplete, and the caller reads the log by name instead.
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    mutating func read(_ bytes: UnsafeRawBufferPointer, seq: UInt64) throws(CodecError) -> Bool {
        for e in entities.indices { marks[e] = entities[e].batch.changes.count }
        let problemsBefore = readProblems.count
        do {
            return try readChanges(bytes, seq: seq)
        } catch {
            for e in entities.indices { entities[e].batch.truncate(toChanges: marks[e]) }
            pendingChanges = entities.reduce(0) { $0 + $1.batch.changes.count }
            readProblems.removeSubrange(problemsBefore...)
            throw error
        }
    }

    private mutating func readChanges(_ bytes: UnsafeRawBufferPointer, seq: UInt64) throws(CodecError) -> Bool {
        var (r, _, _, flags) = try TransactionCodec.checkedHeader(bytes, expectedSeq: seq)
        _ = try r.string("author", limit: Limits.stringBytesMax)
        _ = try TransactionCodec.reverts(&r, flags: flags, seq: seq)
        let count = try TransactionCodec.changeCount(&r)
        for _ in 0..<count {
            let at = r.offset
            let kind = try r.u8("change kind")
            let take: SlotTake, end: SlotChanges.Kind
            switch kind {
            case TransactionCodec.Kind.insert: (take, end) = (.values, .set)
            case TransactionCodec.Kind.update: (take, end) = (.valuesAndPrevious, .merge)
            case TransactionCodec.Kind.delete: (take, end) = (.previous, .remove)
            case TransactionCodec.Kind.schema, TransactionCodec.Kind.migration: return false
            default: throw .invalid(field: "change kind", offset: at, reason: "unknown kind \(kind)")
            }
            let (raw, _) = try r.rawName("entity name")
            guard let e = entity(named: raw) else { return false }
            let id = try r.id()
            guard try r.slotValues(entities[e].rows.layout, pairs: kind == TransactionCodec.Kind.update, take: take,
                                   into: &entities[e].batch) else { return false }
            entities[e].batch.end(end, id: id, seq: seq)
            pendingChanges += 1
            if appendChecks, let reason = notAsAppended(e, entities[e].batch.changes.count - 1) {
                readProblems.append(Problem(seq: seq, key: ObjectKey(entity: entities[e].description.name, id: id),
                                            kind: .notAsAppended(reason)))
            }
        }
        guard r.isAtEnd else { throw .trailingBytes(offset: r.offset, count: r.remaining) }
        return true
    }

    /// Why change `i` of entity `ei`'s batch is not what an append would have logged, if it is not.
    private func notAsAppended(_ ei: Int, _ i: Int) -> String? {
        let e = entities[ei].description, change = entities[ei].batch.changes[i], layout = entities[ei].rows.layout
        guard entities[ei].batch.ids[i].type == e.idType else { return "an id of the wrong type" }
        switch change.kind {
        case .set where change.values.count != layout.width: return "an insert without every attribute"
        case .merge where change.values.isEmpty: return "an update that sets no values"
        default: break
        }
        for v in entities[ei].batch.values[change.values] {
            let a = layout.kept[v.slot], batch = entities[ei].batch
            // A set's change: both the members added and those removed are sets the relationship stores.
            for value in batch.setChange(of: v).map({ [$0.added, $0.removed] }) ?? [batch.value(of: v)] {
                guard let stored = try? e.checked(value, for: a), stored.isIdentical(to: value) else {
                    return "attribute '\(a.name)' holds a value its type does not store"
                }
            }
        }
        return nil
    }

    /// Applies every change read, in the log's order, calling `report` with each problem found, in seq order.
    mutating func flush(_ report: (Problem) -> Void) {
        var found = readProblems
        readProblems.removeAll()
        for e in entities.indices where !entities[e].batch.changes.isEmpty {
            var batch = SlotChanges()
            swap(&batch, &entities[e].batch)
            let name = entities[e].description.name, layout = entities[e].rows.layout
            entities[e].rows.apply(batch) { k, problem in
                let change = batch.changes[k]
                var attribute: String?
                if case .previousDiffers(let slot) = problem { attribute = layout.kept[slot].name }
                found.append(Problem(seq: change.seq, key: ObjectKey(entity: name, id: batch.ids[k]),
                                     kind: .state(problem, attribute: attribute)))
            }
            batch.removeAll()
            swap(&batch, &entities[e].batch)
        }
        pendingChanges = 0
        guard !found.isEmpty else { return }
        for i in found.indices.sorted(by: { (found[$0].seq, $0) < (found[$1].seq, $1) }) { report(found[i]) }
    }

    /// Adds an object of entity `e` as a stored row holds it at the fold's start (a checkpoint's), before any entry
    /// is read; `false` when it names an attribute the schema lacks (the caller folds by name instead).
    mutating func addStored(entity e: Int, id: ObjectID, values: ObjectValues, seq: UInt64) -> Bool {
        precondition(pendingChanges == 0, "a stored row added after entries were read")
        return entities[e].rows.appendStored(id, values, seq: seq)
    }

    /// The rows of entity `e` changed since the last call.
    mutating func takeTouchedRows(of e: Int) -> [Int] { entities[e].rows.takeTouchedRows() }
}
