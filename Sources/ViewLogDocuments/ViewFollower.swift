@_spi(Engine) import ViewLog

/// The one follow loop of `watch` (DESIGN §7) and the server's watch (DESIGN §12): a view opened at a position, then
/// one change set per batch of new transactions that changes it.
///
/// Its contract, the same for every consumer: every change set it gives is the `diff --from F --to T` change set of
/// its own `from` and `to` (the seq of each row included), each starts where the one before ended (the first where the
/// view was opened), and batches that do not change the view are folded into the next one that does. Consumers only
/// render: the CLI prints JSON or text, the server sends the JSON text.
package final class ViewFollower {
    /// What a consumer sends before a fresh query document when the view starts again — after a compaction passed it
    /// or a migration redefined it (``reopenAtHead(of:)``), or for a subscriber too far behind: `{"reload": true}` (DESIGN §5, §12, §13).
    package static let reloadDocument = JSONValue.object([("reload", .bool(true))]).text

    /// The view, at the position the last change set ended (or where it was opened, or opened again by
    /// ``reopenAtHead(of:)``).
    package private(set) var view: MaterializedView
    /// What it follows.
    private let selection: ViewSelection
    /// Where the next change set starts: the `to` of the last one given, or the position the view was opened at.
    package private(set) var position: UInt64

    /// One batch that changed the view: the change set from where the previous one ended, and the values of its rows
    /// before (for text that shows what changed).
    package struct Step {
        package var changes: ChangeSet
        package var before: [ObjectID: ObjectValues]
    }

    /// Opens `selection` at `start` (at most the head) to follow it: a windowed named view from its stored window
    /// (DESIGN §11), pulling the rows a move needs from it; any other view as ``Context/openView(_:for:keepingRows:)``
    /// decides.
    package init(store: LogStore, selection: ViewSelection, at start: UInt64) throws {
        view = try MaterializedView(store: store, selection: selection, at: start, for: .watch)
        position = start
        self.selection = selection
    }

    /// Opens the view again at the head of `store`, for a follow whose position the store's horizon passed (a
    /// compaction, a schema's retention: DESIGN §13) — no delta reaches that position any more — or that a migration
    /// cannot carry (``Reopen``). Its consumers say so
    /// as for a subscriber too far behind: `{"reload": true}` and the view's query document, then change sets from
    /// the head.
    ///
    /// A named view is opened by its name; an ad hoc view with the request it was carried to through migrations (its
    /// names as at its position: ``MaterializedView/move(to:)``), checked against the schema at the head.
    package func reopenAtHead(of store: LogStore) throws {
        let head = try store.head
        if selection.view == nil {
            let request = view.controller.fetchRequest
            view = try MaterializedView(store: store, request: request, entity: try store.schema(at: head).entity(named: request.entity),
                                        at: head, for: .watch)
        } else {
            view = try MaterializedView(store: store, selection: selection, at: head, for: .watch)
        }
        position = view.controller.position
    }

    /// Moves the view to `head`. The change set from ``position`` to `head` when the view changed (and ``position``
    /// becomes `head`), `nil` when it did not (the batch is folded into the next change set) or `head` is not past the
    /// view.
    package func step(to head: UInt64) throws -> Step? {
        let store = view.context.store
        let moved = view.controller.position
        guard head > moved else { return nil }
        // Across migrations the move carries the view through (DESIGN §13): a rename is no change, a converted value an
        // update or a move. Its own carry says what it cannot carry: a request reading an attribute a migration
        // removed starts again at the head (where the request is checked, and refused naming the attribute), a watched
        // named view a migration set starts again (§5's reload), one it removed ends the follow.
        var (changes, before): (ChangeSet, [ObjectID: ObjectValues])
        do {
            (changes, before) = try view.move(to: head)
        } catch is QueryError where view.lastCarry != nil {
            throw Reopen()
        }
        if let name = selection.view, let seq = view.lastCarry?.seqChanging(view: name) {
            if try store.schema(at: head).views[name] == nil { throw StoreError.viewRemoved(name, seq: seq) }
            throw Reopen()
        }
        guard !changes.isEmpty else { return nil }
        if position < moved {
            // Batches were folded since the last change set: this one is computed again over the whole span
            // (position, head], back to where the last one ended (the view there is the view at `moved`: the folded
            // batches changed nothing it shows) and forward, so that it is the change set `diff --from position --to
            // head` gives. A row's seq is the last transaction of the span that touched it (DESIGN §5): a row a folded
            // batch inserted past a window, entering it now, was touched by that batch, not by this one.
            _ = try view.move(to: position)
            (changes, before) = try view.move(to: head)
        }
        changes.from = position
        position = changes.to
        return Step(changes: changes, before: before)
    }

    /// Follows the store's head (appends of every process, DESIGN §6) and gives each change set to `send`, until
    /// `count` change sets were given (nil: no end), the task is cancelled, or an error (the store removed:
    /// ``StoreError/notAStore(path:reason:)``), which it throws. `handled` is told each head the view has been moved
    /// to, after its change set (if any) was given.
    ///
    /// With `reloaded`, a horizon that passes the view's position, or a migration that redefines the view (``Reopen``),
    /// does not end the follow: the view is opened again at the head (``reopenAtHead(of:)``), given to `reloaded`, and
    /// followed from there.
    package func follow(_ store: LogStore, count: Int? = nil, handled: ((UInt64) -> Void)? = nil,
                        reloaded: ((MaterializedView) async throws -> Void)? = nil,
                        send: (Step) async throws -> Void) async throws {
        var remaining = count
        while true {  // bounded by the store's compactions: each pass ends the follow or follows a reopened view
            do {
                try await followFromHere(store, count: remaining, handled: handled) { step in
                    remaining = remaining.map { $0 - 1 }
                    try await send(step)
                }
                return
            } catch let error where reloaded != nil && Self.startsAgain(after: error) {
                try reopenAtHead(of: store)
                try await reloaded?(view)
            }
        }
    }

    /// Thrown by ``step(to:)`` when a migration in the step sets the watched named view, or removes an attribute the
    /// view's request reads: the view starts again at the head.
    package struct Reopen: Error {}

    /// Whether `error` means that the follow starts again at the head: a compaction passed it, or a migration in its
    /// step changed what it follows (``Reopen``).
    package static func startsAgain(after error: any Error) -> Bool {
        if error is Reopen { return true }
        if case .compacted? = error as? StoreError { return true }
        return false
    }

    /// ``follow(_:count:handled:reloaded:send:)`` from the view's position, until an error.
    private func followFromHere(_ store: LogStore, count: Int?, handled: ((UInt64) -> Void)?,
                                send: (Step) async throws -> Void) async throws {
        if let count, count <= 0 { return }
        var sent = 0
        for try await head in store.headUpdates() {  // bounded by the consumer: ends when its task is cancelled
            if Task.isCancelled { return }
            if let step = try step(to: head) {
                try await send(step)
                sent += 1
            }
            handled?(head)
            if let count, sent >= count { return }
        }
    }
}
