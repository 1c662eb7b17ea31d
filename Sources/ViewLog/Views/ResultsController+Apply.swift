import Foundation
/// A row a batch may report: an object the delta touched (a member before or after), or an untouched row
/// within reach of a window edge (it may have been shifted across it).
struct TrackedRow {
    var id: ObjectID
    var seq: UInt64
    /// Key before the batch (`nil`: not a member before). For an edge row, its unchanged key.
    var oldKey: RowKey?
    /// Key after the batch (`nil`: not a member after).
    var newKey: RowKey?
    /// Global ranks before and after.
    var oldRank: Int?
    var newRank: Int?
    /// Index paths in the window before and after (`nil`: not in the window).
    var from: IndexPath?
    var to: IndexPath?
}

extension ResultsController {
    /// Computes one batch and updates the rows (DESIGN §5). O(k log n) for k touched objects of the entity.
    func computeChangeSet(_ delta: Delta) -> ChangeSet {
        let order = rows.order
        let forward = delta.to >= delta.from
        var tracked: [TrackedRow] = []
        var trackedIndex: [ObjectID: Int] = [:]
        var values: [(before: ObjectValues?, after: ObjectValues?)] = []
        var batchSeq: UInt64? = nil

        // Each touched object once: its old key from the tree, its new key from its values after.
        for object in delta.objects where object.key.entity == entity.name {
            let id = object.key.id
            let oldKey = rows.key(of: id)
            var newKey: RowKey? = nil
            if let after = object.after, membership.evaluate(after, id) { newKey = order.key(id: id, values: after) }
            guard oldKey != nil || newKey != nil else { continue }
            precondition(trackedIndex[id] == nil, "Delta touches \(object.key) twice")
            trackedIndex[id] = tracked.count
            tracked.append(TrackedRow(id: id, seq: object.seq, oldKey: oldKey, newKey: newKey))
            values.append((object.before, object.after))
            batchSeq = batchSeq.map { forward ? max($0, object.seq) : min($0, object.seq) } ?? object.seq
        }
        let touchedCount = tracked.count
        guard let batchSeq else {
            return ChangeSet(from: delta.from, to: delta.to, isSectioned: isSectioned, sectionChanges: [], rowChanges: [])
        }

        // Before: ranks, edge rows, index paths, candidate sections.
        let before = window
        for i in 0..<touchedCount {
            if let key = tracked[i].oldKey { tracked[i].oldRank = rows.rank(ofStored: key) }
        }
        for range in edgeRanges(reach: touchedCount) {
            var rank = range.lowerBound
            rows.forEachID(from: rank) { id in
                if trackedIndex[id] == nil, let key = rows.key(of: id) {
                    trackedIndex[id] = tracked.count
                    tracked.append(TrackedRow(id: id, seq: batchSeq, oldKey: key, newKey: key, oldRank: rank))
                }
                rank += 1
                return rank < range.upperBound
            }
        }
        for i in tracked.indices {
            if let r = tracked[i].oldRank, before.contains(r) { tracked[i].from = indexPath(forRank: r, in: before) }
        }
        var sectionValues: [Value] = []
        if isSectioned {
            var seen = Set<Value>()
            for t in tracked {
                for key in [t.oldKey, t.newKey] {
                    if let key, seen.insert(order.sectionValue(key)).inserted { sectionValues.append(order.sectionValue(key)) }
                }
            }
        }
        let sectionsBefore = sectionValues.map { sectionIndex($0, in: before) }

        // Change the rows: remove old places, then add new ones.
        for t in tracked[0..<touchedCount] {
            if let old = t.oldKey, !ResultsController.sameKey(old, t.newKey) { rows.remove(t.id) }
        }
        for t in tracked[0..<touchedCount] {
            if let new = t.newKey, !ResultsController.sameKey(new, t.oldKey) { rows.insert(new) }
        }

        // After.
        let after = window
        for i in tracked.indices {
            if let key = tracked[i].newKey {
                let r = rows.rank(ofStored: key)
                tracked[i].newRank = r
                if after.contains(r) { tracked[i].to = indexPath(forRank: r, in: after) }
            }
        }
        let sectionsAfter = sectionValues.map { sectionIndex($0, in: after) }

        // Rows: deletes, inserts, and stayers whose key changed (move candidates) or values changed.
        var rowChanges: [RowChange] = []
        var leftRanks: [Int] = [], enteredRanks: [Int] = []
        var candidates: [Int] = []
        for (i, t) in tracked.enumerated() {
            switch (t.from, t.to) {
            case (nil, nil):
                continue
            case let (from?, nil):
                rowChanges.append(.delete(t.id, from: from, seq: t.seq))
                leftRanks.append(t.oldRank!)
            case let (nil, to?):
                rowChanges.append(.insert(t.id, to: to, seq: t.seq))
                enteredRanks.append(t.newRank!)
            case let (from?, to?):
                guard i < touchedCount else { continue }  // only shifted: never reported
                if !ResultsController.sameKey(t.oldKey!, t.newKey) {
                    candidates.append(i)
                } else {
                    let changed = ResultsController.changedAttributes(values[i].before, values[i].after)
                    if !changed.isEmpty {
                        rowChanges.append(.update(t.id, from: from, to: to, seq: t.seq, changed: changed))
                    }
                }
            }
        }
        rowChanges += classifyCandidates(candidates, tracked, values, before: before, after: after,
                                         leftRanks: leftRanks.sorted(), enteredRanks: enteredRanks.sorted())

        var sectionChanges: [SectionChange] = []
        for (j, value) in sectionValues.enumerated() {
            switch (sectionsBefore[j], sectionsAfter[j]) {
            case let (b?, nil): sectionChanges.append(SectionChange(kind: .delete, index: b, value: value))
            case let (nil, a?): sectionChanges.append(SectionChange(kind: .insert, index: a, value: value))
            default: break
            }
        }
        return ChangeSet(from: delta.from, to: delta.to, isSectioned: isSectioned, sectionChanges: sectionChanges,
                         rowChanges: rowChanges)
    }

    /// Global ranks (before the batch) of rows that k touched objects can shift across a window edge: an
    /// untouched row's rank moves by at most k, so only rows within k of an edge can cross it. The ranges may
    /// overlap; callers skip rows already tracked.
    func edgeRanges(reach k: Int) -> [Range<Int>] {
        let n = rows.count
        var edges: [Int] = []
        if fetchRequest.offset > 0 { edges.append(fetchRequest.offset) }
        if let limit = fetchRequest.limit { edges.append(fetchRequest.offset.addingSaturating(limit)) }
        return edges.compactMap { e in
            let lo = max(0, e - k), hi = min(n, e.addingSaturating(k))
            return lo < hi ? lo..<hi : nil
        }
    }

    /// The index of the section of `value` in the window, or `nil` when no row of it is in the window.
    private func sectionIndex(_ value: Value, in window: Window) -> Int? {
        guard !window.isEmpty, let s = rows.sections.locate(value), s.start < window.end, s.end > window.start else {
            return nil
        }
        return s.index - window.firstSection
    }

    /// Decides move or update for stayers whose key changed: a move iff its section changed or its order
    /// relative to some other stayer changed (DESIGN §5).
    ///
    /// Stayers are the fixed ones (key unchanged; their order among themselves cannot change) and the
    /// candidates. Fixed stayers below a candidate form a prefix of the fixed order, so the candidate keeps
    /// its order against every fixed stayer iff the number of fixed stayers below it is the same before and
    /// after. Against other candidates: with b and a its ranks among candidates before and after, the sets
    /// below it are equal iff b == a and the candidates of before-rank < b all have after-rank < b.
    private func classifyCandidates(_ candidates: [Int], _ tracked: [TrackedRow],
                                    _ values: [(before: ObjectValues?, after: ObjectValues?)],
                                    before: Window, after: Window,
                                    leftRanks: [Int], enteredRanks: [Int]) -> [RowChange] {
        guard !candidates.isEmpty else { return [] }
        let byOld = candidates.sorted { tracked[$0].oldRank! < tracked[$1].oldRank! }
        let byNew = candidates.sorted { tracked[$0].newRank! < tracked[$1].newRank! }
        var afterPosition: [Int: Int] = [:]
        for (p, i) in byNew.enumerated() { afterPosition[i] = p }
        let order = rows.order
        var result: [RowChange] = []
        var maxAfterBelow = -1
        for (b, i) in byOld.enumerated() {
            let t = tracked[i]
            let a = afterPosition[i]!
            let stayersBelowBefore = (t.oldRank! - before.start) - ResultsController.countLess(leftRanks, t.oldRank!)
            let stayersBelowAfter = (t.newRank! - after.start) - ResultsController.countLess(enteredRanks, t.newRank!)
            let keepsFixed = stayersBelowBefore - b == stayersBelowAfter - a
            let keepsCandidates = a == b && maxAfterBelow < b
            maxAfterBelow = max(maxAfterBelow, a)
            let sectionChanged = isSectioned
                && Value.compare(order.sectionValue(t.oldKey!), order.sectionValue(t.newKey!)) != 0
            let changed = ResultsController.changedAttributes(values[i].before, values[i].after)
            if sectionChanged || !keepsFixed || !keepsCandidates {
                result.append(.move(t.id, from: t.from!, to: t.to!, seq: t.seq, changed: changed))
            } else if !changed.isEmpty {
                result.append(.update(t.id, from: t.from!, to: t.to!, seq: t.seq, changed: changed))
            }
        }
        return result
    }

    /// Number of elements of `sorted` less than `x`.
    static func countLess(_ sorted: [Int], _ x: Int) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether two keys hold the same values (a changed-and-changed-back value is the same).
    static func sameKey(_ a: RowKey, _ b: RowKey?) -> Bool {
        guard let b, a.id == b.id, a.values.count == b.values.count else { return false }
        for i in a.values.indices where !Value.identical(a.values[i], b.values[i]) { return false }
        return true
    }

    /// Every attribute whose value differs between `before` and `after` (an absent value counts as `null`),
    /// sorted by name.
    static func changedAttributes(_ before: ObjectValues?, _ after: ObjectValues?) -> [String] {
        let b = before ?? [:], a = after ?? [:]
        var names: [String] = []
        for (name, v) in b where !Value.identical(v, a[name] ?? .null) { names.append(name) }
        for (name, v) in a where b[name] == nil && !Value.identical(v, .null) { names.append(name) }
        return names.sorted { Value.compareUTF8($0, $1) < 0 }
    }
}
