import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A path for a new store under the temporary directory (the directory itself does not exist yet).
func newStorePath() -> String {
    TestScratch.newPath("store")
}

let employeesSchemaText = """
{"entities": {"Employee": {"id": "string", "attributes": {
  "name": {"type": "string"}, "height": {"type": "int", "optional": true},
  "sectionName": {"type": "string", "default": ""}, "salary": {"type": "double", "default": 0},
  "active": {"type": "bool", "default": true}, "hired": {"type": "date", "optional": true}}}},
 "views": {"tall": {"entity": "Employee", "where": "TRUEPREDICATE", "sort": "sectionName, height desc, name", "section": "sectionName"}}}
"""

func employeesSchema() throws -> Schema { try Schema(jsonText: employeesSchemaText) }

func makeStore(options: StoreOptions = StoreOptions(durable: false)) throws -> LogStore {
    try LogStore.create(at: newStorePath(), schema: try employeesSchema(), options: options)
}

func employee(_ id: String) -> ObjectKey { ObjectKey(entity: "Employee", id: .string(id)) }

@Suite("LogStore")
struct LogStoreTests {
    /// The automatic time travel folds forwards unless the entries before the position outnumber those after it
    /// by more than a third (an undo entry costs more than a fold entry): the middle of a log folds forwards.
    @Test func automaticTimeTravelFoldsUpToFourThirdsOfTheEntriesAfter() {
        let automatic = LogStore.TimeTravel.automatic
        #expect(automatic.foldsForward(entriesBefore: 250_000, entriesAfter: 250_000))
        #expect(automatic.foldsForward(entriesBefore: 400, entriesAfter: 300))
        #expect(!automatic.foldsForward(entriesBefore: 401, entriesAfter: 300))
        #expect(!automatic.foldsForward(entriesBefore: 1, entriesAfter: 0))
        #expect(automatic.foldsForward(entriesBefore: 0, entriesAfter: 0))
        // No overflow at the ends of the range.
        #expect(automatic.foldsForward(entriesBefore: .max, entriesAfter: .max))
        #expect(!automatic.foldsForward(entriesBefore: .max, entriesAfter: .max / 2))
        #expect(LogStore.TimeTravel.undoFromHead.foldsForward(entriesBefore: 0, entriesAfter: 9) == false)
        #expect(LogStore.TimeTravel.foldFromStart.foldsForward(entriesBefore: 9, entriesAfter: 0))
    }

    @Test func appendReadAndReopen() throws {
        let store = try makeStore()
        #expect(try store.head == 0)
        let t1 = try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann"), "height": .int(180)])], author: "test")
        #expect(t1.seq == 1)
        guard case .insert(_, let values) = t1.changes[0] else { Issue.record("expected an insert"); return }
        #expect(values["salary"] == .double(0))  // default filled
        #expect(values["hired"] == .null)          // optional without default
        #expect(values["active"] == .bool(true))
        let t2 = try store.append([.update(entity: "Employee", id: .string("e1"), values: ["height": .int(182)])], author: "test")
        guard case .update(_, let new, let previous) = t2.changes[0] else { Issue.record("expected an update"); return }
        #expect(new == ["height": .int(182)])
        #expect(previous == ["height": .int(180)])

        let reopened = try LogStore.open(at: store.path)
        #expect(try reopened.head == 2)
        #expect(try reopened.transactions() == [t1, t2])
        #expect(try reopened.object(employee("e1"))?["height"] == .int(182))
        #expect(try reopened.object(employee("e1"), at: 1)?["height"] == .int(180))
        #expect(try reopened.object(employee("e1"), at: 0) == nil)
    }

    @Test func aBadChangeAfterGoodOnesAppendsNothing() throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e0"), values: ["name": .string("Zed")])], author: "t")
        let requests = [
            TransactionRequest(author: "t", changes: [.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])]),
            TransactionRequest(author: "t", changes: [
                .update(entity: "Employee", id: .string("e1"), values: ["height": .int(1)]),
                .update(entity: "Employee", id: .string("nobody"), values: ["height": .int(1)]),
            ]),
        ]
        #expect(throws: StoreError.invalidChange(transaction: 1, change: 1, reason: "update of Employee \"nobody\": no such object")) {
            try store.append(requests)
        }
        #expect(try store.head == 1)
        #expect(try store.object(employee("e1")) == nil)
        #expect(try store.verify().isOK)
    }

    @Test(arguments: [
        (ChangeRequest.insert(entity: "Nope", id: .string("x"), values: [:]), "unknown entity 'Nope'"),
        (.insert(entity: "Employee", id: .int(3), values: ["name": .string("A")]), "Employee ids are strings, got an integer"),
        (.insert(entity: "Employee", id: .string("e9"), values: [:]), "missing required attribute 'name'"),
        (.insert(entity: "Employee", id: .string("e9"), values: ["name": .null]), "is required and cannot be null"),
        (.insert(entity: "Employee", id: .string("e9"), values: ["name": .string("A"), "height": .double(1.5)]), "attribute 'height' is int, got a double"),
        (.insert(entity: "Employee", id: .string("e9"), values: ["name": .string("A"), "wings": .int(2)]), "unknown attribute 'wings'"),
        (.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("A")]), "the id exists already"),
        (.update(entity: "Employee", id: .string("e9"), values: ["height": .int(2)]), "no such object"),
        (.delete(entity: "Employee", id: .string("e9")), "no such object"),
        // Keys that cannot be an object's LMDB key are refused as input, never trapped on while the key is made.
        (.insert(entity: "Emp\u{0}loyee", id: .string("x"), values: [:]), "unknown entity 'Emp\u{0}loyee'"),
        (.update(entity: "", id: .string("x"), values: ["height": .int(1)]), "unknown entity ''"),
        (.delete(entity: String(repeating: "E", count: 300), id: .string("x")), "unknown entity 'EEEE"),
        (.insert(entity: "Employee", id: .string(String(repeating: "x", count: 600)), values: ["name": .string("A")]),
         "id is longer than"),
        (.delete(entity: "Employee", id: .string(String(repeating: "x", count: 600))), "id is longer than"),
    ])
    func refusedChangesNameTheProblem(request: ChangeRequest, message: String) throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "t")
        do {
            try store.append([request], author: "t")
            Issue.record("expected \(message)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
        #expect(try store.head == 1)
    }

    /// Keys no object can have (an entity with a NUL, an empty or over-long entity name, an over-long or mistyped
    /// id) read as absent and are refused when staged, never trapped on while their LMDB key is made.
    @Test func keysNoObjectCanHaveReadAsAbsent() throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "t")
        let keys = [ObjectKey(entity: "Emp\u{0}loyee", id: .string("e1")), ObjectKey(entity: "", id: .int(1)),
                    ObjectKey(entity: String(repeating: "E", count: 300), id: .string("e1")),
                    ObjectKey(entity: "Employee", id: .string(String(repeating: "x", count: 600))),
                    ObjectKey(entity: "Employee", id: .int(1))]
        let context = try Context(store: store, name: "c")
        for key in keys {
            #expect(try store.object(key) == nil, "\(key)")
            #expect(try store.object(key, at: 0) == nil, "\(key)")
            #expect(throws: StoreError.self, "\(key)") { try context.delete(key.entity, id: key.id) }
        }
        #expect(try context.save() == nil)
        #expect(try store.head == 1)
    }

    @Test func emptyTransactionsAndInputsAreRefused() throws {
        let store = try makeStore()
        #expect(throws: StoreError.emptyInput) { try store.append([]) }
        #expect(throws: StoreError.emptyTransaction(transaction: 0)) { try store.append([], author: "t") }
    }

    @Test func createRefusesAnExistingPathAndOpenRefusesNonStores() throws {
        let store = try makeStore()
        #expect(throws: StoreError.alreadyExists(path: store.path)) {
            _ = try LogStore.create(at: store.path, schema: try employeesSchema())
        }
        let empty = newStorePath()
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(throws: StoreError.self) { _ = try LogStore.open(at: empty) }
        #expect(throws: StoreError.self) { _ = try LogStore.open(at: empty + "/missing") }
    }

    @Test func aTinyMapGrowsThrough100000Changes() throws {
        let store = try makeStore(options: StoreOptions(durable: false, mapSizeBytes: 256 * 1024))
        for batch in 0..<10 {
            let changes = (0..<10_000).map { i in
                ChangeRequest.insert(entity: "Employee", id: .string("e\(batch)-\(i)"), values: ["name": .string("N\(i)"), "height": .int(Int64(i))])
            }
            try store.append(changes, author: "bulk")
        }
        #expect(try store.head == 10)
        #expect(try store.statistics().objects == 100_000)
        #expect(store.environment.mapGrowCount > 0)
        #expect(try store.verify().isOK)
    }

    /// A write that fills the map runs again once the map has grown. A bulk load reads its batches inside that
    /// write, so the run again must start from its first batch, not from where the filled one stopped: with a
    /// rewind, by reading them again; without, from the batches it kept.
    @Test(arguments: [false, true])
    func aBulkLoadThatGrowsTheMapKeepsEveryBatch(rewinds: Bool) throws {
        let store = try makeStore(options: StoreOptions(durable: false, mapSizeBytes: 256 * 1024))
        var batches = 0, rewound = 0
        func next() -> [TransactionRequest]? {
            guard batches < 40 else { return nil }
            defer { batches += 1 }
            return (0..<100).map { i in
                TransactionRequest(author: "bulk", changes: [.insert(entity: "Employee", id: .string("e\(batches)-\(i)"),
                                                                     values: ["name": .string("N\(i)"), "height": .int(Int64(i))])])
            }
        }
        let seqs = rewinds ? try store.append(batches: next, rewind: { batches = 0; rewound += 1 })
                           : try store.append(batches: next)
        #expect(store.environment.mapGrowCount > 0)
        #expect(rewinds ? rewound == store.environment.mapGrowCount : batches == 40)
        #expect(seqs == Array(1...4_000))
        #expect(try store.head == 4_000)
        #expect(try store.statistics().objects == 4_000)
        #expect(try store.objects(of: "Employee").map(\.id) == (0..<40).flatMap { b in (0..<100).map { ObjectID.string("e\(b)-\($0)") } }.sorted())
        #expect(try store.verify().isOK)
    }

    @Test func verifyNamesTheSeqOfAnAlteredEntry() throws {
        let store = try makeStore()
        for i in 0..<5 {
            try store.append([.insert(entity: "Employee", id: .string("e\(i)"), values: ["name": .string("N\(i)")])], author: "t")
        }
        let key = bigEndianBytes(3)
        try store.environment.write { txn in
            var bytes = try txn.value(store.logDB, for: key)!
            bytes[bytes.count - 2] ^= 0x20
            try txn.put(store.logDB, key: key, value: bytes)
        }
        let report = try store.verify()
        #expect(!report.isOK)
        #expect(report.problems.contains { $0.contains("seq 3") }, "\(report.problems)")
        #expect(throws: StoreError.self) { _ = try store.transactions() }
    }

    @Test func verifyFindsObjectsThatDisagreeWithTheLog() throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "t")
        try store.environment.write { txn in
            try txn.put(store.objectsDB, key: ObjectRecordCodec.key(employee("e1")),
                        value: ObjectRecordCodec.encode(values: ["name": .string("Eve")], seq: 1))
        }
        let report = try store.verify()
        #expect(report.problems.contains { $0.contains("Employee/e1") }, "\(report.problems)")
    }

    @Test func historicStatesMatchWhicheverWayTheyAreComputed() throws {
        let store = try makeStore()
        var expected: [[ObjectID: ObjectValues]] = [[:]]
        var state: [ObjectID: ObjectValues] = [:]
        for i in 0..<40 {
            let id = ObjectID.string("e\(i % 7)")
            let request: ChangeRequest
            if state[id] == nil {
                request = .insert(entity: "Employee", id: id, values: ["name": .string("N\(i)"), "height": .int(Int64(i))])
            } else if i % 5 == 0 {
                request = .delete(entity: "Employee", id: id)
            } else {
                request = .update(entity: "Employee", id: id, values: ["height": .int(Int64(100 + i))])
            }
            let t = try store.append([request], author: "t")
            state[id] = ObjectValues.applying(t.changes[0], to: state[id])
            expected.append(state)
        }
        for p in 0...40 {
            let objects = try store.objects(of: "Employee", at: UInt64(p))
            #expect(Dictionary(uniqueKeysWithValues: objects.map { ($0.id, $0.values) }) == expected[p], "position \(p)")
            #expect(objects.map(\.id) == objects.map(\.id).sorted())
            for k in 0..<7 {
                let id = ObjectID.string("e\(k)")
                #expect(try store.object(ObjectKey(entity: "Employee", id: id), at: UInt64(p)) == expected[p][id])
            }
        }
        // Deltas in both directions give the states at both ends.
        for (a, b) in [(0, 40), (40, 0), (10, 25), (25, 10), (39, 40), (7, 7)] {
            let delta = try store.delta(from: UInt64(a), to: UInt64(b))
            for d in delta.objects {
                #expect(d.before == expected[a][d.key.id], "\(a)->\(b) \(d.key)")
                #expect(d.after == expected[b][d.key.id], "\(a)->\(b) \(d.key)")
            }
            let touched = Set(expected[a].keys).union(expected[b].keys).filter { expected[a][$0] != expected[b][$0] }
            #expect(touched.isSubset(of: Set(delta.objects.map(\.key.id))))
        }
        #expect(throws: StoreError.positionPastHead(position: 41, head: 40)) { _ = try store.objects(of: "Employee", at: 41) }
    }

    /// The store caches the parsed schema (appends read it every time); a schema change must never be hidden by
    /// the cache, in either direction of time.
    @Test func schemaCacheFollowsSchemaChanges() throws {
        let store = try makeStore()
        try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("Ann")])], author: "test")
        let refused = #expect(throws: StoreError.self) {
            try store.append([.update(entity: "Employee", id: .string("e1"), values: ["nick": .string("A")])], author: "test")
        }
        #expect(refused != nil)
        let newText = employeesSchemaText.replacingOccurrences(
            of: #""name": {"type": "string"},"#, with: #""name": {"type": "string"}, "nick": {"type": "string", "default": "-"},"#)
        let newSchema = try Schema(jsonText: newText)
        #expect(try store.updateSchema(newSchema, author: "test") != nil)
        // The new attribute is accepted at once, and the old position still has the old schema.
        try store.append([.update(entity: "Employee", id: .string("e1"), values: ["nick": .string("A")])], author: "test")
        #expect(try store.schema.entity(named: "Employee").attribute(named: "nick") != nil)
        #expect(try store.schema(at: 1).entity(named: "Employee").attribute(named: "nick") == nil)
        #expect(try store.schema(at: 2).entity(named: "Employee").attribute(named: "nick") != nil)
        #expect(try store.schema.entity(named: "Employee").attribute(named: "nick") != nil)
        #expect(try store.verify().isOK)
    }
}

@Suite("LogStore: values")
struct LogStoreValueTests {
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDoublesAreRefused(value: Double) throws {
        let store = try makeStore()
        #expect(throws: StoreError.self) {
            try store.append([.insert(entity: "Employee", id: .string("e1"), values: ["name": .string("A"), "salary": .double(value)])], author: "t")
        }
        #expect(try store.head == 0)
    }

    @Test func theValueOrderIsTotalEvenForNaN() {
        let values: [Value] = [.double(.nan), .double(1), .int(2), .double(-.infinity), .null, .double(.nan)]
        for a in values {
            #expect(Value.compare(a, a) == 0)
            for b in values {
                #expect(Value.compare(a, b) == -Value.compare(b, a), "\(a) vs \(b)")
            }
        }
    }
}
