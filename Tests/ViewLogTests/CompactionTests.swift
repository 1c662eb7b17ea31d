import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogStore

/// `compact` (DESIGN §13) stopped after each of its writes — where a SIGKILL can leave it — and its bad input.
@Suite("Compaction")
struct CompactionTests {
    struct Stop: Error {}

    /// A store of 30 employees, each updated a few times, with checkpoints every few entries (some complete, one
    /// being built), at head 150.
    static func makeStore() throws -> LogStore {
        let policy = CheckpointPolicy(minimumEntries: 16, entriesPerRow: 0, rowsCopiedPerChange: 1, rowsCopiedPerWrite: 1)
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: employeesSchemaText),
                                        options: StoreOptions(durable: false, checkpoints: policy))
        var g = SeededGenerator(stream: 77)
        for i in 0..<30 {
            try store.append([.insert(entity: "Employee", id: .string("e\(i)"),
                                      values: ["name": .string("N\(i)"), "height": .int(Int64(150 + i))])], author: "w")
        }
        for _ in 0..<120 {
            let id = ObjectID.string("e\(Int.random(in: 0..<30, using: &g))")
            if Int.random(in: 0..<12, using: &g) == 0, try store.object(ObjectKey(entity: "Employee", id: id)) != nil {
                try store.append([.delete(entity: "Employee", id: id)], author: "w")
            } else if try store.object(ObjectKey(entity: "Employee", id: id)) == nil {
                try store.append([.insert(entity: "Employee", id: id, values: ["name": "back", "height": 170])], author: "w")
            } else {
                try store.append([.update(entity: "Employee", id: id, values: ["height": .int(Int64.random(in: 150...200, using: &g))])],
                                 author: "w")
            }
        }
        return store
    }

    /// What the store answers at every position from `from` to the head: the objects and the log after it.
    struct Answer: Equatable {
        var objects: [ObjectID: ObjectValues]
        var log: [Transaction]
    }

    static func answers(_ store: LogStore, from: UInt64) throws -> [Answer] {
        let head = try store.head
        return try (from...head).map { p in
            Answer(objects: Dictionary(uniqueKeysWithValues: try store.objects(of: "Employee", at: p).map { ($0.id, $0.values) }),
                   log: try store.transactions(after: p))
        }
    }

    /// Stopped after each of its writes in turn, a compaction leaves a store that verifies, with the old horizon or
    /// the new one, answering at and above it as before; the next compaction (even one that asks for nothing)
    /// finishes it.
    @Test func aCompactionStoppedAfterAnyWriteLeavesAStoreThatVerifiesAndIsFinishedByTheNext() throws {
        let original = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: original.path) }
        let horizon: UInt64 = 70
        let expected = try Self.answers(original, from: horizon)
        // How many writes a whole compaction makes, on a copy.
        var writes = 0
        do {
            let copy = try LogStore.open(at: try original.backup(to: newStorePath()).path)
            defer { try? FileManager.default.removeItem(atPath: copy.path) }
            let result = try copy.compact(.before(horizon), now: .now, chunkRows: 7) { writes += 1 }
            #expect(result.horizon == horizon && result.previousHorizon == 0)
            #expect(try Self.answers(copy, from: horizon) == expected)
            #expect(try copy.verify().isOK)
            let statistics = try copy.statistics()
            #expect(statistics.horizon == horizon && statistics.checkpoints.first == horizon)
        }
        #expect(writes > 10, "the compaction was made of many writes: \(writes)")
        for stop in 1...writes {
            let copy = try LogStore.open(at: try original.backup(to: newStorePath()).path)
            defer { try? FileManager.default.removeItem(atPath: copy.path) }
            var made = 0
            #expect(throws: StoreError.self) {
                try copy.compact(.before(horizon), now: .now, chunkRows: 7) {
                    made += 1
                    if made == stop { throw Stop() }
                }
            }
            let report = try copy.verify()
            #expect(report.isOK, "stopped after write \(stop): \(report.problems)")
            let now = try copy.horizon
            #expect(now == 0 || now == horizon, "stopped after write \(stop)")
            #expect(try Self.answers(copy, from: horizon) == expected, "stopped after write \(stop)")
            if now == 0 { #expect(try Self.answers(copy, from: 0) == (try Self.answers(original, from: 0)), "stopped after write \(stop)") }
            // An append between the stop and the next compaction is kept.
            try copy.append([.insert(entity: "Employee", id: "late", values: ["name": "Late"])], author: "w")
            let result = try copy.compact(.before(0))
            #expect(result.horizon == horizon && result.moved == (now == 0), "stopped after write \(stop)")
            #expect(try copy.perform(read: true) { txn in try copy.compactionRecord(in: txn) } == nil)
            #expect(try copy.verify().isOK, "finished after a stop after write \(stop)")
            let after = try Self.answers(copy, from: horizon)
            #expect(after.dropLast().map(\.objects) == expected.map(\.objects), "stopped after write \(stop)")
            #expect(after.dropLast().map { $0.log.dropLast() } == expected.map { $0.log[...] }, "stopped after write \(stop)")
        }
    }

    /// The objects a compaction writes at its target are folded by slot (a word per value, not a dictionary per
    /// object) and are, byte for byte, the rows the fold by name makes: from the empty store, from a checkpoint,
    /// from the horizon's checkpoint after a first compaction. A log with a schema change after the fold's start is
    /// read by name.
    @Test func theObjectsAtATargetFoldedBySlotAreTheRowsFoldedByName() throws {
        let store = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        func same(at p: UInt64, folded: Bool = true) throws {
            let bySlot = try store.objectRows(at: p), byName = try store.objectRowsByName(at: p)
            #expect(bySlot.isFolded == folded, "at \(p)")
            #expect(bySlot.count == byName.count, "at \(p)")
            #expect((0..<bySlot.count).allSatisfy { bySlot.row($0) == byName.row($0) }, "at \(p)")
            #expect((0..<bySlot.count).allSatisfy { bySlot.firstIndex(after: bySlot.key($0)) == $0 + 1 }, "at \(p)")
        }
        #expect(try store.statistics().checkpoints.count >= 2, "checkpoints to start from")
        for p: UInt64 in [0, 1, 15, 16, 17, 40, 70, 149, 150] { try same(at: p) }
        try store.compact(.before(70))
        for p: UInt64 in [70, 71, 100, 150] { try same(at: p) }
        // Inserts without every attribute: a row without a value stays without it, not null.
        try store.append([.insert(entity: "Employee", id: "late", values: ["name": "Late"])], author: "w")
        try same(at: try store.head)
        let wider = try Schema(jsonText: employeesSchemaText.replacingOccurrences(
            of: #""name": {"type": "string"},"#, with: #""name": {"type": "string"}, "nickname": {"type": "string", "optional": true},"#))
        try store.updateSchema(wider, author: "w")
        try store.append([.update(entity: "Employee", id: "late", values: ["nickname": "L"])], author: "w")
        try same(at: try store.head, folded: false)
    }

    /// Targets: a seq past the head is refused, one at or below the horizon and a period with nothing older change
    /// nothing; `keepLast` counts back from the head; `keepFor` takes the last transaction older than the period.
    @Test func targets() throws {
        let store = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        #expect(throws: StoreError.positionPastHead(position: 151, head: 150)) { try store.compact(.before(151)) }
        let period = try #require(RetentionPeriod("1h"))
        #expect(try store.compact(.keepFor(period)) == CompactionResult(horizon: 0, previousHorizon: 0, bytesFreed: 0))
        #expect(try store.compact(.keepLast(200)).moved == false)
        #expect(try store.compact(.keepLast(100)).horizon == 50)
        #expect(try store.compact(.before(40)) == CompactionResult(horizon: 50, previousHorizon: 50, bytesFreed: 0))
        // Two hours later every transaction is older than an hour: the horizon goes to the head.
        let later = Timestamp(milliseconds: Timestamp.now.milliseconds + 7_200_000)
        #expect(try store.compact(.keepFor(period), now: later).horizon == 150)
        #expect(try store.transactions().isEmpty)
        #expect(try store.objects(of: "Employee", at: 150).count == (try store.objects(of: "Employee").count))
        // Appends after a compaction to the head go on from it.
        let t = try store.append([.insert(entity: "Employee", id: "new", values: ["name": "New"])], author: "w")
        #expect(t.seq == 151)
        #expect(try store.transactions().map(\.seq) == [151])
        #expect(try store.verify().isOK)
    }

    /// A compacted store's snapshot (its schema and objects at the horizon) survives its JSON, and starts an empty
    /// store that, with the transactions after it, answers as the original at every position from the horizon;
    /// `replay` does the same. A store that is not empty, a transaction that does not follow, and a snapshot with
    /// anything but inserts are refused, changing nothing.
    @Test func aSnapshotStartsAnEmptyStoreThatAnswersAsTheCompactedOne() throws {
        let original = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: original.path) }
        #expect(try original.snapshot() == nil)
        try original.compact(.before(70))
        let snapshot = try #require(try original.snapshot())
        #expect(try snapshot.position == 70 && snapshot.schema == original.schema(at: 70))
        #expect(snapshot.objects.count == (try original.objects(of: "Employee", at: 70)).count)
        #expect(try Snapshot(json: try JSONValue.parse(snapshot.json.text)) == snapshot)
        let after = try original.transactions()
        let expected = try Self.answers(original, from: 70)

        let copy = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: #"{"entities": {"X": {"id": "int", "attributes": {}}}}"#))
        defer { try? FileManager.default.removeItem(atPath: copy.path) }
        try copy.start(from: snapshot, then: after)
        #expect(try copy.horizon == 70 && copy.head == original.head && copy.schema == original.schema)
        #expect(try Self.answers(copy, from: 70) == expected)
        #expect(try copy.verify().isOK)
        #expect(throws: StoreError.self) { try copy.start(from: snapshot) }
        #expect(try copy.head == original.head)

        let replayed = try original.replay(into: newStorePath())
        defer { try? FileManager.default.removeItem(atPath: replayed.path) }
        #expect(try replayed.horizon == 70 && replayed.head == original.head)
        #expect(try Self.answers(replayed, from: 70) == expected)
        #expect(try replayed.verify().isOK)

        let empty = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: employeesSchemaText))
        defer { try? FileManager.default.removeItem(atPath: empty.path) }
        #expect(throws: StoreError.self) { try empty.start(from: snapshot, then: Array(after.dropFirst())) }
        #expect(try empty.head == 0 && empty.horizon == 0 && empty.objects(of: "Employee").isEmpty)
        var bad = snapshot
        bad.objects[0] = .update(entity: "Employee", id: "e0", values: ["height": 1])
        #expect(throws: StoreError.self) { try empty.start(from: bad) }
        #expect(try empty.head == 0 && empty.horizon == 0)
        let update = #"{"snapshot": 3, "schema": \#(snapshot.schema.json.text), "changes": [{"op": "delete", "entity": "Employee", "id": "e1", "previous": {"name": "A"}}]}"#
        #expect(throws: InputError.self) { try Snapshot(json: try JSONValue.parse(update), line: 1) }
        #expect(throws: InputError.self) { try Snapshot(json: try JSONValue.parse(#"{"snapshot": 0, "schema": {}, "changes": []}"#)) }
    }

    /// A schema's retention (DESIGN §13, point 2 of issue 41): appends move the horizon up by themselves — to a
    /// complete checkpoint, never past what the retention keeps — and remove the log before it a chunk per write, so
    /// the log stays bounded; at every position from the horizon the store answers as a twin without retention.
    @Test(arguments: [#"{"keepLast": 20}"#, #"{"keepFor": "3d"}"#])
    func appendsUnderARetentionKeepTheLogBounded(retention: String) throws {
        let policy = CheckpointPolicy(minimumEntries: 8, entriesPerRow: 0, rowsCopiedPerChange: 2, rowsCopiedPerWrite: 4)
        let text = String(employeesSchemaText.dropLast(1)) + #", "retention": \#(retention)}"#
        let schema = try Schema(jsonText: text)
        let reread = try Schema(jsonText: schema.json.text)
        #expect(schema.retention != nil && reread == schema)
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false, checkpoints: policy))
        let twin = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: employeesSchemaText),
                                       options: StoreOptions(durable: false, checkpoints: policy))
        defer {
            try? FileManager.default.removeItem(atPath: store.path)
            try? FileManager.default.removeItem(atPath: twin.path)
        }
        var g = SeededGenerator(stream: 91)
        // Transactions an hour apart, ending 10 days ago: with keepFor 3d every one is old enough.
        let start = Timestamp.now.milliseconds - 10 * 86_400_000 - 300 * 3_600_000
        var moves = 0, previous: UInt64 = 0
        for i in 0..<300 {
            let id = ObjectID.string("e\(Int.random(in: 0..<25, using: &g))")
            let exists = try twin.object(ObjectKey(entity: "Employee", id: id)) != nil
            let change: ChangeRequest = exists
                ? .update(entity: "Employee", id: id, values: ["height": .int(Int64.random(in: 150...200, using: &g))])
                : .insert(entity: "Employee", id: id, values: ["name": "N"])
            let request = TransactionRequest(author: "w", changes: [change], time: Timestamp(milliseconds: start + Int64(i) * 3_600_000))
            try store.append([request])
            try twin.append([request])
            let head = try store.head, horizon = try store.horizon
            if retention.contains("keepLast") { #expect(horizon == 0 || horizon <= head - 20, "at \(head)") }
            #expect(head - horizon <= 60, "the log stays bounded: \(head - horizon) transactions at \(head)")
            if horizon != previous { moves += 1; previous = horizon }
            let oldest = try store.statistics().checkpoints.first
            #expect(horizon == 0 || oldest == horizon)
            if i % 50 == 49 {
                #expect(try store.verify().isOK, "at \(head)")
                for p in [horizon, (horizon + head) / 2, head] {
                    let got = try store.objects(of: "Employee", at: p), expected = try twin.objects(of: "Employee", at: p)
                    #expect(got.map(\.id) == expected.map(\.id) && got.map(\.values) == expected.map(\.values), "at \(p)")
                }
                // Entries below the horizon are gone a write after it moved.
                let entries = try store.perform(read: true) { txn in try txn.statistics(store.logDB).entries }
                #expect(entries <= 120, "\(entries) log entries at \(head)")
            }
        }
        #expect(moves >= 5, "the horizon moved \(moves) times")
        #expect(try store.verify().isOK)
    }

    /// Undo looks for an author's history after the horizon only; a revert of a compacted transaction is refused.
    @Test func undoAndRevertSeeTheHistoryAfterTheHorizon() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: employeesSchemaText),
                                        options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        for i in 0..<10 {
            try store.append([.insert(entity: "Employee", id: .string("e\(i)"), values: ["name": "N"])], author: i < 5 ? "a" : "b")
        }
        try store.compact(.before(6))
        #expect(try store.undoTarget(author: "a") == nil)
        #expect(try store.undoTarget(author: "b") == 10)
        #expect(throws: StoreError.self) { try store.undo(author: "a") }
        do {
            _ = try store.revert([4], author: "a")
            Issue.record("a revert below the horizon was made")
        } catch {
            #expect(error.code == .compacted, "\(error)")
        }
        #expect(try store.undo(author: "b").reverts == [10])
        #expect(try store.head == 11 && store.verify().isOK)
    }

    /// Two compactions at once (as two processes would run them): the one whose record the other changed stops with
    /// `log.compaction-under-way`, the other finishes, and the store verifies.
    @Test func aCompactionWhoseRecordAnotherChangedStops() throws {
        let store = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        var other: CompactionResult?
        #expect(throws: StoreError.compactionUnderWay(path: store.path)) {
            try store.compact(.before(70), now: .now, chunkRows: 7) {
                // After the first write: another compaction finishes the one under way.
                if other == nil { other = try store.compact(.before(0)) }
            }
        }
        #expect(other?.horizon == 70)
        #expect(try store.horizon == 70 && store.verify().isOK)
    }

    /// Dropping the checkpoints of a compacted store keeps the one at its horizon (the log no longer holds it).
    @Test func droppingCheckpointsKeepsTheHorizons() throws {
        let store = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.compact(.before(70))
        let expected = try Self.answers(store, from: 70)
        #expect(try store.statistics().checkpoints.count > 1)
        #expect(try store.dropCheckpoints() > 0)
        #expect(try store.statistics().checkpoints == [70])
        #expect(try store.dropCheckpoints() == 0)
        #expect(try Self.answers(store, from: 70) == expected)
        #expect(try store.verify().isOK)
    }

    @Test(arguments: ["30d", "12h", "15m", "90s", "2w", "1d"])
    func periods(text: String) throws {
        let period = try #require(RetentionPeriod(text))
        #expect(period.description == text)
        let ms: [Character: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000]
        #expect(period.milliseconds == Int64(text.dropLast())! * ms[text.last!]!)
    }

    @Test(arguments: ["", "d", "0d", "-1d", "1.5d", "30", "30x", "1 d", "d30", "99999999999999999999d", "4000000d"])
    func notPeriods(text: String) {
        #expect(RetentionPeriod(text) == nil)
    }
}
