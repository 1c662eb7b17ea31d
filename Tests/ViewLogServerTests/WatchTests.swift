import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews
import ViewLogDocuments
@testable import ViewLogServer

/// `GET /v1/watch` on a real socket: the documents of `watch --json`, across appends by other processes.
@Suite struct WatchTests {
    /// Two appends by another process, one at a time: each diff arrives before the next append, so the CLI's
    /// watcher and the server's batch them alike.
    static let appends: [[String]] = [
        ["update", "Employee", "e3", "height=185", "sectionName=A"],
        ["delete", "Employee", "e1"],
    ]

    /// The CLI's `watch --json` of `view`, started and showing its first document.
    func cliWatch(_ f: Fixture, view: String = "tall") async throws -> BackgroundCLI {
        let watch = try BackgroundCLI(["watch", f.path, view, "--json", "--count", String(Self.appends.count)])
        _ = try await offPool { try watch.lines(1) }
        return watch
    }

    @Test func serverSentEventsAreTheWatchDocuments() async throws {
        let f = try Fixture()
        let watch = try await cliWatch(f)
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            let http = try await offPool { try RawHTTP(port: port) }
            try await offPool { try http.send("GET", "/v1/watch?view=tall", headers: ["Accept": "text/event-stream"]) }
            let (status, headers) = try await offPool { try http.readHead() }
            #expect(status == 200)
            #expect(headers["content-type"] == "text/event-stream")
            var documents = [try #require(try await offPool { try http.nextEvent() })]
            for (k, change) in Self.appends.enumerated() {
                let r = try await offPool { try CLI.run(["append", f.path] + change) }
                try #require(r.status == 0, "\(r.stderr)")
                documents.append(try #require(try await offPool { try http.nextEvent() }))
                _ = try await offPool { try watch.lines(k + 2) }
            }
            let exit = try await offPool { watch.wait() }
            #expect(exit == 0)
            let lines = try await offPool { try watch.lines(Self.appends.count + 1) }
            #expect(documents == lines)
        }
    }

    @Test func webSocketMessagesAreTheWatchDocuments() async throws {
        let f = try Fixture()
        let watch = try await cliWatch(f)
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            let received = Locked<[String]>([])
            let path = f.path
            let logger = Logger(label: "test")
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/watch?view=tall", logger: logger) { inbound, outbound, _ in
                var iterator = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                for k in 0...Self.appends.count {
                    guard case .text(let text)? = try await iterator.next() else { break }
                    received.withLock { $0.append(text) }
                    _ = try await offPool { try watch.lines(k + 1) }
                    if k < Self.appends.count {
                        let r = try await offPool { try CLI.run(["append", path] + Self.appends[k]) }
                        try #require(r.status == 0, "\(r.stderr)")
                    }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            let status = try await offPool { watch.wait() }
            #expect(status == 0)
            let lines = try await offPool { try watch.lines(Self.appends.count + 1) }
            #expect(received.withLock { $0 } == lines)
        }
    }

    @Test func countEndsTheStreamAndSeqAddsSeqs() async throws {
        let f = try Fixture()
        let watch = try BackgroundCLI(["watch", f.path, "--entity", "Employee", "--sort", "name", "--json", "--seq", "--count", "1"])
        _ = try await offPool { try watch.lines(1) }
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            let http = try await offPool { try RawHTTP(port: port) }
            try await offPool { try http.send("GET", "/v1/watch?entity=Employee&sort=name&seq=true&count=1", headers: ["Accept": "text/event-stream"]) }
            _ = try await offPool { try http.readHead() }
            let first = try #require(try await offPool { try http.nextEvent() })
            let r = try await offPool { try CLI.run(["append", f.path, "update", "Employee", "e2", "name=Abe"]) }
            try #require(r.status == 0)
            let second = try #require(try await offPool { try http.nextEvent() })
            let end = try await offPool { try http.nextEvent() }
            #expect(end == nil)  // count=1: the stream ends
            let status = try await offPool { watch.wait() }
            #expect(status == 0)
            let lines = try await offPool { try watch.lines(2) }
            #expect([first, second] == lines)
        }
    }

    @Test func aBadWatchOverAWebSocketSendsItsErrorAndCloses() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server()).test(.live) { client in
            let port = try #require(client.port)
            let received = Locked<[String]>([])
            let close = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/watch?view=nope", logger: Logger(label: "test")) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.withLock { $0.append(text) } }
                }
            }
            #expect(close?.closeCode == .policyViolation)
            let documents = received.withLock { $0 }
            #expect(documents.count == 1)
            #expect(documents.first?.contains("\"code\": \"request.unknown-view\"") == true)
        }
    }

    @Test func aWebSocketUpgradeWithoutTheTokenIsRefused() async throws {
        let f = try Fixture()
        try await Fixture.app(f.server { $0.token = "t"; $0.tokenForEveryRequest = true }).test(.live) { client in
            let port = try #require(client.port)
            let http = try await offPool { try RawHTTP(port: port) }
            try await offPool { try http.send("GET", "/v1/watch?view=tall", headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            ]) }
            let (status, _) = try await offPool { try http.readHead() }
            #expect(status == 400)
        }
    }

    /// A subscriber that reads nothing: the producer never waits for it; past `capacity` documents the stream
    /// says `{"reload": true}` and starts again from a fresh query document, and the positions chain without a
    /// gap.
    @Test func aSlowSubscriberGetsAReloadAndAFreshQueryDocumentNeverAGap() async throws {
        let f = try Fixture()
        let buffer = WatchBuffer(capacity: 3)
        let handled = Locked<UInt64>(0)
        let request = ViewLogServer.WatchRequest(selection: ViewSelection(view: "tall"), includeSeq: false, count: 6)
        let store = f.store
        let producer = Task { await ViewLogServer.produce(request, store: store, into: buffer) { head in handled.withLock { $0 = head } } }
        defer { producer.cancel() }
        func waitHandled(_ head: UInt64) async throws {
            try await offPool {
                for _ in 0..<6000 where handled.withLock({ $0 }) < head { usleep(10_000) }  // at most about 60 s
            }
            try #require(handled.withLock { $0 } >= head)
        }
        try await waitHandled(4)
        // Six appends, each changing the view, each handled before the next: nobody reads.
        for k in 0..<6 {
            _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": \#(181 + k)}}"#, author: "t")
            try await waitHandled(UInt64(5 + k))
        }
        await producer.value
        var documents: [String] = []
        while let d = await buffer.next() { documents.append(d) }  // bounded: the producer finished
        // query@4, d5, d6 fill the buffer; d7 overflows (reload, query@7); d8; d9 overflows (reload, query@9); d10.
        let at9 = try MaterializedView(store: store, selection: ViewSelection(view: "tall"), at: 9).jsonText()
        let d10 = try CLI.json(["diff", f.path, "tall", "--from", "9", "--to", "10"])
        #expect(documents == [ViewLogServer.reloadDocument, at9, String(d10.dropLast())])
    }

    /// The store's horizon passing the view's position before the follow moves it (DESIGN §13): `{"reload": true}`
    /// and a fresh query document at the head, and the diffs go on from there.
    @Test func aCompactionPastTheViewReloadsItAtTheHead() async throws {
        let f = try Fixture()
        let buffer = WatchBuffer(capacity: 100)
        let request = ViewLogServer.WatchRequest(selection: ViewSelection(view: "tall"), includeSeq: false, count: 1)
        let store = f.store
        let first = Locked(true)
        let producer = Task {
            await ViewLogServer.produce(request, store: store, into: buffer) { _ in
                // Once, right after the query document at 4: two appends and a compaction past both.
                guard first.withLock({ isFirst in
                    defer { isFirst = false }
                    return isFirst
                }) else { return }
                for height in [191, 192] {
                    _ = try? AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": \#(height)}}"#, author: "t")
                }
                _ = try? store.compact(.keepLast(0))
            }
        }
        defer { producer.cancel() }
        let at4 = try MaterializedView(store: store, selection: ViewSelection(view: "tall"), at: 4).jsonText()
        var documents: [String] = []
        // Up to the reload's query document (the first one is read, or dropped by the restart, as it comes).
        while let d = await buffer.next() {  // bounded: the reload's query document ends it
            documents.append(d)
            if d != at4 && d != ViewLogServer.reloadDocument { break }
        }
        let at6 = try MaterializedView(store: store, selection: ViewSelection(view: "tall"), at: 6).jsonText()
        #expect(try store.horizon == 6)
        _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": 193}}"#, author: "t")
        await producer.value
        while let d = await buffer.next() { documents.append(d) }  // bounded: the producer finished
        let d7 = try CLI.json(["diff", f.path, "tall", "--from", "6", "--to", "7"])
        let expected = [ViewLogServer.reloadDocument, at6, String(d7.dropLast())]
        #expect(documents == expected || documents == [at4] + expected, "\(documents)")
    }

    /// The server's shared follow across a compaction that may pass its view's position (whether it does depends on
    /// how soon the follow moves): its member gets diffs, or `{"reload": true}` and a query document at the head;
    /// either way it shows the view at 7, and the next append reaches it as the diff from there.
    @Test func aSharedFollowGoesOnAcrossACompaction() async throws {
        let f = try Fixture()
        let store = f.store
        let buffer = WatchBuffer(capacity: 100)
        let request = ViewLogServer.WatchRequest(selection: ViewSelection(view: "tall"), includeSeq: false, count: nil)
        let member = SharedFollows().join(request, store: store, buffer: buffer)
        defer { member.leave() }
        var documents = [await buffer.next()]
        for height in [191, 192] {
            _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": \#(height)}}"#, author: "t")
        }
        try store.compact(.keepLast(0))
        _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": 193}}"#, author: "t")
        // The view at 7: the diff 6 → 7, or (reloaded after the append) the query document at 7.
        let d7 = String(try CLI.json(["diff", f.path, "tall", "--from", "6", "--to", "7"]).dropLast())
        let at7 = try MaterializedView(store: store, selection: ViewSelection(view: "tall"), at: 7).jsonText()
        while documents.last != d7 && documents.last != at7, documents.count < 10, let d = await buffer.next() {
            documents.append(d)
        }
        #expect(documents.last == d7 || documents.last == at7, "\(documents)")
        if let reload = documents.firstIndex(of: ViewLogServer.reloadDocument) {
            #expect(documents[reload + 1]?.hasPrefix(#"{"position": "#) == true, "\(documents)")
        }
        _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"height": 194}}"#, author: "t")
        let d8 = String(try CLI.json(["diff", f.path, "tall", "--from", "7", "--to", "8"]).dropLast())
        #expect(await buffer.next() == d8)
    }

    /// The server's shared follow across a migration (DESIGN §13): the view is carried through — a rename is no change,
    /// a converted value an update under the new name — and every document it sends is what `viewlog diff --json`
    /// prints over its span; a follow of a named view the migration removes gets the error document (code
    /// `view.removed`) and ends.
    @Test func aSharedFollowIsCarriedAcrossAMigrationAndEndsWhenItsViewIsRemoved() async throws {
        let f = try Fixture()
        let store = f.store
        let follows = SharedFollows()
        let tallBuffer = WatchBuffer(capacity: 100), activeBuffer = WatchBuffer(capacity: 100)
        let tall = follows.join(ViewLogServer.WatchRequest(selection: ViewSelection(view: "tall"), includeSeq: false, count: nil),
                                store: store, buffer: tallBuffer)
        defer { tall.leave() }
        let active = follows.join(ViewLogServer.WatchRequest(selection: ViewSelection(view: "active"), includeSeq: false, count: nil),
                                  store: store, buffer: activeBuffer)
        defer { active.leave() }
        let start = try store.head
        #expect(await tallBuffer.next()?.hasPrefix(#"{"position": "#) == true)
        _ = await activeBuffer.next()
        try store.migrate(try Migration(jsonText: """
            [{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}},
             {"changeType": {"entity": "Employee", "attribute": "salary", "to": "string"}}, {"removeView": "active"}]
            """), author: "m")
        _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"heightCm": 195}}"#, author: "t")
        let head = try store.head
        var documents: [String] = [], at = start
        while at < head, let document = await tallBuffer.next() {  // bounded: each document moves `at` on, or fails
            documents.append(document)
            let fields = WatchDiffTests.fields(of: document)
            guard let from = fields.from, let to = fields.to, from == at else { Issue.record("\(documents)"); break }
            let diff = String(try CLI.json(["diff", f.path, "tall", "--from", String(from), "--to", String(to)]).dropLast())
            #expect(document == diff)
            at = to
        }
        #expect(at == head && !documents.contains(ViewLogServer.reloadDocument), "\(documents)")
        #expect(documents.contains { $0.contains(#""salary"]"#) }, "the converted values are updates: \(documents)")
        let error = try #require(await activeBuffer.next())
        #expect(error.contains("view.removed") && error.contains("'active'"), "\(error)")
        #expect(await activeBuffer.next() == nil, "the follow ended")
    }

    /// A member that joins a shared follow after a migration the follow moved over without a change set (a rename is
    /// none) is sent the view where the last change set ended — back across the migration, in the names of its time,
    /// as `query --at` prints it — and from there every member gets the same `diff` documents across the migration.
    @Test func aMemberJoiningAfterAMigrationStartsWhereTheLastChangeSetEnded() async throws {
        let f = try Fixture()
        let store = f.store
        let follows = SharedFollows()
        let request = ViewLogServer.WatchRequest(selection: ViewSelection(view: "tall"), includeSeq: false, count: nil)
        let firstBuffer = WatchBuffer(capacity: 100), lateBuffer = WatchBuffer(capacity: 100)
        let first = follows.join(request, store: store, buffer: firstBuffer)
        defer { first.leave() }
        let start = try store.head
        #expect(await firstBuffer.next() == (try MaterializedView(store: store, selection: ViewSelection(view: "tall"), at: start).jsonText()))
        try store.migrate(try Migration(jsonText: #"[{"renameAttribute": {"entity": "Employee", "from": "height", "to": "heightCm"}}]"#),
                          author: "m")
        // The follow moves over the rename (one move, no change set) before the late member joins.
        for _ in 0..<3000 where follows.running.first?.moves.withLock({ $0 }) != 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(follows.running.first?.moves.withLock { $0 } == 1)
        let late = follows.join(request, store: store, buffer: lateBuffer)
        defer { late.leave() }
        let atStart = String(try CLI.json(["query", f.path, "tall", "--at", String(start), "--json"]).dropLast())
        #expect(await lateBuffer.next() == atStart, "the view where the last change set ended, in the names of its time")
        _ = try AppendInOneWrite.append(store, text: #"{"update": "Employee", "id": "e1", "values": {"heightCm": 195}}"#, author: "t")
        let diff = String(try CLI.json(["diff", f.path, "tall", "--from", String(start), "--to", String(try store.head)]).dropLast())
        #expect(await firstBuffer.next() == diff)
        #expect(await lateBuffer.next() == diff)
    }

    /// What `watch` (and the server's) follows of a windowed named view over key paths starts from its stored window
    /// — the window's rows and path values, not the entity — and prints what the same view ad hoc prints, before and
    /// after a move that changes it, still holding the window and the rows the move touched.
    @Test func aWatchedWindowOverKeyPathsStartsFromTheStoredWindow() throws {
        let schema = try Schema(jsonText: """
            {"entities": {
              "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
              "Employee": {"id": "int", "attributes": {"name": {"type": "string"}, "height": {"type": "int", "optional": true}},
                "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"}}}},
             "views": {"headcount": {"entity": "Department", "where": "ANY employees.height > 150",
                                     "sort": "employees.@count desc, employees.@max.height, name", "limit": 2}}}
            """)
        let path = TestScratch.newPath("watch-paths")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LogStore.create(at: path, schema: schema)
        var setup: [ChangeRequest] = []
        for d in 1...4 { setup.append(.insert(entity: "Department", id: .int(Int64(d)), values: ["name": .string("d\(d)")])) }
        for e in 1...9 {
            let values: ObjectValues = ["name": .string("e\(e)"), "height": .int(Int64(140 + 5 * e)), "department": .int(Int64(e % 4 + 1))]
            setup.append(.insert(entity: "Employee", id: .int(Int64(e)), values: values))
        }
        try store.append(setup, author: "t")
        // The same rows, not the named view's own request (heights are ints): built in memory.
        let adHoc = ViewSelection(entity: "Department", predicate: "ANY employees.height >= 151",
                                  sort: "employees.@count desc, employees.@max.height, name", limit: 2)
        let stored = try MaterializedView(store: store, selection: ViewSelection(view: "headcount"), at: try store.head)
        let memory = try MaterializedView(store: store, selection: adHoc, at: try store.head)
        #expect(stored.controller.holdsStoredPathRange && !memory.controller.holdsStoredPathRange)
        #expect(try stored.jsonText() == memory.jsonText())
        try store.append([.update(entity: "Employee", id: .int(2), values: ["department": .int(1)])], author: "t")
        let (a, _) = try stored.move(to: try store.head)
        let (b, _) = try memory.move(to: try store.head)
        #expect(a == b && !a.rowChanges.isEmpty)
        #expect(try stored.jsonText() == memory.jsonText())
        #expect(stored.controller.holdsStoredPathRange, "the window and the rows the move touched, not the whole view")

        // Made below the head (the head moved on before the view was made): the window and the rows changed since,
        // their values read one by one, exact up to the head.
        try store.append([.update(entity: "Employee", id: .int(4), values: ["height": .int(190)])], author: "t")  // moves department 1 after 2
        try store.append([.update(entity: "Department", id: .int(3), values: ["name": "c"])], author: "t")
        let below = try store.head - 2
        let range = try MaterializedView(store: store, selection: ViewSelection(view: "headcount"), at: below)
        let inMemory = try MaterializedView(store: store, selection: adHoc, at: below)
        #expect(range.controller.holdsStoredPathRange && !inMemory.controller.holdsStoredPathRange)
        #expect(try range.jsonText() == inMemory.jsonText())
        let (c, beforeC) = try range.move(to: try store.head)
        let (d, beforeD) = try inMemory.move(to: try store.head)
        #expect(c == d && beforeC == beforeD && !c.rowChanges.isEmpty)
        #expect(try range.jsonText() == inMemory.jsonText())
    }

    @Test func theBufferKeepsOrderAndRefusesPastCapacity() async {
        let buffer = WatchBuffer(capacity: 2)
        #expect(buffer.push("a"))
        #expect(buffer.push("b"))
        #expect(!buffer.push("c"))
        #expect(await buffer.next() == "a")
        #expect(buffer.push("c"))
        buffer.restart(with: ["r", "q"])
        buffer.finish()
        var rest: [String] = []
        while let d = await buffer.next() { rest.append(d) }
        #expect(rest == ["r", "q"])
    }
}

/// Hundreds of subscribers of one view on one server share one follow, and so one subscription to the store's head
/// monitor (no thread or poll each), and one append by another process reaches every one of them.
@Suite struct ManySubscribersTests {
    @Test func twoHundredSubscribersShareTheHeadMonitorAndAllGetTheBatch() async throws {
        let f = try Fixture()
        let server = f.server()
        let n = 200
        try await Fixture.app(server).test(.live) { client in
            let port = try #require(client.port)
            let streams = try await offPool {
                try (0..<n).map { _ -> RawHTTP in
                    let http = try RawHTTP(port: port)
                    try http.send("GET", "/v1/watch?view=tall", headers: ["Accept": "text/event-stream"])
                    return http
                }
            }
            let first = try await offPool { try streams.map { http -> String? in _ = try http.readHead(); return try http.nextEvent() } }
            #expect(Set(first).count == 1)
            #expect(server.subscribers.withLock { $0 } == n)
            #expect(HeadMonitor.subscriberCount(path: f.store.environment.path) == 1)
            let r = try await offPool { try CLI.run(["append", f.path, "update", "Employee", "e1", "height=199"]) }
            try #require(r.status == 0)
            let expected = try CLI.json(["diff", f.path, "tall", "--from", "4", "--to", "5"])
            let second = try await offPool { try streams.map { try $0.nextEvent() } }
            #expect(second.allSatisfy { $0.map { $0 + "\n" } == expected })
        }
    }
}

/// A subscriber that goes away gives its place back when its connection closes, also while the view is idle.
@Suite struct DisconnectTests {
    @Test func aClosedEventStreamEndsItsSubscription() async throws {
        let f = try Fixture()
        let server = f.server()
        try await Fixture.app(server).test(.live) { client in
            let port = try #require(client.port)
            let stream = try await offPool { try RawHTTP(port: port) }
            try await offPool { try stream.send("GET", "/v1/watch?view=tall", headers: ["Accept": "text/event-stream"]) }
            _ = try await offPool { try stream.readHead() }
            _ = try await offPool { try stream.nextEvent() }
            #expect(server.subscribers.withLock { $0 } == 1)
            stream.close()
            for _ in 0..<3000 where server.subscribers.withLock({ $0 }) > 0 { try await Task.sleep(for: .milliseconds(10)) }  // at most about 30 s
            #expect(server.subscribers.withLock { $0 } == 0)
            #expect(HeadMonitor.subscriberCount(path: f.store.environment.path) == 0)
        }
    }
}

/// Subscribers of one view share one follow (DESIGN §12): an append moves the view once, whatever their number, and
/// every subscriber is still sent `diff`'s documents; another window of the view is another follow.
@Suite struct SharedFollowTests {
    @Test func subscribersOfOneViewShareOneFollowAndEachGetsTheDiff() async throws {
        let f = try Fixture()
        let server = f.server()
        let n = 12
        try await Fixture.app(server).test(.live) { client in
            let port = try #require(client.port)
            // n of `tall` (half with seqs), and one of `tall` in a window of 1: two distinct views.
            let targets = (0..<n).map { "/v1/watch?view=tall&seq=\($0 % 2 == 0)" } + ["/v1/watch?view=tall&limit=1"]
            let streams = try await offPool {
                try targets.map { target -> RawHTTP in
                    let http = try RawHTTP(port: port)
                    try http.send("GET", target, headers: ["Accept": "text/event-stream"])
                    _ = try http.readHead()
                    return http
                }
            }
            let first = try await offPool { try streams.map { try $0.nextEvent() } }
            #expect(Set(first.prefix(n)).count == 1)
            #expect(server.follows.running.count == 2)
            let appends = [["e1", "height=199"], ["e3", "height=175"], ["e1", "sectionName=C"]]  // each changes `tall`
            for (k, change) in appends.enumerated() {
                let r = try await offPool { try CLI.run(["append", f.path, "update", "Employee"] + change) }
                try #require(r.status == 0, "\(r.stderr)")
                let to = 4 + k + 1
                let expected = try [false, true].map { seq in
                    try CLI.json(["diff", f.path, "tall", "--from", String(to - 1), "--to", String(to)] + (seq ? ["--seq"] : []))
                }
                let documents = try await offPool { try streams.prefix(n).map { try $0.nextEvent() } }
                for (i, d) in documents.enumerated() {
                    #expect(d.map { $0 + "\n" } == expected[i % 2 == 0 ? 1 : 0], "subscriber \(i), append \(k)")
                }
            }
            // One move per batch for the n subscribers of `tall`, not n.
            let moves = server.follows.running.map { $0.moves.withLock { $0 } }.sorted()
            #expect(moves.last == appends.count, "\(moves)")
            streams.forEach { $0.close() }
            for _ in 0..<3000 where !server.follows.running.isEmpty { try await Task.sleep(for: .milliseconds(10)) }  // at most about 30 s
            #expect(server.follows.running.isEmpty, "a follow ends with its last subscriber")
        }
    }
}
