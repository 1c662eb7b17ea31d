@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// Where a live controller's rows come from (DESIGN §11): every row of its view, or only the part of a stored named
/// view that its window needs, read from the store as moves need more.
///
/// One value, moved by one transition per batch (``ResultsController/prepare(for:context:)``), with one error policy: a
/// partial source either serves the move or gives way to ``whole`` — the whole view as it was at the move's start,
/// from the context, when the stored view cannot serve the move (too far below the head, a schema change, the view
/// changed or dropped) or a read of it fails — and the move is still reported as its exact change set; never the other
/// way round. When the context cannot give the whole view either (a damaged store), the controller is reloaded at the
/// move's end from what the context holds and records why (``ResultsController/followError``): reported as a reload,
/// never left behind.
enum ViewSource {
    /// Every row of the view, in memory: each move is applied to them.
    case whole
    /// The first rows of a flat named view's stored window (``Context/makeStoredWindowController(view:_:transactionsMax:following:)``
    /// with `following`): before each move, `rowsBefore` gives the rows the move needs from the stored view — objects
    /// of the view at the move's start, with their values there, past the window — so the window after it is exact.
    case storedWindow(rowsBefore: (Delta, Context) throws -> [(ObjectID, ObjectValues)]?)
    /// The rows of a windowed named view over key paths that its window can show at any position of a range up to the
    /// head (``StoredRange``): moves within the range read path values from the stored state; a move out of it (the
    /// head moved on, as a follower's does) first reads the range from the move's lower end to the head
    /// (``ResultsController/followingRange(_:for:context:)``).
    case storedPathRange(StoredRange)
    /// The first rows of a window no stored view serves, held for a watcher (``ViewPurpose/watch``,
    /// ``Context/makeFirstRowsController(_:_:relational:)``): the rows up to rank `exact` are the view's first rows (`Int.max`: every
    /// row of the view is held); rows past it are rows of the view that may not be the next ones. A move changes at most
    /// one row of that prefix per touched row, so a move whose touched rows leave at least the window exact is applied
    /// as it is; otherwise the window and its reserve are read again at the move's start first.
    case firstRows(exact: Int)

    /// Whether the controller holds every row of its view.
    var isWhole: Bool {
        if case .whole = self { return true }
        return false
    }
}

extension ResultsController {
    /// Whether the controller holds only the rows of a stored named view over key paths that its window can show at
    /// the positions of a range up to the head (``StoredRange``), not the whole view.
    @_spi(Engine) public var holdsStoredPathRange: Bool {
        if case .storedPathRange = source { return true }
        return false
    }

    /// Whether the controller holds only the first rows of a flat named view's stored window.
    var holdsStoredWindow: Bool {
        if case .storedWindow = source { return true }
        return false
    }

    /// The range of a controller that holds a stored view over key paths below the head.
    var storedPathRange: StoredRange? {
        if case .storedPathRange(let range) = source { return range }
        return nil
    }

    /// Whether the controller holds only the first rows of a window no stored view serves (a watcher's).
    @_spi(Engine) public var holdsFirstRows: Bool {
        if case .firstRows = source { return true }
        return false
    }

    /// Whether the controller holds only part of its view, read from a stored view (or, for a watcher's window, the
    /// objects) as moves need more.
    @_spi(Engine) public var holdsPartOfView: Bool { !source.isWhole }

    /// The source's transition for `delta`, a move of `context` about to be applied: a partial source adds,
    /// unreported, the rows past the window that the move needs, or gives way to the whole view as it was at the
    /// move's start. Returns the move with path values when a stored range served it (apply it as it is); `nil` when
    /// the move is to be applied as any move of the controller's kind.
    func prepare(for delta: Delta, context: Context) throws -> Delta? {
        let changes = !delta.objects.isEmpty || delta.schemaChange != nil
        switch source {
        case .whole:
            return nil
        case .storedWindow(let rowsBefore):
            if let rows = try? rowsBefore(delta, context), addRowsPastWindow(rows) { return nil }
            source = .whole
            try addRowsPastWindowOfSoundStore(try context.objectsBefore(delta, of: entity.name).map { ($0.id, $0.values) })
            return nil
        case .firstRows(var exact):
            guard let limit = fetchRequest.limit else { preconditionFailure("first rows are a window's") }
            let end = fetchRequest.offset.addingSaturating(limit)
            let reserve = context.firstRowsReserve(windowEnd: end)
            // A view held whole that grew past its reserve twice over keeps its first rows only; rows past the exact
            // prefix are dropped (past the window: unreported), so that every row held is in it.
            if exact == .max, rows.count > end.addingSaturating(2 * reserve) { exact = end + reserve }
            if exact < rows.count { rows.removeRows(from: exact) }
            if relational != nil {
                return try prepareFirstPathRows(exact: exact, end: end, reserve: reserve, for: delta, context: context)
            }
            if exact != .max {
                // Each touched row held may leave the prefix; untouched rows past it cannot move into it.
                func leaving() -> Int {
                    delta.objects.reduce(0) { $0 + ($1.key.entity == entity.name && rows.contains($1.key.id) ? 1 : 0) }
                }
                var left = leaving()
                if exact - left < end {
                    let touched = delta.objects.reduce(0) { $0 + ($1.key.entity == entity.name ? 1 : 0) }
                    let count = end.addingSaturating(touched).addingSaturating(reserve)
                    exact = try context.holdFirstRows(of: self, count: count, before: delta) ? .max : count
                    left = exact == .max ? 0 : leaving()
                }
                if exact != .max { exact -= left }
            }
            // The rows the move touches that are past those held, as they were at its start (past the prefix: they
            // show nothing), so that the batch meets every row it touches, as the whole view's does.
            let touchedRows = delta.objects.compactMap { d in d.key.entity == entity.name ? d.before.map { (d.key.id, $0) } : nil }
            precondition(addRowsPastWindow(touchedRows), "a row past the first rows held is in the window")
            source = .firstRows(exact: exact)
            return nil
        case .storedPathRange(let range):
            // A move that changes nothing (`processPendingChanges` with nothing staged, as every controller made does)
            // leaves the rows as they are.
            guard changes, let relational else { return nil }
            // A move that touches nothing the view reads changes no row (as the whole view finds): none is read.
            guard delta.schemaChange != nil || delta.objects.contains(where: { range.entities.contains($0.key.entity) }) else {
                return nil
            }
            // Within its range (read again from the stored view for a move out of it), the rows held and the stored
            // state answer; when the store cannot serve the move, the whole view is taken below.
            if let served = try followingRange(range, for: delta, context: context),
               let result = try? served.augmented(delta, relational: relational) {
                source = .storedPathRange(served)
                return result
            }
            // The whole view at the move's start, unreported: the rows held are its first rows.
            source = .whole
            try addRowsPastWindowOfSoundStore(try context.relationalRows(of: entity.name, relational, before: delta))
            return nil
        }
    }
}
