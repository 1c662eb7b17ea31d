import Foundation
@_spi(Testing) import ViewLog
import ViewLogTesting

/// One change of a model transaction.
public enum ModelOp: Sendable, Hashable, CustomStringConvertible {
    case insert(ObjectKey, ObjectValues)
    case update(ObjectKey, ObjectValues)
    case delete(ObjectKey)

    public var description: String {
        switch self {
        case let .insert(k, v): return "insert \(k) \(ViewModel.text(v))"
        case let .update(k, v): return "update \(k) \(ViewModel.text(v))"
        case let .delete(k): return "delete \(k)"
        }
    }
}

/// A plain model of a store for tests of the view engine: a dictionary of objects per position, with the
/// ``Delta`` of any move between positions built by comparing states.
public struct ViewModel: Sendable {
    /// The state at each position; `states[0]` is the empty store or the initial objects.
    public private(set) var states: [[ObjectKey: ObjectValues]]
    /// Which objects each transaction touched (index seq-1).
    public private(set) var touched: [Set<ObjectKey>] = []

    /// Makes a model whose position 0 holds `initial`.
    public init(initial: [ObjectKey: ObjectValues] = [:]) {
        states = [initial]
    }

    /// The head position.
    public var head: UInt64 { UInt64(states.count - 1) }
    /// The objects at the head.
    public var current: [ObjectKey: ObjectValues] { states[states.count - 1] }

    /// Appends one transaction; updates merge into the object's values.
    public mutating func commit(_ ops: [ModelOp]) {
        var state = current
        var keys = Set<ObjectKey>()
        for op in ops {
            switch op {
            case let .insert(k, v):
                precondition(state[k] == nil, "insert of existing \(k)")
                state[k] = v
                keys.insert(k)
            case let .update(k, v):
                precondition(state[k] != nil, "update of missing \(k)")
                state[k]!.merge(v) { _, new in new }
                keys.insert(k)
            case let .delete(k):
                precondition(state[k] != nil, "delete of missing \(k)")
                state[k] = nil
                keys.insert(k)
            }
        }
        states.append(state)
        touched.append(keys)
    }

    /// The delta from position `a` to `b` (either direction): every object touched by a transaction in
    /// between, with its state at both ends and the last (forwards) or lowest (backwards) seq touching it.
    public func delta(from a: UInt64, to b: UInt64) -> Delta {
        var seqs: [ObjectKey: UInt64] = [:]
        if a < b {
            for s in (a + 1)...b { for k in touched[Int(s) - 1] { seqs[k] = s } }
        } else if b < a {
            for s in stride(from: a, to: b, by: -1) { for k in touched[Int(s) - 1] { seqs[k] = s } }
        }
        let objects = seqs.keys.sorted().map { k in
            ObjectDelta(key: k, before: states[Int(a)][k], after: states[Int(b)][k], seq: seqs[k]!)
        }
        return Delta(from: a, to: b, objects: objects)
    }

    /// The objects of `entity` at position `p`, as a controller is made from.
    public func objects(of entity: String, at p: UInt64) -> [(ObjectID, ObjectValues)] {
        states[Int(p)].filter { $0.key.entity == entity }.map { ($0.key.id, $0.value) }
    }

    static func text(_ v: ObjectValues) -> String {
        "{" + v.keys.sorted().map { "\($0): \(v[$0]!)" }.joined(separator: ", ") + "}"
    }
}

/// A view definition for model tests: a fetch request, with membership as a closure (and the same predicate
/// as text for when the real parser is used).
public struct ViewSpec: Sendable, CustomStringConvertible {
    public var request: FetchRequest
    public var predicateText: String
    public var isIncluded: @Sendable (ObjectValues, ObjectID) -> Bool

    public init(request: FetchRequest, predicateText: String, isIncluded: @escaping @Sendable (ObjectValues, ObjectID) -> Bool) {
        self.request = request
        self.predicateText = predicateText
        self.isIncluded = isIncluded
    }

    public var description: String {
        var s = "where \(predicateText) sort \(request.sortDescriptors.map(\.description).joined(separator: ", "))"
        if let k = request.sectionKey { s += " section \(k)" }
        if let l = request.limit { s += " limit \(l)" }
        if request.offset > 0 { s += " offset \(request.offset)" }
        return s
    }

    /// Makes a controller of this view over the model at `position`.
    public func controller(_ model: ViewModel, entity: EntityDescription, at position: UInt64,
                           nodeCapacity: Int = 4) throws -> ResultsController {
        try ResultsController(fetchRequest: request, entity: entity, objects: model.objects(of: entity.name, at: position),
                              position: position, nodeCapacity: nodeCapacity, isIncluded: isIncluded)
    }

    // MARK: - Reference (plain filter + sort; independent of the engine)

    /// Key values of an object: section value first when sectioned, then sort values.
    public func keyValues(_ id: ObjectID, _ values: ObjectValues) -> [Value] {
        var keys = request.sectionKey.map { [value($0, id, values)] } ?? []
        keys += request.sortDescriptors.map { value($0.key, id, values) }
        return keys
    }

    func value(_ key: String, _ id: ObjectID, _ values: ObjectValues) -> Value {
        key == "id" ? id.value : (values[key] ?? .null)
    }

    var sectionAscending: Bool {
        guard let k = request.sectionKey, let first = request.sortDescriptors.first, first.key == k else { return true }
        return first.ascending
    }

    /// Whether `a` sorts before `b` in this view's order.
    public func less(_ a: (ObjectID, ObjectValues), _ b: (ObjectID, ObjectValues)) -> Bool {
        if let k = request.sectionKey {
            let c = Value.compare(value(k, a.0, a.1), value(k, b.0, b.1))
            if c != 0 { return sectionAscending ? c < 0 : c > 0 }
        }
        for d in request.sortDescriptors {
            let c = Value.compare(value(d.key, a.0, a.1), value(d.key, b.0, b.1))
            if c != 0 { return d.ascending ? c < 0 : c > 0 }
        }
        return a.0 < b.0
    }

    /// The view of `objects` computed from scratch: filter, sort, window, group into sections.
    public func expectedSnapshot(_ objects: [(ObjectID, ObjectValues)]) -> ViewSnapshot {
        let all = objects.filter { isIncluded($0.1, $0.0) }.sorted(by: less)
        let start = min(request.offset, all.count)
        let end = request.limit.map { min(all.count, start + $0) } ?? all.count
        let window = all[start..<end]
        guard let k = request.sectionKey else {
            return ViewSnapshot(sections: [.init(value: .null, rows: window.map(\.0))])
        }
        var sections: [ViewSnapshot.Section] = []
        for (id, values) in window {
            let v = value(k, id, values)
            if let last = sections.last, Value.compare(last.value, v) == 0 {
                sections[sections.count - 1].rows.append(id)
            } else {
                sections.append(.init(value: v, rows: [id]))
            }
        }
        return ViewSnapshot(sections: sections)
    }

    /// The batch DESIGN §5 prescribes for `delta` between the views `before` and `after`, by brute force:
    /// moves are stayers whose key changed and that changed section or their order against some other stayer.
    public func expectedChanges(_ delta: Delta, entity: String, before: ViewSnapshot, after: ViewSnapshot)
        -> (sections: Set<SectionChange>, rows: Set<RowChange>) {
        var touched: [ObjectID: ObjectDelta] = [:]
        for o in delta.objects where o.key.entity == entity { touched[o.key.id] = o }
        // Rows that only crossed a window edge get the latest seq among touched members (before or after).
        let seqs = touched.values.filter { o in
            o.before.map { isIncluded($0, o.key.id) } == true || o.after.map { isIncluded($0, o.key.id) } == true
        }.map(\.seq)
        let batchSeq = (delta.to >= delta.from ? seqs.max() : seqs.min()) ?? 0
        func paths(_ s: ViewSnapshot) -> [ObjectID: IndexPath] {
            var r: [ObjectID: IndexPath] = [:]
            for (i, sec) in s.sections.enumerated() { for (j, id) in sec.rows.enumerated() { r[id] = IndexPath(row: j, section: i) } }
            return r
        }
        let bp = paths(before), ap = paths(after)
        let bRank = Dictionary(uniqueKeysWithValues: before.rowIDs.enumerated().map { ($1, $0) })
        let aRank = Dictionary(uniqueKeysWithValues: after.rowIDs.enumerated().map { ($1, $0) })
        let stayers = before.rowIDs.filter { ap[$0] != nil }
        var rows = Set<RowChange>()
        for id in Set(bp.keys).union(ap.keys) {
            let seq = touched[id]?.seq ?? batchSeq
            switch (bp[id], ap[id]) {
            case let (f?, nil): rows.insert(.delete(id, from: f, seq: seq))
            case let (nil, t?): rows.insert(.insert(id, to: t, seq: seq))
            case let (f?, t?):
                guard let o = touched[id] else { continue }
                let bv = o.before ?? [:], av = o.after ?? [:]
                let changed = Set(bv.keys).union(av.keys).filter { !identical(bv[$0] ?? .null, av[$0] ?? .null) }
                    .sorted { Value.compare(.string($0), .string($1)) < 0 }
                let kb = keyValues(id, bv), ka = keyValues(id, av)
                let keyChanged = zip(kb, ka).contains { !identical($0, $1) }
                var isMove = false
                if keyChanged {
                    let sectionChanged = before.sections[f.section].value != after.sections[t.section].value
                    let flips = stayers.contains { s in s != id && (bRank[s]! < bRank[id]!) != (aRank[s]! < aRank[id]!) }
                    isMove = sectionChanged || flips
                }
                if isMove {
                    rows.insert(.move(id, from: f, to: t, seq: seq, changed: changed))
                } else if !changed.isEmpty {
                    rows.insert(.update(id, from: f, to: t, seq: seq, changed: changed))
                }
            case (nil, nil): continue
            }
        }
        var sections = Set<SectionChange>()
        if request.sectionKey != nil {
            for (i, s) in before.sections.enumerated() where !after.sections.contains(where: { $0.value == s.value }) {
                sections.insert(SectionChange(kind: .delete, index: i, value: s.value))
            }
            for (i, s) in after.sections.enumerated() where !before.sections.contains(where: { $0.value == s.value }) {
                sections.insert(SectionChange(kind: .insert, index: i, value: s.value))
            }
        }
        return (sections, rows)
    }

    func identical(_ a: Value, _ b: Value) -> Bool {
        if a == b { return true }
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return false
    }
}
