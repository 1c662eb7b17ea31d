import Dispatch
import Foundation
import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Several writers and readers in one process: through one `LogStore`, through several
/// `LogStore`s of the same path (which share one LMDB environment), while the map grows. Multi-process writers
/// and readers are in `viewlogTests` and `tools/concurrency-test`.
@Suite("Concurrency")
struct ConcurrencyTests {
    static let writers = 8
    static let appendsEach = 40

    static func insert(_ id: String, name: String = "n") -> [ChangeRequest] {
        [.insert(entity: "Employee", id: .string(id), values: ["name": .string(name)])]
    }

    /// The log holds seqs 1…count, one insert each, every id of `ids` exactly once; objects == replay(log).
    static func expectComplete(_ store: LogStore, ids: Set<String>) throws {
        let log = try store.transactions()
        #expect(try store.head == UInt64(ids.count))
        #expect(log.map(\.seq) == Array(1...UInt64(ids.count)))
        var seen: [String: Int] = [:]
        for t in log {
            #expect(t.changes.count == 1, "transaction \(t.seq) is partial or merged")
            for change in t.changes {
                if case .string(let id)? = change.key?.id { seen[id, default: 0] += 1 }
            }
        }
        #expect(Set(seen.keys) == ids)
        #expect(seen.values.allSatisfy { $0 == 1 }, "an id logged twice")
        #expect(try store.objects(of: "Employee").count == ids.count)
        let report = try store.verify()
        #expect(report.isOK, "\(report.problems)")
    }

    @Test func tasksAppendingThroughOneStore() async throws {
        let store = try makeStore()
        let seqs = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for w in 0..<Self.writers {
                group.addTask {
                    var mine: [UInt64] = []
                    for i in 0..<Self.appendsEach { mine.append(try store.append(Self.insert("t\(w)-\(i)"), author: "w\(w)").seq) }
                    return mine
                }
            }
            var all: [UInt64] = []
            for try await s in group {
                #expect(s == s.sorted(), "one writer's seqs go up")
                all += s
            }
            return all
        }
        #expect(seqs.sorted() == Array(1...UInt64(Self.writers * Self.appendsEach)))
        let ids = Set((0..<Self.writers).flatMap { w in (0..<Self.appendsEach).map { "t\(w)-\($0)" } })
        try Self.expectComplete(store, ids: ids)
        // Each returned seq holds what its writer appended.
        for t in try store.transactions() {
            guard case .string(let id)? = t.changes.first?.key?.id else { continue }
            #expect(id.hasPrefix(t.author.replacingOccurrences(of: "w", with: "t") + "-"))
        }
    }

    @Test func threadsAppendingThroughStoresOfOnePath() throws {
        let path = try makeStore().path
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: Self.writers) { w in
            do {
                let store = try LogStore.open(at: path, options: StoreOptions(durable: false))  // shares the environment
                for i in 0..<Self.appendsEach { try store.append(Self.insert("p\(w)-\(i)"), author: "t") }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let ids = Set((0..<Self.writers).flatMap { w in (0..<Self.appendsEach).map { "p\(w)-\($0)" } })
        try Self.expectComplete(try LogStore.open(at: path), ids: ids)
    }

    /// Two writers insert the same ids: each id is appended once, the other insert is refused whole.
    @Test func racingInsertsOfOneIdAppendOnce() async throws {
        let store = try makeStore()
        let refusals = try await withThrowingTaskGroup(of: Int.self) { group in
            for w in 0..<4 {
                group.addTask {
                    var refused = 0
                    for i in 0..<Self.appendsEach {
                        do { try store.append(Self.insert("same-\(i)", name: "w\(w)"), author: "w\(w)") } catch {
                            guard case .invalidChange(0, 0, let reason)? = error as? StoreError, reason.contains("exists already") else { throw error }
                            refused += 1
                        }
                    }
                    return refused
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(refusals == 3 * Self.appendsEach)
        try Self.expectComplete(store, ids: Set((0..<Self.appendsEach).map { "same-\($0)" }))
    }

    /// Readers running beside writers only ever see whole transactions: the view at position p has exactly
    /// p objects (one insert per transaction), and the log through p has p entries.
    @Test func readersSeeWholeTransactionsOnly() async throws {
        let store = try makeStore()
        let total = Self.writers * Self.appendsEach
        let done = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for r in 0..<3 {
                group.addTask {
                    var last: UInt64 = 0
                    while !done.isSet {
                        let p = try store.head
                        #expect(p >= last, "the head went back")
                        last = p
                        switch r {
                        case 0: #expect(try store.objects(of: "Employee", at: p).count == Int(p))
                        case 1: #expect(try store.transactions(through: p).count == Int(p))
                        default: #expect(try store.delta(from: 0, to: p).objects.count == Int(p))
                        }
                        await Task.yield()
                    }
                }
            }
            group.addTask {
                defer { done.set() }
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for w in 0..<Self.writers {
                        writers.addTask {
                            for i in 0..<Self.appendsEach { try store.append(Self.insert("r\(w)-\(i)"), author: "w") }
                        }
                    }
                    try await writers.waitForAll()
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.head == UInt64(total))
    }

    /// An observer of the head sees it rise to the last append, never go back.
    @Test func headUpdatesReachTheLastAppend() async throws {
        let store = try makeStore()
        let total = UInt64(Self.writers * Self.appendsEach)
        let observer = Task {
            var heads: [UInt64] = []
            for try await head in store.headUpdates() {
                heads.append(head)
                if head == total { break }
            }
            return heads
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<Self.writers {
                group.addTask { for i in 0..<Self.appendsEach { try store.append(Self.insert("h\(w)-\(i)"), author: "w") } }
            }
            try await group.waitForAll()
        }
        let heads = try await observer.value
        #expect(heads.last == total)
        #expect(heads == heads.sorted())
    }

    /// A hundred head observers and a following context share the store's one monitor; each sees the last
    /// append; the monitor stops when the last of them ends.
    @Test func headObserversShareOneMonitorThatStopsWithTheLast() async throws {
        let store = try makeStore()
        let path = store.environment.path
        let total: UInt64 = 20
        let observers = (0..<100).map { _ in
            Task {
                var last: UInt64 = 0
                for try await head in store.headUpdates() {
                    last = head
                    if head == total { break }
                }
                return last
            }
        }
        for _ in 0..<2000 where HeadMonitor.subscriberCount(path: path) < 100 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(HeadMonitor.subscriberCount(path: path) == 100)
        let context = try Context(store: store, name: "follower")
        let follower = Task { @MainActor in try await context.mergeChangesAutomatically() }
        for _ in 0..<2000 where HeadMonitor.subscriberCount(path: path) < 101 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(HeadMonitor.subscriberCount(path: path) == 101)
        for i in 0..<total { try store.append(Self.insert("m\(i)"), author: "w") }
        for observer in observers { #expect(try await observer.value == total) }
        follower.cancel()
        try await follower.value
        for _ in 0..<2000 where HeadMonitor.subscriberCount(path: path) > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(HeadMonitor.subscriberCount(path: path) == 0)
    }

    /// Writers and readers while the map grows from 1 MiB: growing waits for every transaction of the process
    /// to end, and a write that filled the map is run again whole.
    @Test func concurrentWritersWhileTheMapGrows() async throws {
        let store = try makeStore(options: StoreOptions(durable: false, mapSizeBytes: 1 << 20))
        let big = String(repeating: "x", count: 16 * 1024)
        let done = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !done.isSet {
                    let p = try store.head
                    #expect(try store.objects(of: "Employee", at: p).count == Int(p))
                    await Task.yield()
                }
            }
            group.addTask {
                defer { done.set() }
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for w in 0..<4 {
                        writers.addTask {
                            for i in 0..<50 { try store.append(Self.insert("g\(w)-\(i)", name: big), author: "w") }
                        }
                    }
                    try await writers.waitForAll()
                }
            }
            try await group.waitForAll()
        }
        #expect(store.environment.mapGrowCount >= 2)
        try Self.expectComplete(store, ids: Set((0..<4).flatMap { w in (0..<50).map { "g\(w)-\($0)" } }))
    }
}

/// A flag tasks can share: set once by one, read by others.
final class Flag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
