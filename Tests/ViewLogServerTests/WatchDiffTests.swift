import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Testing
import TestSupport
@_spi(Engine) import ViewLog
import ViewLogDocuments
@testable import ViewLogServer

/// The server's watch sends the CLI's documents (DESIGN §12), on every channel: random bursts of appends while
/// Server-Sent Events, WebSocket and `viewlog watch` subscribers follow windowed, offset, sectioned and key-path
/// views, with and without seqs, and a subscriber that reads slowly enough to be sent `reload`s. Every document
/// is then checked against the store: each diff document is `diff`'s of its own from/to, they chain from the query
/// document (or a reload's fresh one), and the last reaches the head.
@Suite struct WatchDiffTests {
    /// One subscriber: what it watches, and how (its query string is the server's spelling of `selection`).
    struct Watcher: Sendable {
        enum Channel: Sendable { case serverSentEvents, webSocket, cli, slowBuffer }
        var selection: ViewSelection
        var query: String
        var arguments: [String]
        var seq: Bool
        var channel: Channel
        let documents = Locked<[String]>([])
    }

    static func watchers() -> [Watcher] {
        let views: [(ViewSelection, String, [String])] = [
            (ViewSelection(view: "window"), "view=window", ["window"]),
            (ViewSelection(view: "page"), "view=page", ["page"]),
            (ViewSelection(view: "sections"), "view=sections", ["sections"]),
            (ViewSelection(view: "byDepartment"), "view=byDepartment", ["byDepartment"]),
            (ViewSelection(view: "headcount"), "view=headcount", ["headcount"]),
            (ViewSelection(view: "window", offset: 1), "view=window&offset=1", ["window", "--offset", "1"]),
            (ViewSelection(entity: "Employee", sort: "salary desc, name", limit: 2),
             "entity=Employee&sort=salary%20desc,%20name&limit=2", ["--entity", "Employee", "--sort", "salary desc, name", "--limit", "2"]),
        ]
        var out: [Watcher] = []
        for (k, (selection, query, arguments)) in views.enumerated() {
            for channel in [Watcher.Channel.serverSentEvents, .webSocket] {
                let seq = (k + (channel == .webSocket ? 1 : 0)) % 2 == 0
                out.append(Watcher(selection: selection, query: query, arguments: arguments, seq: seq, channel: channel))
            }
        }
        out.append(Watcher(selection: views[0].0, query: views[0].1, arguments: views[0].2, seq: true, channel: .cli))
        out.append(Watcher(selection: views[4].0, query: views[4].1, arguments: views[4].2, seq: false, channel: .cli))
        out.append(Watcher(selection: views[0].0, query: views[0].1, arguments: views[0].2, seq: true, channel: .slowBuffer))
        return out
    }

    @Test func everyChannelSendsTheDiffOfEachDocumentsSpan() async throws {
        let path = TestScratch.newPath("watch-diff")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: try FollowWorkload.schema())
        let watchers = Self.watchers()
        // The seq of the last transaction: each subscriber stops when a document reaches it.
        let last = Locked<UInt64>(.max)
        // The last head the slow subscriber's producer has handled.
        let slowHandled = Locked<UInt64>(0)
        let server = ViewLogServer(store: store, options: ViewLogServer.Options())
        try await Fixture.app(server).test(.live) { client in
            let port = try #require(client.port)
            var workload = FollowWorkload(seed: SeededGenerator.seed(default: 36))
            try workload.setUp(store)
            var rng = SeededGenerator(seed: SeededGenerator.seed(default: 36) &+ 7)
            var cli: [BackgroundCLI] = []
            try await withThrowingTaskGroup(of: Void.self) { group in
                for watcher in watchers {
                    switch watcher.channel {
                    case .serverSentEvents:
                        let http = try await offPool { try RawHTTP(port: port) }
                        try await offPool {
                            try http.send("GET", "/v1/watch?\(watcher.query)&seq=\(watcher.seq)", headers: ["Accept": "text/event-stream"])
                            _ = try http.readHead()
                        }
                        group.addTask {
                            try await offPool {
                                defer { http.close() }
                                while let event = try http.nextEvent() {  // bounded: ends at the last seq or the read timeout
                                    watcher.documents.withLock { $0.append(event) }
                                    if Self.reaches(event, last.withLock { $0 }) { return }
                                }
                            }
                        }
                    case .webSocket:
                        group.addTask {
                            let url = "ws://127.0.0.1:\(port)/v1/watch?\(watcher.query)&seq=\(watcher.seq)"
                            _ = try await WebSocketClient.connect(url: url, logger: Logger(label: "test")) { inbound, outbound, _ in
                                for try await message in inbound.messages(maxSize: 1 << 24) {
                                    guard case .text(let text) = message else { continue }
                                    watcher.documents.withLock { $0.append(text) }
                                    if Self.reaches(text, last.withLock { $0 }) { break }
                                }
                                try await outbound.close(.normalClosure, reason: nil)
                            }
                        }
                    case .cli:
                        cli.append(try BackgroundCLI(["watch", path] + watcher.arguments + ["--json"] + (watcher.seq ? ["--seq"] : [])))
                    case .slowBuffer:
                        let buffer = WatchBuffer(capacity: 2)
                        let request = ViewLogServer.WatchRequest(selection: watcher.selection, includeSeq: watcher.seq, count: nil)
                        let producer = Task {
                            await ViewLogServer.produce(request, store: store, into: buffer) { head in slowHandled.withLock { $0 = head } }
                        }
                        group.addTask {
                            defer { producer.cancel() }
                            // The query document, then nothing until the last transaction: the buffer overflows.
                            if let first = await buffer.next() { watcher.documents.withLock { $0.append(first) } }
                            for _ in 0..<12_000 where last.withLock({ $0 }) == .max { try await Task.sleep(for: .milliseconds(10)) }
                            while let document = await buffer.next() {  // bounded: ends at the last seq
                                watcher.documents.withLock { $0.append(document) }
                                if Self.reaches(document, last.withLock { $0 }) { return }
                            }
                        }
                    }
                }
                // Every subscriber has its query document before the first burst.
                for _ in 0..<6000 where !watchers.allSatisfy({ w in w.channel == .cli || !w.documents.withLock { $0.isEmpty } }) {
                    try await Task.sleep(for: .milliseconds(10))  // at most about 60 s
                }
                let cliFirst = try await offPool { [cli] in try cli.map { try $0.lines(1) } }
                #expect(cliFirst.count == 2)

                for _ in 0..<30 {
                    for _ in 0..<rng.int(1...3) { try workload.appendOne(store) }
                    try await Task.sleep(for: .milliseconds(rng.int(0...25)))
                }
                // Three employees taller than any, one transaction each, each handled before the next: three diff
                // documents of `window` for a buffer of two that nobody reads, so the slow subscriber gets a reload.
                for k in 0..<3 {
                    let change = workload.insertEmployee(["name": .string("Tall\(k)"), "height": .int(Int64(300 + k))])
                    let seq = try store.append([change], author: "tall").seq
                    for _ in 0..<6000 where slowHandled.withLock({ $0 }) < seq { try await Task.sleep(for: .milliseconds(10)) }
                }
                // Every view shows rows, so deleting every object changes each: a last document for each subscriber.
                for w in watchers {
                    try #require(!(try MaterializedView(store: store, selection: w.selection, at: try store.head).controller.fetchedObjects.isEmpty))
                }
                let everything = workload.employees.sorted().map { ChangeRequest.delete(entity: "Employee", id: .int($0)) }
                    + workload.departments.sorted().map { ChangeRequest.delete(entity: "Department", id: .int($0)) }
                let end = try store.head + 1
                last.withLock { $0 = end }
                try store.append(everything, author: "end")
                // Each subscriber stops at its document that reaches the end; one that never gets it fails the test
                // after about a minute instead of hanging it.
                for _ in 0..<6000 where !watchers.allSatisfy({ w in
                    w.channel == .cli || w.documents.withLock { $0.last.map { Self.reaches($0, end) } ?? false }
                }) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                // Named before the cancellation, which the subscribers still waiting end with: which one never got there.
                for w in watchers where w.channel != .cli {
                    let documents = w.documents.withLock { $0 }
                    if !(documents.last.map { Self.reaches($0, end) } ?? false) {
                        Issue.record("\(w.channel) \(w.query) seq=\(w.seq): no document reached \(end) after about a minute; \(documents.count) documents, the last: \(documents.last ?? "none")")
                    }
                }
                group.cancelAll()
                do { try await group.waitForAll() } catch is CancellationError {}
            }
            // `viewlog watch`: lines until one reaches the last seq.
            let end = try store.head
            for (process, watcher) in zip(cli, watchers.filter { $0.channel == .cli }) {
                let lines = try await offPool {
                    for n in 2...10_000 {  // bounded: a document per transaction at most
                        let lines = try process.lines(n)
                        if Self.reaches(lines[n - 1], end) { return lines }
                    }
                    return []
                }
                watcher.documents.withLock { $0 = lines }
            }
        }
        var reloads = 0
        for watcher in watchers {
            reloads += try Self.check(watcher, store: store)
        }
        #expect(reloads > 0, "the slow subscriber was sent reloads")
    }

    /// Whether `document` is a diff document that ends at `seq`, or the query document at `seq` that follows a reload
    /// (a subscriber too far behind when the last transaction came is sent the view there, not a diff to it).
    static func reaches(_ document: String, _ seq: UInt64) -> Bool {
        let f = fields(of: document)
        return f.to == seq || f.position == seq
    }

    static func fields(of document: String) -> (from: UInt64?, to: UInt64?, position: UInt64?, reload: Bool) {
        guard case .object(let members)? = try? JSONValue.parse(document) else { return (nil, nil, nil, false) }
        func int(_ name: String) -> UInt64? {
            if case .int(let v)? = members.first(where: { $0.0 == name })?.1 { return UInt64(v) }
            return nil
        }
        return (int("from"), int("to"), int("position"), members.first?.0 == "reload")
    }

    /// Checks a subscriber's documents against the store; the number of reloads it was sent.
    static func check(_ watcher: Watcher, store: LogStore) throws -> Int {
        let documents = watcher.documents.withLock { $0 }
        let label = "\(watcher.channel) \(watcher.query) seq=\(watcher.seq)"
        try #require(documents.count >= 2, "\(label): \(documents)")
        var k = 0
        var reloads = 0
        var at: UInt64 = 0
        while k < documents.count {  // bounded: each turn takes a document
            let document = documents[k]
            let f = fields(of: document)
            if f.reload {
                reloads += 1
                k += 1
                continue
            }
            if let position = f.position, f.to == nil {
                // A query document: the first, or a reload's fresh one; the diffs go on from its position.
                #expect(k == 0 || documents[k - 1] == ViewLogServer.reloadDocument, "\(label): a query document at \(k)")
                #expect(document == (try MaterializedView(store: store, selection: watcher.selection, at: position).jsonText()), "\(label)")
                at = position
            } else {
                let from = try #require(f.from), to = try #require(f.to)
                #expect(from == at, "\(label): document \(k) starts at \(from), the one before ended at \(at)")
                let diff = try MaterializedView.diff(store: store, selection: watcher.selection, from: from, to: to).changes
                #expect(document == diff.json(includeSeq: watcher.seq).text, "\(label): \(from)…\(to)")
                at = to
            }
            k += 1
        }
        #expect(at == (try store.head), "\(label): the last document reaches the head")
        return reloads
    }
}
