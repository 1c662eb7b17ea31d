@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
/// One batch of a results controller: what turns the view before a move of its context into the
/// view after it, in UITableView batch-update form.
///
/// Index rules: a delete's `from` and a section delete's index are before the batch; an insert's `to` and a
/// section insert's index are after it; a move and an update carry both. Apply it as UITableView does — remove
/// deleted and moved rows by `from`, delete sections, insert sections, insert inserted and moved rows by
/// `to` — and the result is the view after (see ``applied(to:)``). For one-step-at-a-time replays use
/// ``sequentialSteps``; for a view without sections, ``difference``.
///
/// Order (canonical, so that equal batches compare equal): section deletes by index descending, then section
/// inserts ascending; row deletes by `from` descending, inserts by `to` ascending, moves by `to` ascending,
/// updates by `to` ascending.
public struct ChangeSet: Sendable, Hashable {
    /// The position before the batch.
    public var from: UInt64
    /// The position after the batch.
    public var to: UInt64
    /// Whether the view has a section key (otherwise every index path is in section 0).
    public var isSectioned: Bool
    /// Section inserts and deletes.
    public var sectionChanges: [SectionChange]
    /// Row inserts, deletes, moves and updates; each row at most once.
    public var rowChanges: [RowChange]

    /// Makes a change set, putting its changes in canonical order.
    public init(from: UInt64, to: UInt64, isSectioned: Bool, sectionChanges: [SectionChange], rowChanges: [RowChange]) {
        self.from = from
        self.to = to
        self.isSectioned = isSectioned
        self.sectionChanges = ChangeSet.canonical(sectionChanges)
        self.rowChanges = ChangeSet.canonical(rowChanges)
    }

    /// Makes a change set of changes already in canonical order (checked in debug builds): a view's first batch,
    /// every row an insert read off the built view in order, needs no check of its order (a 50,000-insert batch
    /// spent a twentieth of a replay checking it).
    package init(from: UInt64, to: UInt64, isSectioned: Bool, canonicalSectionChanges: [SectionChange],
         canonicalRowChanges: [RowChange]) {
        assert(ChangeSet.isCanonical(canonicalRowChanges), "row changes not in canonical order")
        assert(ChangeSet.canonical(canonicalSectionChanges) == canonicalSectionChanges, "section changes not in canonical order")
        self.from = from
        self.to = to
        self.isSectioned = isSectioned
        sectionChanges = canonicalSectionChanges
        rowChanges = canonicalRowChanges
    }

    /// Whether the batch changes nothing visible.
    public var isEmpty: Bool { sectionChanges.isEmpty && rowChanges.isEmpty }

    /// Row changes of one kind, in canonical order.
    public func rows(_ kind: RowChange.Kind) -> [RowChange] { rowChanges.filter { $0.kind == kind } }

    static func canonical(_ sections: [SectionChange]) -> [SectionChange] {
        if sections.count < 2 { return sections }
        return sections.filter { $0.kind == .delete }.sorted { $0.index > $1.index }
            + sections.filter { $0.kind == .insert }.sorted { $0.index < $1.index }
    }

    static func canonical(_ rows: [RowChange]) -> [RowChange] {
        if isCanonical(rows) { return rows }  // most batches (and every one-change batch): no copy
        // Deletes by `from` descending, then inserts, moves and updates, each by `to` ascending. Sorted as plain
        // integers, then gathered: a `RowChange` is large to move, and `IndexPath`'s comparison is slow (a
        // replay's 100,000 inserts spent half their batch in it).
        var order: [(rank: Int, section: Int, row: Int, index: Int)] = []
        order.reserveCapacity(rows.count)
        for (i, r) in rows.enumerated() {
            switch r.kind {
            case .delete: order.append((0, -r.from![0], -r.from![1], i))
            case .insert: order.append((1, r.to![0], r.to![1], i))
            case .move: order.append((2, r.to![0], r.to![1], i))
            case .update: order.append((3, r.to![0], r.to![1], i))
            }
        }
        order.sort { a, b in (a.rank, a.section, a.row, a.index) < (b.rank, b.section, b.row, b.index) }
        return order.map { rows[$0.index] }
    }

    /// Whether `rows` are already in canonical order.
    static func isCanonical(_ rows: [RowChange]) -> Bool {
        func rank(_ k: RowChange.Kind) -> Int {
            switch k {
            case .delete: return 0
            case .insert: return 1
            case .move: return 2
            case .update: return 3
            }
        }
        for i in rows.indices.dropFirst() {
            let a = rows[i - 1], b = rows[i]
            if rank(a.kind) != rank(b.kind) {
                if rank(a.kind) > rank(b.kind) { return false }
            } else if a.kind == .delete ? !(a.from! > b.from!) : !(a.to! < b.to!) {
                return false
            }
        }
        return true
    }

    /// The view after the batch, made by applying it to `before` with UITableView's rules; `nil` when the
    /// batch does not apply (an index out of range, an id that is not where a change says, a deleted section
    /// that keeps rows). `ViewLogTesting`'s validator says precisely what is wrong.
    public func applied(to before: ViewSnapshot) -> ViewSnapshot? {
        var sections = before.sections
        let removals = rowChanges.filter { $0.kind == .delete || $0.kind == .move }.sorted { $0.from! > $1.from! }
        for r in removals {
            let p = r.from!
            guard sections.indices.contains(p.section), sections[p.section].rows.indices.contains(p.row),
                  sections[p.section].rows[p.row] == r.id else { return nil }
            sections[p.section].rows.remove(at: p.row)
        }
        for s in sectionChanges where s.kind == .delete {
            guard sections.indices.contains(s.index), sections[s.index].rows.isEmpty else { return nil }
            sections.remove(at: s.index)
        }
        for s in sectionChanges where s.kind == .insert {
            guard s.index <= sections.count else { return nil }
            sections.insert(ViewSnapshot.Section(value: s.value, rows: []), at: s.index)
        }
        let insertions = rowChanges.filter { $0.kind == .insert || $0.kind == .move }.sorted { $0.to! < $1.to! }
        for r in insertions {
            let p = r.to!
            guard sections.indices.contains(p.section), p.row <= sections[p.section].rows.count else { return nil }
            sections[p.section].rows.insert(r.id, at: p.row)
        }
        let after = ViewSnapshot(sections: sections)
        for r in rowChanges where r.kind == .update {
            guard after.id(at: r.to!) == r.id else { return nil }
        }
        return after
    }
}
