@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import CPrefetch

/// Which attributes of one entity a fold by slot resolves and keeps.
///
/// A fold by slot (replay, time travel, a delta of one entity) keeps each object's values in an array indexed by
/// attribute slot instead of a dictionary by name: a logged name is matched against `attributes` by a merge walk
/// over the bytes (both are in code-point order), so nothing is hashed or allocated per name.
///
/// A class: a fold's per-entry closures capture it, and a struct of five arrays was copied (five retains) into
/// each one (a tenth of a time-travel query).
final class SlotLayout: Sendable {
    /// The attributes names are resolved against: every attribute of the entity in the schema the fold reads
    /// under, sorted by name (as ``EntityDescription/attributes``).
    package let attributes: [Attribute]
    /// Their names as UTF-8, compared with the logged names' bytes.
    let names: [[UInt8]]
    /// For each of `attributes`, its slot in a row, or `-1` when the fold does not keep it (its logged values are
    /// stepped over, never decoded).
    let slotOf: [Int]
    /// The kept attributes, in slot order (sorted by name).
    let kept: [Attribute]
    /// Their names as UTF-8, by slot.
    let keptNames: [[UInt8]]

    /// A layout resolving names against `attributes` (sorted by name) and keeping those of `keeping` (all when
    /// `nil`); a name of `keeping` the attributes lack is not kept.
    init(attributes: [Attribute], keeping: [Attribute]? = nil) {
        self.attributes = attributes
        names = attributes.map { Array($0.name.utf8) }
        let wanted = keeping.map { Set($0.map(\.name)) }
        var slotOf: [Int] = [], kept: [Attribute] = []
        for a in attributes {
            if wanted?.contains(a.name) ?? true, kept.last?.name != a.name {
                slotOf.append(kept.count)
                kept.append(a)
            } else {
                slotOf.append(-1)
            }
        }
        self.slotOf = slotOf
        self.kept = kept
        keptNames = kept.map { Array($0.name.utf8) }
        nameWords = names.map { n in (n.withUnsafeBytes { ByteReader.leadingWord($0, available: 0) }, n.count) }
    }

    /// How many values a row holds.
    var width: Int { kept.count }

    /// Each of ``names``' first 8 bytes as a big-endian word, zero-padded, and its length: names compare by word
    /// first (the order of their first 8 bytes), most often without touching their bytes.
    private let nameWords: [(word: UInt64, length: Int)]

    /// The byte order of `raw` (whose ``ByteReader/leadingWord(_:available:)`` is `word`) against name `j`:
    /// negative, zero or positive, as ``ByteReader/compare(_:_:)-(UnsafeRawBufferPointer,UnsafeRawBufferPointer)``.
    @inline(__always)
    func compare(_ raw: UnsafeRawBufferPointer, word: UInt64, toName j: Int) -> Int {
        let name = nameWords[j]
        if word != name.word { return word < name.word ? -1 : 1 }
        // The first 8 bytes agree (zero padding agrees with a zero byte, so a name and its prefix tie here).
        if raw.count <= 8 || name.length <= 8 { return raw.count - name.length }
        return names[j].withUnsafeBytes { ByteReader.compare(raw, $0) }
    }
}

/// What a slot holds, as one tag byte: a value's type (a bool's value too), or no value.
enum CellKind {
    static let absent: UInt8 = 0, null: UInt8 = 1, string: UInt8 = 2, int: UInt8 = 3, double: UInt8 = 4,
               falseBool: UInt8 = 5, trueBool: UInt8 = 6, date: UInt8 = 7, set: UInt8 = 8
    /// An update's change of a set (the members added, then those removed: ``setChangeText(added:removed:)``): only a
    /// batch's value, never a row's cell, which applying it merges into the set the cell holds.
    static let setChange: UInt8 = 9

    /// Whether a cell of `tag` holds a place among the strings: a string's, or a set's or set change's encoding.
    @inline(__always)
    static func holdsPlace(_ tag: UInt8) -> Bool { tag == string || tag == set || tag == setChange }

    /// A set's members as a string kept where strings are: the set's tagged value bytes (``ByteWriter/value(_:)``),
    /// one Unicode scalar per byte, so that cells stay a tag and a word and equal sets give equal strings.
    static func setText(_ ids: [ObjectID]) -> String { text(of: [.set(ids)]) }

    /// The members an update added to a set and removed from it, as a string as ``setText(_:)`` makes one.
    static func setChangeText(added: Value, removed: Value) -> String { text(of: [added, removed]) }

    private static func text(of values: [Value]) -> String {
        var w = ByteWriter(capacity: 16)
        for v in values { w.value(v) }
        var scalars = String.UnicodeScalarView()
        for b in w.finish() { scalars.append(Unicode.Scalar(b)) }
        return String(scalars)
    }

    /// The set ``setText(_:)`` made.
    static func set(fromText text: String) -> Value { values(fromText: text, count: 1)[0] }

    /// The members added and removed ``setChangeText(added:removed:)`` made.
    static func setChange(fromText text: String) -> (added: Value, removed: Value) {
        let v = values(fromText: text, count: 2)
        return (v[0], v[1])
    }

    private static func values(fromText text: String, count: Int) -> [Value] {
        let bytes = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        return bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            return (0..<count).map { _ in
                guard let v = try? r.value(), case .set = v else { preconditionFailure("a set cell that setText did not write") }
                return v
            }
        }
    }

    /// The tag and 8-byte payload of `value` (`nil`: no value); a string's payload is the place `place(string)`
    /// gives it.
    @inline(__always)
    static func encode(_ value: Value?, place: (String) -> Int) -> (tag: UInt8, payload: UInt64) {
        switch value {
        case nil: return (absent, 0)
        case .null?: return (null, 0)
        case .string(let s)?: return (string, UInt64(place(s)))
        case .int(let v)?: return (int, UInt64(bitPattern: v))
        case .double(let v)?: return (double, v.bitPattern)
        case .bool(let v)?: return (v ? trueBool : falseBool, 0)
        case .date(let t)?: return (date, UInt64(bitPattern: t.milliseconds))
        case .set(let ids)?: return (set, UInt64(place(setText(ids))))
        }
    }

    /// The value of a tag and payload (`nil` for no value); a string is `string(place)`.
    @inline(__always)
    static func decode(_ tag: UInt8, _ payload: UInt64, string: (Int) -> String) -> Value? {
        switch tag {
        case null: return .null
        case CellKind.string: return .string(string(Int(payload)))
        case int: return .int(Int64(bitPattern: payload))
        case double: return .double(Double(bitPattern: payload))
        case falseBool: return .bool(false)
        case trueBool: return .bool(true)
        case date: return .date(Timestamp(milliseconds: Int64(bitPattern: payload)))
        case set: return CellKind.set(fromText: string(Int(payload)))
        case absent: return nil
        default: preconditionFailure("a cell tag \(tag) no write makes")
        }
    }
}

/// One value decoded for a slot, as a row's cell holds it (``CellKind``): a tag and an 8-byte payload, a string's
/// payload being its place in ``SlotChanges/strings``. Trivial to copy and to drop, so a batch of them is reused
/// without touching each.
struct SlotValue {
    package var slot: Int
    var tag: UInt8
    var payload: UInt64
}

/// The changes of one entity in a run of log entries, decoded by slot, in the order a fold applies them: an entry's
/// changes in its order, or for an undo each change's inverse, the entry's last change first. A fold decodes a
/// batch of entries into it, then ``SlotRows/apply(_:onlyKnown:)`` applies the batch at once. Reused from batch to
/// batch.
struct SlotChanges {
    enum Kind {
        /// The object exists with exactly these values (an insert; the inverse of a delete).
        case set
        /// The object exists with these values changed (an update, or its inverse).
        case merge
        /// The object does not exist (a delete; the inverse of an insert).
        case remove
    }

    /// A change, but for its object's id (in ``ids``, at the same index): trivial to copy, so a fold's loops over
    /// a batch copy no reference per change.
    package struct Change {
        var kind: Kind
        /// The seq of the entry that made it.
        package var seq: UInt64
        /// Its values in ``SlotChanges/values``.
        var values: Range<Int>
        /// For a checked fold (``CheckedFold``), what the change says it overwrites, in ``SlotChanges/previous``:
        /// an update's previous values, a delete's removed object. Empty otherwise.
        var previous: Range<Int> = 0..<0
    }

    private(set) var changes: [Change] = []
    /// The id of each change's object, by change.
    private(set) var ids: [ObjectID] = []
    private(set) var values: [SlotValue] = []
    /// The values changes say they overwrite, for a checked fold.
    private(set) var previous: [SlotValue] = []
    /// The strings of ``values`` and ``previous``, by place.
    private(set) var strings: [String] = []
    /// Where the values of the change being decoded start.
    private var valuesStart = 0
    private var previousStart = 0

    mutating func removeAll() {
        changes.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        previous.removeAll(keepingCapacity: true)
        strings.removeAll(keepingCapacity: true)
        valuesStart = 0
        previousStart = 0
    }

    package mutating func append(_ value: SlotValue) { values.append(value) }

    /// Appends `value` for `slot` to the change being decoded.
    package mutating func append(slot: Int, value: Value) {
        let (tag, payload) = CellKind.encode(value) { addString($0) }
        values.append(SlotValue(slot: slot, tag: tag, payload: payload))
    }

    /// Keeps `s` for a value of the batch: the payload of its ``SlotValue``.
    mutating func addString(_ s: String) -> Int {
        strings.append(s)
        return strings.count - 1
    }

    /// The value `v` holds.
    package func value(of v: SlotValue) -> Value {
        CellKind.decode(v.tag, v.payload) { strings[$0] } ?? .null
    }

    /// The members added and removed of a set's change (``CellKind/setChange``); `nil` for any other value.
    func setChange(of v: SlotValue) -> (added: Value, removed: Value)? {
        v.tag == CellKind.setChange ? CellKind.setChange(fromText: strings[Int(v.payload)]) : nil
    }

    /// Takes back every change from the `count`th on, and the values of a change being decoded (a damaged entry's).
    mutating func truncate(toChanges count: Int) {
        if count < changes.count {
            valuesStart = changes[count].values.lowerBound
            previousStart = changes[count].previous.lowerBound
            changes.removeSubrange(count...)
            ids.removeSubrange(count...)
        }
        values.removeSubrange(valuesStart...)
        previous.removeSubrange(previousStart...)
    }

    /// Appends a value the change being decoded says it overwrites.
    mutating func appendPrevious(_ value: SlotValue) { previous.append(value) }

    /// Ends a change, made at `seq`, whose values (and previous values) were appended since the previous one ended.
    package mutating func end(_ kind: Kind, id: ObjectID, seq: UInt64) {
        changes.append(Change(kind: kind, seq: seq, values: valuesStart..<values.count,
                              previous: previousStart..<previous.count))
        ids.append(id)
        valuesStart = values.count
        previousStart = previous.count
    }

    /// Reverses the order of the changes from `first` on (an undo applies an entry's inverses last first).
    mutating func reverseChanges(from first: Int) {
        changes[first...].reverse()
        ids[first...].reverse()
    }

    /// The values of change `i`.
    func valueRange(of i: Int) -> Range<Int> { changes[i].values }
}

/// The objects of one entity while a fold by slot runs: rows in the order first seen, with an index by id, each
/// with its kept values in slots (`nil` where it has no value) and the seq of the last change applied to it.
///
/// A state that starts in id order (the head's rows) or grows in id order (inserts of increasing ids) is still in
/// id order at the end, so reading it out needs no sort.
///
/// A fold of random changes waits on memory, so a row is kept compact, in one run of words: its mark (the seq of
/// the last change applied, shifted left by one, | 1 when the object exists), a byte per slot saying what the slot
/// holds (``CellKind``), then an 8-byte payload per slot (an int's or a date's bits, a double's bit pattern, a
/// string's place in ``strings``). Three values take 40 bytes — a cache line or two — where `Value?` cells and a
/// separate mark took 72 bytes and another line; and no value but a string is retained or released.
struct SlotRows {
    let layout: SlotLayout
    private(set) var ids: [ObjectID] = []
    /// Whether the rows are in id order (each row's id above the one before): then row order is id order.
    private(set) var rowsAreInIDOrder = true
    private var index = ObjectIDIndex()
    /// The rows, `rowWords` words each: mark, tag words, payloads.
    private var words: [UInt64] = []
    /// A new row's words: no seq, not existing, every slot absent.
    private let emptyRow: [UInt64]
    /// Words of tags per row (a byte per slot).
    private let tagWords: Int
    /// Words per row.
    private let rowWords: Int
    /// The strings the rows hold, by place; a place freed by an overwrite is reused (`freeStrings`).
    private var strings: [String] = []
    private var freeStrings: [Int] = []
    /// How many changes ahead of the one applied a row's values are prefetched.
    static let prefetchDistance = 12
    /// The rows of the batch being applied (`-1` for a change left out), reused from batch to batch.
    private var batchRows: [Int] = []
    /// For a fold that writes the rows it changed (a replay into a new store): the rows changed since
    /// ``takeTouchedRows()`` was last called, each once, and by row the round it was last listed in.
    private var touched: [Int] = []
    private var touchedRound: [UInt32] = []
    private var round: UInt32 = 1
    /// Whether ``apply(_:onlyKnown:report:)`` lists the rows it changes (``takeTouchedRows()``).
    let tracksTouchedRows: Bool

    /// An empty state of `layout`'s rows, with room for `capacity`; with `tracksTouchedRows`, it lists the rows
    /// it changes.
    init(layout: SlotLayout, capacity: Int = 0, tracksTouchedRows: Bool = false) {
        self.layout = layout
        self.tracksTouchedRows = tracksTouchedRows
        tagWords = (layout.width + 7) / 8
        rowWords = 1 + tagWords + layout.width
        emptyRow = Array(repeating: 0, count: rowWords)
        if capacity > 0 {
            ids.reserveCapacity(capacity)
            index = ObjectIDIndex(capacity: capacity)
            words.reserveCapacity(capacity * rowWords)
        }
    }

    package var count: Int { ids.count }

    /// The seq of the last change applied to row `r` (0 for a head row not changed since).
    package func seq(ofRow r: Int) -> UInt64 { words[r * rowWords] >> 1 }

    /// Whether the object of row `r` exists.
    func exists(_ r: Int) -> Bool { words[r * rowWords] & 1 == 1 }

    /// The row of `id`, if the state has one (for an object that exists or did).
    package func row(of id: ObjectID) -> Int? { index.row(of: id, in: ids) }

    /// The value in slot `j` of the row starting at word `base`, `nil` where it has none.
    @inline(__always)
    private func cell(_ base: Int, _ j: Int) -> Value? {
        CellKind.decode(tag(base, j), words[payloadAt(base, j)]) { strings[$0] }
    }

    /// The value an output reads from slot `slot` (`-1`: an attribute the layout does not keep) of the row starting
    /// at word `base`: `absent` (the attribute's ``Attribute/absentValue``) where the row has none.
    @inline(__always)
    private func outputValue(_ base: Int, _ slot: Int, absent: Value) -> Value {
        slot < 0 ? absent : (cell(base, slot) ?? absent)
    }

    /// Sets slot `j` of the row starting at word `base` to `value` (`nil`: no value), freeing a string it held.
    @inline(__always)
    private mutating func setCell(_ base: Int, _ j: Int, _ value: Value?) {
        freeString(base, j)
        let (tag, payload) = CellKind.encode(value) { placeString($0) }
        store(base, j, tag, payload)
    }

    /// Sets slot `v.slot` of the row starting at word `base` to `v`, a value of `batch`, freeing a string it held.
    @inline(__always)
    private mutating func setCell(_ base: Int, _ v: SlotValue, of batch: SlotChanges) {
        if let (added, removed) = batch.setChange(of: v) {
            setCell(base, v.slot, (cell(base, v.slot) ?? .null).applyingMembers(added: added, removed: removed))
            return
        }
        freeString(base, v.slot)
        store(base, v.slot, v.tag, CellKind.holdsPlace(v.tag) ? UInt64(placeString(batch.strings[Int(v.payload)])) : v.payload)
    }

    /// Frees the string slot `j` of the row starting at word `base` holds, if it holds one.
    @inline(__always)
    private mutating func freeString(_ base: Int, _ j: Int) {
        guard CellKind.holdsPlace(tag(base, j)) else { return }
        let place = Int(words[payloadAt(base, j)])
        strings[place] = ""
        freeStrings.append(place)
    }

    /// Keeps `string` in ``strings``: a freed place or a new one.
    @inline(__always)
    private mutating func placeString(_ string: String) -> Int {
        if let free = freeStrings.popLast() {
            strings[free] = string
            return free
        }
        strings.append(string)
        return strings.count - 1
    }

    /// Stores a tag and payload in slot `j` of the row starting at word `base`.
    @inline(__always)
    private mutating func store(_ base: Int, _ j: Int, _ tag: UInt8, _ payload: UInt64) {
        let tagAt = base + 1 + j >> 3, shift = UInt64(j & 7) * 8
        words[tagAt] = words[tagAt] & ~(0xFF << shift) | UInt64(tag) << shift
        words[payloadAt(base, j)] = payload
    }

    /// Adds an existing object, its kept values in slot order (as ``FetchedValues/slots`` of ``SlotLayout/kept``).
    mutating func appendExisting(_ id: ObjectID, _ fetched: FetchedValues) {
        // The instance, not its slots' pointer: an argument stays alive for the call, a pointer read from it does not.
        let slots = fetched.slots
        precondition(slots.count == layout.width, "a row holds one value per kept attribute")
        let r = newRow(id)
        let base = r * rowWords
        words[base] |= 1
        for j in 0..<layout.width { setCell(base, j, slots[j]) }
    }

    /// Adds an existing object as a stored row holds it (a checkpoint's): `values` by name — a name it lacks stays
    /// without a value, as in the row — and `seq`, the last change of it. `false`, adding nothing, when a name is not
    /// one the layout keeps.
    mutating func appendStored(_ id: ObjectID, _ values: ObjectValues, seq: UInt64) -> Bool {
        var cells: [(slot: Int, value: Value)] = []
        cells.reserveCapacity(values.count)
        for (name, value) in values {
            guard let i = layout.attributes.firstIndex(where: { $0.name == name }), layout.slotOf[i] >= 0 else { return false }
            cells.append((layout.slotOf[i], value))
        }
        let r = newRow(id)
        let base = r * rowWords
        words[base] = seq << 1 | 1
        for (slot, value) in cells { setCell(base, slot, value) }
        return true
    }

    /// Adds an object that does not exist (yet): a fold that applies only to known objects changes it.
    mutating func appendAbsent(_ id: ObjectID) {
        _ = newRow(id)
    }

    private mutating func newRow(_ id: ObjectID) -> Int {
        let r = ids.count
        if rowsAreInIDOrder, let last = ids.last, !(last < id) { rowsAreInIDOrder = false }
        ids.append(id)
        index.insert(id, row: r)
        words.append(contentsOf: emptyRow)  // an array's contents: one copy, not a generic loop per row
        if tracksTouchedRows { touchedRound.append(0) }
        return r
    }

    /// The rows changed since the last call (or since the start), in the order first changed; the list starts again.
    mutating func takeTouchedRows() -> [Int] {
        precondition(tracksTouchedRows, "this state does not list the rows it changes")
        defer {
            touched.removeAll(keepingCapacity: true)
            round &+= 1
            if round == 0 {  // wrapped: no row may look listed in the new round
                for i in touchedRound.indices { touchedRound[i] = 0 }
                round = 1
            }
        }
        return touched
    }

    /// Applies a batch of changes in their order, each made at its seq. With `onlyKnown`, changes of objects not
    /// yet in the state are left out. With `report`, each change is first checked against the state it follows
    /// (see ``problem(with:of:in:)``), and `report` is called with the change's index in the batch and what is
    /// wrong; the change is applied all the same (as `verify` replays on past a problem).
    ///
    /// A fold of random changes waits on memory, twice per change: the row's index entry, then its row (a cache
    /// miss each on a state larger than the cache). So the batch is applied in three passes: prefetch every
    /// change's index entry; find (or make) every row; apply, prefetching the row ``prefetchDistance`` changes
    /// ahead. The misses overlap instead of queueing, and the result is the same as applying the changes one by
    /// one.
    mutating func apply(_ batch: SlotChanges, onlyKnown: Bool = false, report: ((Int, SlotProblem) -> Void)? = nil) {
        let changes = batch.changes, changeIDs = batch.ids
        for id in changeIDs { index.prefetch(id) }
        batchRows.removeAll(keepingCapacity: true)
        let width = layout.width, rowWords = rowWords
        for id in changeIDs {
            let r: Int
            if let found = index.row(of: id, in: ids) {
                r = found
            } else if onlyKnown {
                batchRows.append(-1)
                continue
            } else {
                r = newRow(id)
            }
            batchRows.append(r)
        }
        for (k, change) in changes.enumerated() {
            // The row `prefetchDistance` changes ahead, both cache lines it may span: far enough to arrive in
            // time, near enough not to be evicted or queued behind the CPU's few misses in flight (prefetching the
            // whole batch first left two fifths of the time on the values' load).
            if k + Self.prefetchDistance < batchRows.count, case let ahead = batchRows[k + Self.prefetchDistance], ahead >= 0 {
                words.withUnsafeBufferPointer { w in
                    viewlog_prefetch(w.baseAddress! + ahead * rowWords)
                    viewlog_prefetch(w.baseAddress! + (ahead * rowWords + rowWords - 1))
                }
            }
            let r = batchRows[k]
            guard r >= 0 else { continue }
            if let report, let problem = problem(with: change, of: batch, in: r) { report(k, problem) }
            if tracksTouchedRows, touchedRound[r] != round {
                touchedRound[r] = round
                touched.append(r)
            }
            let base = r * rowWords
            switch change.kind {
            case .remove, .set:
                for j in 0..<width {
                    freeString(base, j)
                    store(base, j, CellKind.absent, 0)
                }
                words[base] = change.seq << 1 | (change.kind == .set ? 1 : 0)
            case .merge:
                words[base] = change.seq << 1 | 1  // an update of an absent object makes it, as `ObjectValues.apply` does
            }
            if change.kind != .remove {
                for v in batch.values[change.values] { setCell(base, v, of: batch) }
            }
        }
    }

    /// What is wrong with `change` (of `batch`) against row `r` as it is before the change, if anything: an insert
    /// of an object that exists, an update or delete of one that does not, or previous values (an update's, a
    /// delete's whole object) other than the row's. Values are compared bit for bit: the log records exactly what
    /// a change overwrote, so any difference (even `0.0` for `-0.0`) means the log and the state disagree.
    private func problem(with change: SlotChanges.Change, of batch: SlotChanges, in r: Int) -> SlotProblem? {
        let base = r * rowWords
        switch change.kind {
        case .set:
            return exists(r) ? .insertOfExisting : nil
        case .merge:
            guard exists(r) else { return .updateOfAbsent }
            for p in batch.previous[change.previous] where !holds(base, p, of: batch, absentAsNull: true) {
                return .previousDiffers(slot: p.slot)
            }
            return nil
        case .remove:
            guard exists(r) else { return .deleteOfAbsent }
            var present = 0
            for j in 0..<layout.width where cell(base, j) != nil { present += 1 }
            guard present == change.previous.count else { return .removedDiffers }
            for p in batch.previous[change.previous] where !holds(base, p, of: batch, absentAsNull: false) {
                return .removedDiffers
            }
            return nil
        }
    }

    /// Whether slot `v.slot` of the row starting at word `base` holds exactly `v` (a value of `batch`), bit for bit
    /// (``Value/isIdentical(to:)``); with `absentAsNull`, no value counts as `null`.
    @inline(__always)
    private func holds(_ base: Int, _ v: SlotValue, of batch: SlotChanges, absentAsNull: Bool) -> Bool {
        if let (added, removed) = batch.setChange(of: v) {
            return (cell(base, v.slot) ?? .null).precedes(update: added, previous: removed)
        }
        var tag = tag(base, v.slot)
        if absentAsNull, tag == CellKind.absent { tag = CellKind.null }
        guard tag == v.tag else { return false }
        let payload = words[payloadAt(base, v.slot)]
        guard CellKind.holdsPlace(tag) else { return payload == v.payload }
        return strings[Int(payload)].utf8.elementsEqual(batch.strings[Int(v.payload)].utf8)
    }

    /// Writes the values of row `r` as object values (``ByteWriter/objectValues(_:)``'s bytes for the same values:
    /// a count, then each value the row has with its name, in slot order, which is name order), straight from the
    /// row's cells.
    func writeObjectValues(ofRow r: Int, into w: inout ByteWriter) {
        let base = r * rowWords
        var present = 0
        for j in 0..<layout.width where tag(base, j) != CellKind.absent { present += 1 }
        w.varint(present)
        for j in 0..<layout.width {
            let tag = tag(base, j)
            guard tag != CellKind.absent else { continue }
            let name = layout.keptNames[j]
            w.varint(name.count)
            name.withUnsafeBytes { w.raw($0) }
            let payload = words[payloadAt(base, j)]
            switch tag {
            case CellKind.null: w.u8(ValueTag.null)
            case CellKind.string:
                w.u8(ValueTag.string)
                w.string(strings[Int(payload)], limit: Limits.stringBytesMax)
            case CellKind.int: w.u8(ValueTag.int); w.u64(payload)
            case CellKind.double: w.u8(ValueTag.double); w.u64(payload)
            case CellKind.falseBool: w.u8(ValueTag.boolFalse)
            case CellKind.trueBool: w.u8(ValueTag.boolTrue)
            case CellKind.date: w.u8(ValueTag.date); w.u64(payload)
            case CellKind.set: w.value(CellKind.set(fromText: strings[Int(payload)]))
            default: preconditionFailure("SlotRows: a cell tag \(tag) no write makes")
            }
        }
    }

    /// Where the payload of slot `j` of the row starting at word `base` is in ``words``.
    @inline(__always)
    private func payloadAt(_ base: Int, _ j: Int) -> Int { base + 1 + tagWords + j }

    /// The tag byte of slot `j` of the row starting at word `base`.
    @inline(__always)
    private func tag(_ base: Int, _ j: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: words[base + 1 + j >> 3] >> (UInt64(j & 7) * 8))
    }

    /// The values of row `r` in the canonical form of `attributes` (sorted by name; each a kept attribute):
    /// exactly those names, `null` where the row has no value; `nil` when the object does not exist.
    func values(ofRow r: Int, canonicalFor output: OutputSlots) -> ObjectValues? {
        guard exists(r) else { return nil }
        var out = ObjectValues(minimumCapacity: output.names.count)
        let base = r * rowWords
        for (k, name) in output.names.enumerated() {
            out[name] = outputValue(base, output.slots[k], absent: output.absent[k])
        }
        return out
    }

    /// Every row that exists, in id order, in the canonical form of `output`.
    func existingRows(canonicalFor output: OutputSlots) -> [(id: ObjectID, values: ObjectValues)] {
        rowsInIDOrder().compactMap { r in values(ofRow: r, canonicalFor: output).map { (ids[r], $0) } }
    }

    /// Calls `visit` with every row that exists, in id order, and its values of `read`'s attributes in their order
    /// (`null` where it has none) in `fetched`, reused for every row; for each row `visit` accepts, calls `member`
    /// with its values of `all`'s attributes, in one buffer reused for every row. A row `visit` refuses (a view's
    /// non-member) gets only the few values it reads.
    func forEachExistingRow(reading read: OutputSlots, into fetched: FetchedValues, all: OutputSlots,
                            visit: (ObjectID, FetchedValues) -> Bool, member: (ObjectID, [Value]) -> Void) {
        precondition(fetched.slots.count == read.slots.count, "fetched values of other attributes")
        var values = [Value](repeating: .null, count: all.slots.count)
        for r in rowsInIDOrder() where exists(r) {
            let base = r * rowWords
            for (k, slot) in read.slots.enumerated() { fetched.slots[k] = outputValue(base, slot, absent: read.absent[k]) }
            guard visit(ids[r], fetched) else { continue }
            for (k, slot) in all.slots.enumerated() { values[k] = outputValue(base, slot, absent: all.absent[k]) }
            member(ids[r], values)
        }
    }

    /// Row indices in id order.
    func rowsInIDOrder() -> [Int] {
        inIDOrder(Array(ids.indices))
    }

    /// `rows` sorted by their ids.
    func inIDOrder(_ rows: [Int]) -> [Int] {
        rowsAreInIDOrder ? rows.sorted() : rows.sorted { ids[$0] < ids[$1] }
    }

    /// Where the values of `attributes` are found in this state's rows.
    struct OutputSlots {
        let names: [String]
        let slots: [Int]
        /// What each reads where the row has no value (``Attribute/absentValue``).
        let absent: [Value]
    }

    /// The output slots of `attributes` (sorted by name, without repeats); an attribute the layout does not keep
    /// reads as its absent value.
    func output(_ attributes: [Attribute]) -> OutputSlots {
        var slotByName: [String: Int] = [:]
        for (j, a) in layout.kept.enumerated() { slotByName[a.name] = j }
        var names: [String] = [], slots: [Int] = [], absent: [Value] = []
        for a in attributes where names.last != a.name {
            names.append(a.name)
            slots.append(slotByName[a.name] ?? -1)
            absent.append(a.absentValue)
        }
        return OutputSlots(names: names, slots: slots, absent: absent)
    }
}

/// What a checked fold found wrong with a change against the state it follows (``SlotRows/apply(_:onlyKnown:report:)``).
enum SlotProblem: Equatable {
    /// An insert of an object that exists.
    case insertOfExisting
    /// An update of an object that does not exist.
    case updateOfAbsent
    /// An update whose previous value of the attribute in `slot` is not the object's.
    case previousDiffers(slot: Int)
    /// A delete of an object that does not exist.
    case deleteOfAbsent
    /// A delete whose removed values are not the object's.
    case removedDiffers
}
