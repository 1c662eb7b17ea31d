import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// An append writes an inserted object's row from the bytes its log entry already holds, and every other row from
/// the values: either way the row is byte for byte the record of the object's values and last seq.
@Suite("Append rows")
struct AppendRowTests {
    /// The row of `key` as stored, and the record `ObjectRecordCodec` makes of the values read back.
    static func rowAndRecord(_ store: LogStore, _ key: ObjectKey) throws -> (row: [UInt8]?, record: [UInt8]?) {
        let k = ObjectRecordCodec.key(key)
        let row = try store.perform(read: true) { txn in try txn.value(store.objectsDB, for: k) }
        guard let (values, seq) = try store.perform(read: true, { txn in try store.objectRecord(key, in: txn) }) else {
            return (row, nil)
        }
        return (row, ObjectRecordCodec.encode(values: values, seq: seq, key: k, format: try store.format))
    }

    static func check(_ store: LogStore, _ keys: [ObjectKey], _ comment: Comment) throws {
        for key in keys {
            let (row, record) = try rowAndRecord(store, key)
            #expect(row == record, "\(key): \(comment)")
        }
        #expect(try store.verify().isOK, comment)
    }

    @Test func rowsEqualTheRecordsOfTheirValuesWhateverTheLastChange() throws {
        let scratch = TestScratch.newPath("append-rows")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let store = try LogStore.create(at: scratch, schema: Fixtures.employees)
        let e = { (id: String) in ObjectKey(entity: "Employee", id: .string(id)) }
        let b = ObjectKey(entity: "Badge", id: .int(-3))
        try store.append([
            // Inserted alone (defaults filled, an int for the double `salary`).
            TransactionRequest(author: "t", changes: [
                .insert(entity: "Employee", id: "a", values: ["name": "A", "salary": 3]),
                .insert(entity: "Employee", id: "b", values: ["name": "B", "height": 180]),
                // Inserted then updated in the same transaction: the row is the update's state.
                .insert(entity: "Employee", id: "c", values: ["name": "C"]),
                .update(entity: "Employee", id: "c", values: ["height": 150]),
                // Inserted then deleted: no row.
                .insert(entity: "Employee", id: "d", values: ["name": "D"]),
                .delete(entity: "Employee", id: "d"),
                .insert(entity: "Badge", id: -3, values: [:]),
            ]),
            // Updated in a later transaction of the same write.
            TransactionRequest(author: "t", changes: [.update(entity: "Employee", id: "b", values: ["name": "B2"])]),
            // Deleted and inserted again: the row is the second insert's, with its seq.
            TransactionRequest(author: "t", changes: [.delete(entity: "Badge", id: -3)]),
            TransactionRequest(author: "t", changes: [.insert(entity: "Badge", id: -3, values: ["label": "again"])]),
        ])
        let keys = [e("a"), e("b"), e("c"), e("d"), b]
        try Self.check(store, keys, "first write")
        #expect(try Self.rowAndRecord(store, e("d")).row == nil)
        #expect(try store.object(e("c"))?["height"] == .int(150))
        #expect(try store.object(b)?["label"] == .string("again"))
        let seqOfB = try store.perform(read: true) { txn in try store.objectRecord(b, in: txn)?.seq }
        #expect(seqOfB == 4)
        // Later writes on rows an earlier write made from entry bytes.
        try store.append([.update(entity: "Employee", id: "a", values: ["active": false]), .delete(entity: "Employee", id: "c"),
                          .insert(entity: "Employee", id: "d", values: ["name": "D2", "hired": .date(Timestamp(milliseconds: 86_400_000))])],
                         author: "t")
        try Self.check(store, keys, "second write")
    }

    /// Random writes of inserts, updates and deletes, many changes per transaction and many transactions per write:
    /// every row stays the record of its values (a row copied from the wrong range, or a stale insert's bytes
    /// after a later update, differs).
    @Test func randomWritesKeepEveryRowTheRecordOfItsValues() throws {
        let scratch = TestScratch.newPath("append-rows-random")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let store = try LogStore.create(at: scratch, schema: Fixtures.employees)
        var g = SeededGenerator(stream: 91)
        var exists = Set<Int>()
        for round in 0..<30 {
            var requests: [TransactionRequest] = []
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                var changes: [ChangeRequest] = []
                for _ in 0..<Int.random(in: 1...12, using: &g) {
                    let id = Int.random(in: 0..<20, using: &g)
                    if !exists.contains(id) {
                        changes.append(.insert(entity: "Badge", id: .int(Int64(id)),
                                               values: Bool.random(using: &g) ? ["label": .string("l\(round)")] : [:]))
                        exists.insert(id)
                    } else if Bool.random(using: &g) {
                        changes.append(.update(entity: "Badge", id: .int(Int64(id)), values: ["label": .string("u\(round)-\(id)")]))
                    } else {
                        changes.append(.delete(entity: "Badge", id: .int(Int64(id))))
                        exists.remove(id)
                    }
                }
                requests.append(TransactionRequest(author: "r", changes: changes))
            }
            try store.append(requests)
            try Self.check(store, (0..<20).map { ObjectKey(entity: "Badge", id: .int(Int64($0))) }, "round \(round), \(g.rerunHint)")
        }
    }

    /// A store of log format 1 gets unchecked rows (version 1, no checksum) from the entry's bytes as well.
    @Test func aFormat1StoreGetsFormat1Rows() throws {
        try V1StoreTests.withCopy { path in
            let store = try LogStore.open(at: path)
            #expect(try store.format == 1)
            let key = ObjectKey(entity: "Badge", id: .int(4242))
            try store.append([.insert(entity: "Badge", id: .int(4242), values: ["label": .string("v1")])], author: "t")
            let (row, record) = try Self.rowAndRecord(store, key)
            #expect(row?.first == ObjectRecordCodec.recordVersion)
            #expect(row == record)
            #expect(try store.verify().isOK)
        }
    }
}
