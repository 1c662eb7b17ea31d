import Dispatch
@_spi(Engine) import ViewLog
import ViewLogDocuments

/// One follow per distinct watched view (DESIGN §12, "Under load and attack"): subscribers of the same view — the same
/// definition, variables and window — share one ``ViewFollower``, so that the work of an append is done once per
/// view, not once per subscriber. Each follow runs on ``FollowExecutor``, off the cooperative pool that answers
/// requests. A follow starts with its first subscriber and ends with its last.
final class SharedFollows: Sendable {
    private let follows = Locked<[String: SharedFollow]>([:])

    /// Adds a subscriber of `watch` whose documents go to `buffer`: the query document of the view where its follow
    /// is now, then each change set's diff document. ``SharedFollow/Member/leave()`` ends it.
    func join(_ watch: ViewLogServer.WatchRequest, store: LogStore, buffer: WatchBuffer) -> SharedFollow.Member {
        let key = Self.key(watch.selection)
        return follows.withLock { follows in
            if let follow = follows[key], let member = follow.add(watch, buffer: buffer, registry: self) { return member }
            let follow = SharedFollow(key: key, selection: watch.selection, store: store)
            follows[key] = follow
            follow.start()
            return follow.add(watch, buffer: buffer, registry: self)!  // a new follow takes members
        }
    }

    /// Forgets `follow` (its last member left), unless another follow has its key by now. Called with the follow's
    /// lock not held.
    fileprivate func remove(_ follow: SharedFollow, ifEmpty isEmpty: () -> Bool) {
        follows.withLock { follows in
            guard follows[follow.key] === follow, isEmpty() else { return }
            follows[follow.key] = nil
        }
    }

    /// The follows running now (for tests).
    var running: [SharedFollow] { follows.withLock { Array($0.values) } }

    /// What makes two watches the same view: every field of the selection.
    static func key(_ s: ViewSelection) -> String {
        let fields: [String?] = [s.view, s.entity, s.predicate, s.sort, s.section, s.include, s.limit.map { String($0) },
                                 s.offset.map { String($0) }]
        return JSONValue.array(fields.map { $0.map(JSONValue.string) ?? .null } + s.variables.map(JSONValue.string)).text
    }
}

/// The follow of one view and its subscribers (``Member``): one ``ViewFollower`` moved once per batch, its
/// documents handed to every member's ``WatchBuffer``.
final class SharedFollow: Sendable {
    let key: String
    let selection: ViewSelection
    let store: LogStore

    /// A subscriber: its buffer, whether it wants seqs, how many change sets it still takes.
    final class Member: Sendable {
        let buffer: WatchBuffer
        let includeSeq: Bool
        fileprivate let remaining: Locked<Int?>
        fileprivate let follow: SharedFollow
        fileprivate let registry: SharedFollows

        fileprivate init(_ watch: ViewLogServer.WatchRequest, buffer: WatchBuffer, follow: SharedFollow, registry: SharedFollows) {
            self.buffer = buffer
            includeSeq = watch.includeSeq
            remaining = Locked(watch.count)
            self.follow = follow
            self.registry = registry
        }

        /// Leaves the follow (the subscriber is gone, or its `count` is reached); the follow ends with its last member.
        func leave() { follow.remove(self, registry: registry) }
    }

    private struct State {
        var members: [ObjectIdentifier: Member] = [:]
        /// Members that have not been sent their query document yet.
        var joining: [Member] = []
        var ended = false
        /// The newest head the store announced.
        var head: UInt64 = 0
    }

    private let state = Locked(State())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// Batches the view was moved over (for tests: one per batch, whatever the number of members).
    let moves = Locked(0)

    fileprivate init(key: String, selection: ViewSelection, store: LogStore) {
        self.key = key
        self.selection = selection
        self.store = store
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds a member, to be sent its query document by the follow; nil when the follow has ended (its last member
    /// left).
    fileprivate func add(_ watch: ViewLogServer.WatchRequest, buffer: WatchBuffer, registry: SharedFollows) -> Member? {
        let member = Member(watch, buffer: buffer, follow: self, registry: registry)
        let added = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.members[ObjectIdentifier(member)] = member
            s.joining.append(member)
            return true
        }
        if added { wake.yield() }
        return added ? member : nil
    }

    fileprivate func remove(_ member: Member, registry: SharedFollows) {
        member.buffer.finish()
        let empty = state.withLock { s -> Bool in
            s.members[ObjectIdentifier(member)] = nil
            s.joining.removeAll { $0 === member }
            if s.members.isEmpty { s.ended = true }
            return s.ended
        }
        guard empty else { return }
        wake.yield()
        registry.remove(self) { state.withLock { $0.ended } }
    }

    /// Starts the follow on ``FollowExecutor``, and a task that tells it of each new head.
    fileprivate func start() {
        let heads = Task(executorPreference: FollowExecutor.shared) { [self] in
            do {
                for try await head in store.headUpdates() {  // bounded by the follow: cancelled when it ends
                    state.withLock { $0.head = max($0.head, head) }
                    wake.yield()
                }
            } catch {
                fail(error)
            }
        }
        Task(executorPreference: FollowExecutor.shared) { [self] in
            defer { heads.cancel() }
            await run()
        }
    }

    /// The follow: opens the view at the head, then on each wake sends the joining members their query document and
    /// moves the view to the newest head, handing its change set (if any) to every member.
    private func run() async {
        var follower: ViewFollower
        do {
            let start = try store.head
            state.withLock { $0.head = max($0.head, start) }
            follower = try ViewFollower(store: store, selection: selection, at: start)
        } catch {
            fail(error)
            return
        }
        for await _ in wakes {  // bounded by the members: ends when the last one leaves
            let (joining, head, ended) = state.withLock { s -> ([Member], UInt64, Bool) in
                defer { s.joining = [] }
                return (s.joining, s.head, s.ended)
            }
            if ended { return }
            do {
                if !joining.isEmpty {
                    // Batches folded since the last change set changed nothing the view shows: the view goes back to
                    // where that change set ended, so that a new member's query document and every member's next
                    // change set start at the same position.
                    if follower.view.controller.position > follower.position { _ = try follower.view.move(to: follower.position) }
                    let document = try follower.view.jsonText()
                    for member in joining {
                        if !member.buffer.push(document) { member.buffer.restart(with: [document]) }
                        if member.remaining.withLock({ $0 == 0 }) { member.buffer.finish() }  // count=0: the query document only
                    }
                }
                if head > follower.view.controller.position {
                    moves.withLock { $0 += 1 }
                    if let step = try follower.step(to: head) { send(step, follower: follower) }
                }
            } catch let error where ViewFollower.startsAgain(after: error) {
                // The store's horizon passed the view's position (a compaction, a schema's retention: DESIGN §13), or
                // a migration in the step set the watched view or removed an attribute it reads: the view is opened
                // again at the head and every member starts again from it, as a member too far behind does.
                do {
                    try follower.reopenAtHead(of: store)
                    let fresh = try follower.view.jsonText()
                    let members = state.withLock { s -> [Member] in
                        s.joining = []
                        return Array(s.members.values)
                    }
                    for member in members { member.buffer.restart(with: [ViewLogServer.reloadDocument, fresh]) }
                } catch {
                    fail(error)
                    return
                }
            } catch {
                fail(error)
                return
            }
        }
    }

    /// Hands `step`'s diff document to every member (rendered once per seq flag); a member too far behind gets
    /// `{"reload": true}` and the query document of the view now instead, made once for all of them.
    private func send(_ step: ViewFollower.Step, follower: ViewFollower) {
        let members = state.withLock { s in s.members.values.filter { m in !s.joining.contains { $0 === m } } }
        var documents: [Bool: String] = [:]
        var fresh: String?
        for member in members {
            let document = documents[member.includeSeq] ?? step.changes.json(includeSeq: member.includeSeq).text
            documents[member.includeSeq] = document
            if !member.buffer.push(document) {
                if fresh == nil { fresh = try? follower.view.jsonText() }
                member.buffer.restart(with: [ViewLogServer.reloadDocument] + (fresh.map { [$0] } ?? []))
            }
            let done = member.remaining.withLock { r -> Bool in
                guard let left = r else { return false }
                r = left - 1
                return left - 1 <= 0
            }
            if done { member.buffer.finish() }
        }
    }

    /// Ends every member with the error as its last document (the store removed).
    private func fail(_ error: any Error) {
        let body = ServerError.from(error).body
        let members = state.withLock { s -> [Member] in
            s.ended = true
            return Array(s.members.values)
        }
        for member in members {
            if !member.buffer.push(body) { member.buffer.restart(with: [body]) }
            member.buffer.finish()
        }
        wake.yield()
    }
}

/// Where the shared follows run: threads of Dispatch's, not the cooperative pool's, so that moving views (CPU-bound
/// work for each append) never holds up the server's requests.
final class FollowExecutor: TaskExecutor {
    static let shared = FollowExecutor()
    private let queue = DispatchQueue(label: "viewlog.serve.follows", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
