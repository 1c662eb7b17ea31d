@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials  // IndexPath
#else
import Foundation
#endif

/// A batch over a view's rows: the change set of one move (a ``Delta``), with the index-path rules of
/// NSFetchedResultsController and UITableView batch updates, computed in the module of the rows so that the
/// loop over the tree's calls is compiled as one.
extension OrderedRows {
    /// Computes one batch of a view of `shape` over these rows, updating them. O(k log n) for k touched objects of the entity.
    ///
    /// Every key is bytes (``KeyEncoding``): a touched object's old key is copied from the rows, its new key
    /// encoded once from its values after, both into the controller's scratch arena, which the batch reuses:
    /// it allocates only the change set it returns.
    package func applyBatch(_ delta: Delta, entity: String, shape: ViewShape, membership: RowMembership,
                            hidesQuantifierResults: Bool, scratch: inout ApplyScratch) -> ChangeSet {
        var s = ApplyScratch()
        swap(&s, &scratch)
        defer {
            s.reset()
            swap(&s, &scratch)
        }
        let order = self.order
        let forward = delta.to >= delta.from
        var batchSeq: UInt64? = nil

        // Each touched object once: its old key from the rows, its new key from its values after.
        for (j, object) in delta.objects.enumerated() where object.key.entity == entity {
            let id = object.key.id
            let slot = self.slot(of: id)
            var oldKey: KeyRef? = nil
            if let slot { oldKey = copyKey(ofSlot: slot, into: &s.keys) }
            var newKey: KeyRef? = nil
            if let after = object.after, membership.evaluate(after, id) {
                let start = s.keys.count
                let idStart = order.encode(id: id, values: after, into: &s.keys) - start
                let sectionEnd = s.keys.withUnsafeBytes { order.sectionEnd(UnsafeRawBufferPointer(rebasing: $0[start...])) }
                newKey = KeyRef(start: start, end: s.keys.count, idStart: idStart, sectionEnd: sectionEnd)
            }
            guard oldKey != nil || newKey != nil else { continue }
            s.tracked.append(TrackedRow(id: id, seq: object.seq, object: j, slot: slot, oldKey: oldKey, newKey: newKey))
            batchSeq = batchSeq.map { forward ? max($0, object.seq) : min($0, object.seq) } ?? object.seq
        }
        let touchedCount = s.tracked.count
        // Tracked rows by slot: to refuse an object touched twice and to skip tracked rows among the edge rows
        // (one touched row in a view without a window needs neither).
        if touchedCount > 1 || shape.offset > 0 || shape.limit != nil {
            for i in 0..<touchedCount {
                guard let slot = s.tracked[i].slot else { continue }
                precondition(s.bySlot.updateValue(i, forKey: slot) == nil,
                             "Delta touches \(delta.objects[s.tracked[i].object].key) twice")
            }
        }
        guard let batchSeq else {
            return ChangeSet(from: delta.from, to: delta.to, isSectioned: shape.isSectioned, sectionChanges: [], rowChanges: [])
        }

        // One touched row of a view without sections: its ranks come from the descents that remove and add it
        // (two instead of four), because its index paths need no section counts from before the change.
        let single = touchedCount == 1 && !shape.isSectioned

        // Before: ranks, edge rows, index paths, candidate sections.
        let before = window(shape)
        if !single {
            for i in 0..<touchedCount {
                if let key = s.tracked[i].oldKey { s.tracked[i].oldRank = rank(of: key, in: s) }
            }
        }
        forEachEdgeRange(reach: touchedCount, shape) { range in
            var rank = range.lowerBound
            forEachSlot(from: rank) { slot in
                if s.bySlot[slot] == nil {
                    s.bySlot[slot] = s.tracked.count
                    let key = copyKey(ofSlot: slot, into: &s.keys)
                    s.tracked.append(TrackedRow(id: self.id(ofSlot: slot), seq: batchSeq, object: -1, slot: slot,
                                                oldKey: key, newKey: key, oldRank: rank))
                }
                rank += 1
                return rank < range.upperBound
            }
        }
        for i in s.tracked.indices {
            if let r = s.tracked[i].oldRank, before.contains(r) { s.tracked[i].from = indexPath(forRank: r, in: before, isSectioned: shape.isSectioned) }
        }
        if shape.isSectioned { collectSections(&s, before: before) }

        // Change the rows: take old places out (a row that stays keeps its slot and id), then add new ones.
        for i in 0..<touchedCount {
            let t = s.tracked[i]
            guard let slot = t.slot else { continue }
            if s.same(t.oldKey!, t.newKey) {
                if single { s.tracked[i].oldRank = rank(of: t.oldKey!, in: s) }
                continue
            }
            let r = t.newKey == nil ? remove(slot: slot) : detach(slot: slot)
            if single { s.tracked[i].oldRank = r }
        }
        for i in 0..<touchedCount {
            let t = s.tracked[i]
            guard let new = t.newKey else { continue }
            if s.same(new, t.oldKey) {
                if single { s.tracked[i].newRank = t.oldRank }
                continue
            }
            let r = s.withBytes(new) { key in
                if let slot = t.slot { reattach(slot: slot, key, idStart: new.idStart) } else { insert(key, idStart: new.idStart) }
            }
            if single { s.tracked[i].newRank = r }
        }
        if single, let r = s.tracked[0].oldRank, before.contains(r) {
            s.tracked[0].from = indexPath(forRank: r, in: before, isSectioned: shape.isSectioned)
        }

        // After.
        let after = window(shape)
        for i in s.tracked.indices {
            if single && i == 0 {
                if let r = s.tracked[0].newRank, after.contains(r) { s.tracked[0].to = indexPath(forRank: r, in: after, isSectioned: shape.isSectioned) }
                continue
            }
            if let key = s.tracked[i].newKey {
                let r = rank(of: key, in: s)
                s.tracked[i].newRank = r
                if after.contains(r) { s.tracked[i].to = indexPath(forRank: r, in: after, isSectioned: shape.isSectioned) }
            }
        }
        for j in s.sections.indices {
            let section = s.sections[j]
            s.sections[j].after = s.keys.withUnsafeBytes {
                sectionIndex(UnsafeRawBufferPointer(rebasing: $0[section.start..<section.end]), in: after)
            }
        }

        // Rows: deletes, inserts, and stayers whose key changed (move candidates) or values changed.
        var rowChanges: [RowChange] = []
        for i in s.tracked.indices {
            let t = s.tracked[i]
            switch (t.from, t.to) {
            case (nil, nil):
                continue
            case let (from?, nil):
                rowChanges.append(.delete(t.id, from: from, seq: t.seq))
                s.leftRanks.append(t.oldRank!)
            case let (nil, to?):
                rowChanges.append(.insert(t.id, to: to, seq: t.seq))
                s.enteredRanks.append(t.newRank!)
            case let (from?, to?):
                guard i < touchedCount else { continue }  // only shifted: never reported
                if !s.same(t.oldKey!, t.newKey) {
                    s.candidates.append(i)
                } else {
                    let changed = changedNames(of: delta.objects[t.object], hidingQuantifiers: hidesQuantifierResults)
                    if !changed.isEmpty {
                        rowChanges.append(.update(t.id, from: from, to: to, seq: t.seq, changed: changed))
                    }
                }
            }
        }
        if !s.candidates.isEmpty {
            s.leftRanks.sort()
            s.enteredRanks.sort()
            classifyCandidates(&s, delta, before: before, after: after, isSectioned: shape.isSectioned,
                               hidesQuantifierResults: hidesQuantifierResults, into: &rowChanges)
        }

        var sectionChanges: [SectionChange] = []
        for section in s.sections {
            switch (section.before, section.after) {
            case let (b?, nil):
                sectionChanges.append(SectionChange(kind: .delete, index: b, value: sectionValue(section, in: s)))
            case let (nil, a?):
                sectionChanges.append(SectionChange(kind: .insert, index: a, value: sectionValue(section, in: s)))
            default: break
            }
        }
        return ChangeSet(from: delta.from, to: delta.to, isSectioned: shape.isSectioned, sectionChanges: sectionChanges,
                         rowChanges: rowChanges)
    }

    /// Copies the key of the row in `slot` to the end of `keys`.
    private func copyKey(ofSlot slot: UInt32, into keys: inout [UInt8]) -> KeyRef {
        let order = self.order
        return withKey(ofSlot: slot) { key, idStart in
            let start = keys.count
            keys.append(contentsOf: key)
            return KeyRef(start: start, end: keys.count, idStart: idStart, sectionEnd: order.sectionEnd(key))
        }
    }

    /// The global rank of a stored key.
    private func rank(of key: KeyRef, in s: ApplyScratch) -> Int {
        let found = s.withBytes(key) { lowerBound($0) }
        precondition(found.matched, "ResultsController: a tracked key is not stored")
        return found.index
    }

    /// Every distinct section of the tracked rows' keys (before and after), sorted and deduplicated by bytes,
    /// with its index in the window before.
    private func collectSections(_ s: inout ApplyScratch, before: Window) {
        for t in s.tracked {
            for key in [t.oldKey, t.newKey] {
                if let key { s.sections.append(TrackedSection(start: key.start, end: key.start + key.sectionEnd)) }
            }
        }
        let keys = s.keys
        keys.withUnsafeBytes { p in
            func bytes(_ t: TrackedSection) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: p[t.start..<t.end]) }
            s.sections.sort { compareBytes(bytes($0), bytes($1)) < 0 }
            var kept = 0
            for j in s.sections.indices where kept == 0 || compareBytes(bytes(s.sections[kept - 1]), bytes(s.sections[j])) != 0 {
                s.sections[kept] = s.sections[j]
                kept += 1
            }
            s.sections.removeSubrange(kept...)
            for j in s.sections.indices { s.sections[j].before = sectionIndex(bytes(s.sections[j]), in: before) }
        }
    }

    /// The value of a tracked section, read back from its bytes.
    private func sectionValue(_ section: TrackedSection, in s: ApplyScratch) -> Value {
        s.keys.withUnsafeBytes { self.order.sectionValue(UnsafeRawBufferPointer(rebasing: $0[section.start..<section.end])) }
    }

    /// Calls `body` with the global ranks (before the batch) of rows that k touched objects can shift across a
    /// window edge: an untouched row's rank moves by at most k, so only rows within k of an edge can cross it.
    /// The ranges may overlap; callers skip rows already tracked.
    package func forEachEdgeRange(reach k: Int, _ shape: ViewShape, _ body: (Range<Int>) -> Void) {
        let n = count
        func visit(_ e: Int) {
            let lo = max(0, e - k), hi = min(n, e.addingSaturating(k))
            if lo < hi { body(lo..<hi) }
        }
        if shape.offset > 0 { visit(shape.offset) }
        if let limit = shape.limit { visit(shape.offset.addingSaturating(limit)) }
    }

    /// The index of the section with key bytes `key` in the window, or `nil` when no row of it is in the window.
    private func sectionIndex(_ key: UnsafeRawBufferPointer, in window: Window) -> Int? {
        guard !window.isEmpty, let s = sections.locate(key), s.start < window.end, s.end > window.start else {
            return nil
        }
        return s.index - window.firstSection
    }

    /// Decides move or update for stayers whose key changed: a move iff its section changed or its order
    /// relative to some other stayer changed.
    ///
    /// Stayers are the fixed ones (key unchanged; their order among themselves cannot change) and the
    /// candidates. Fixed stayers below a candidate form a prefix of the fixed order, so the candidate keeps
    /// its order against every fixed stayer iff the number of fixed stayers below it is the same before and
    /// after. Against other candidates: with b and a its ranks among candidates before and after, the sets
    /// below it are equal iff b == a and the candidates of before-rank < b all have after-rank < b.
    private func classifyCandidates(_ s: inout ApplyScratch, _ delta: Delta, before: Window, after: Window,
                                    isSectioned: Bool, hidesQuantifierResults: Bool, into result: inout [RowChange]) {
        s.candidates.sort { s.tracked[$0].oldRank! < s.tracked[$1].oldRank! }
        s.byNew.append(contentsOf: s.candidates)
        s.byNew.sort { s.tracked[$0].newRank! < s.tracked[$1].newRank! }
        for (p, i) in s.byNew.enumerated() { s.tracked[i].candidateRankAfter = p }
        var maxAfterBelow = -1
        for (b, i) in s.candidates.enumerated() {
            let t = s.tracked[i]
            let a = t.candidateRankAfter
            let stayersBelowBefore = (t.oldRank! - before.start) - Self.countLess(s.leftRanks, t.oldRank!)
            let stayersBelowAfter = (t.newRank! - after.start) - Self.countLess(s.enteredRanks, t.newRank!)
            let keepsFixed = stayersBelowBefore - b == stayersBelowAfter - a
            let keepsCandidates = a == b && maxAfterBelow < b
            maxAfterBelow = max(maxAfterBelow, a)
            let sectionChanged = isSectioned && !s.sameSection(t.oldKey!, t.newKey!)
            let changed = changedNames(of: delta.objects[t.object], hidingQuantifiers: hidesQuantifierResults)
            if sectionChanged || !keepsFixed || !keepsCandidates {
                result.append(.move(t.id, from: t.from!, to: t.to!, seq: t.seq, changed: changed))
            } else if !changed.isEmpty {
                result.append(.update(t.id, from: t.from!, to: t.to!, seq: t.seq, changed: changed))
            }
        }
    }

    /// Number of elements of `sorted` less than `x`.
    package static func countLess(_ sorted: [Int], _ x: Int) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Every attribute whose value differs between `before` and `after` (an absent value counts as `null`),
    /// sorted by name.
    package static func changedAttributes(_ before: ObjectValues?, _ after: ObjectValues?) -> [String] {
        var names: [String] = []
        var shared = 0  // names of `before` that `after` has too
        if let b = before {
            for (name, v) in b {
                let w = after?[name]
                if w != nil { shared += 1 }
                if !Value.identical(v, w ?? .null) { names.append(name) }
            }
        }
        // `after`'s names beyond `before`'s (none when every one of its names was met above: no second lookup).
        if let a = after, a.count > shared {
            for (name, v) in a where before?[name] == nil && !Value.identical(v, .null) { names.append(name) }
        }
        if names.count > 1 { names.sort { Value.compareUTF8($0, $1) < 0 } }
        return names
    }

    /// ``changedAttributes(_:_:)`` of one touched object, without quantifiers' results when `hidesQuantifierResults`.
    private func changedNames(of object: ObjectDelta, hidingQuantifiers hidesQuantifierResults: Bool) -> [String] {
        let names = Self.changedAttributes(object.before, object.after)
        // A quantifier's result (its whole text, with spaces: no attribute's or path's name has one) decides
        // membership only: it is not a value a row shows (DESIGN §10).
        guard hidesQuantifierResults else { return names }
        return names.filter { !$0.contains(" ") }
    }

    /// The batch of a view of `shape` that has no rows and no window (no offset, no limit): every row it ends with
    /// is an insert at its final index path, so the rows are staged, sorted and built at once (``finishLoad()``)
    /// instead of inserted one at a time, and the change set is read off the built rows in order — the batch
    /// ``applyBatch(_:entity:shape:membership:hidesQuantifierResults:scratch:)`` computes (the model-based tests
    /// check both ways), at the cost of one sort. A replay's first move (100,000 inserts) spent a third of its time
    /// inserting row by row.
    package func fillEmpty(_ delta: Delta, entity: String, shape: ViewShape, membership: RowMembership) -> ChangeSet {
        precondition(count == 0 && shape.isWhole, "fillEmpty(_:) is for a view with no rows and no window")
        let order = self.order
        var key = ByteWriter(capacity: order.inlineKeyBytes)
        var seqBySlot: [UInt64] = []
        for object in delta.objects where object.key.entity == entity {
            guard let after = object.after, membership.evaluate(after, object.key.id) else { continue }
            let slot = Int(stage(object.key.id, after, order: order, key: &key))
            if slot >= seqBySlot.count { seqBySlot += repeatElement(0, count: slot + 1 - seqBySlot.count) }
            seqBySlot[slot] = object.seq
        }
        finishLoad()
        guard count > 0 else {
            return ChangeSet(from: delta.from, to: delta.to, isSectioned: shape.isSectioned, sectionChanges: [], rowChanges: [])
        }
        // Without a window every section is shown whole: its rows are the section's count (one section of every
        // row when the view has no section key).
        var sectionRows: [Int] = []
        var sectionChanges: [SectionChange] = []
        sections.forEach(from: 0) { entry in
            if shape.isSectioned {
                sectionChanges.append(SectionChange(kind: .insert, index: sectionRows.count, value: entry.value))
            }
            sectionRows.append(entry.rows)
            return true
        }
        var rowChanges: [RowChange] = []
        rowChanges.reserveCapacity(count)
        var section = 0, row = 0
        forEachSlot(from: 0) { slot in
            while row == sectionRows[section] {  // bounded: every section has a row
                section += 1
                row = 0
            }
            rowChanges.append(.insert(id(ofSlot: slot), to: IndexPath(row: row, section: section), seq: seqBySlot[Int(slot)]))
            row += 1
            return true
        }
        // Inserts by index path ascending, sections by index ascending: canonical as they are.
        return ChangeSet(from: delta.from, to: delta.to, isSectioned: shape.isSectioned,
                         canonicalSectionChanges: sectionChanges, canonicalRowChanges: rowChanges)
    }
}
