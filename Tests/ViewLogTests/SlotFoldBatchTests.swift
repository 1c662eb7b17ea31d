import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A fold by slot applies the log in batches of ``LogStore/slotFoldBatchChanges`` changes (prefetching each
/// batch's rows first). Over logs many batches long — inserts, updates and deletes of few objects, so that one
/// batch touches an object many times, and transactions of many changes, so that an undo reverses within entries
/// across batch ends — every state and delta by slot must equal the same read by name (``EntityState``, which
/// applies change by change and shares none of that code), both ways of time travel, and a plain model.
@Suite("Slot fold batches")
struct SlotFoldBatchTests {
    static let schemaText = """
        {"entities": {
          "Item": {"id": "int", "attributes": {
            "n": {"type": "int", "default": 0}, "label": {"type": "string", "optional": true},
            "ok": {"type": "bool", "default": false}}},
          "Tag": {"id": "string", "attributes": {"w": {"type": "double", "optional": true}}}}}
        """

    @Test(arguments: [0, 1, 2])
    func foldsOfManyBatchesEqualTheFoldByNameAndTheModel(stream: UInt64) throws {
        var g = SeededGenerator(stream: 900 + stream)
        let store = try LogStore.create(at: TestScratch.newPath("slot-batches"), schema: try Schema(jsonText: Self.schemaText),
                                        options: StoreOptions(durable: false))
        // Model: the Item objects at every position.
        var model: [[Int64: ObjectValues]] = [[:]]
        var state: [Int64: ObjectValues] = [:]
        // Few ids (up to 40, ascending at first, then any order), many changes: about 3,000 changes in 400 writes.
        for _ in 0..<400 {
            var requests: [ChangeRequest] = []
            var touched = state
            for _ in 0..<Int.random(in: 1...14, using: &g) {
                let id = Int64.random(in: 1...40, using: &g)
                if Int.random(in: 0..<10, using: &g) == 0 {
                    requests.append(.insert(entity: "Tag", id: .string("t\(Int.random(in: 0..<1_000_000, using: &g))"),
                                            values: ["w": .double(Double.random(in: -1...1, using: &g))]))
                    continue
                }
                if touched[id] == nil {
                    let values: ObjectValues = ["n": .int(Int64.random(in: -99...99, using: &g)),
                                                "label": Bool.random(using: &g) ? .string("L\(id)") : .null]
                    requests.append(.insert(entity: "Item", id: .int(id), values: values))
                    touched[id] = ["n": values["n"]!, "label": values["label"]!, "ok": .bool(false)]
                } else if Int.random(in: 0..<5, using: &g) == 0 {
                    requests.append(.delete(entity: "Item", id: .int(id)))
                    touched[id] = nil
                } else {
                    var values: ObjectValues = ["n": .int(Int64.random(in: -99...99, using: &g))]
                    if Bool.random(using: &g) { values["ok"] = .bool(Bool.random(using: &g)) }
                    if Bool.random(using: &g) { values["label"] = Bool.random(using: &g) ? .string("M\(id)") : .null }
                    requests.append(.update(entity: "Item", id: .int(id), values: values))
                    for (name, value) in values { touched[id]![name] = value }
                }
            }
            _ = try store.append(requests, author: "t")
            state = touched
            model.append(state)
        }
        let head = UInt64(model.count - 1)
        #expect(try store.head == head)
        func byID(_ rows: [(id: ObjectID, values: ObjectValues)]) -> [ObjectID: ObjectValues] {
            Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.values) })
        }
        for _ in 0..<25 {
            let p = UInt64.random(in: 0..<head, using: &g)
            let expected = Dictionary(uniqueKeysWithValues: model[Int(p)].map { (ObjectID.int($0.key), $0.value) })
            for travel in [LogStore.TimeTravel.foldFromStart, .undoFromHead, .automatic] {
                let bySlot = byID(try store.objects(of: "Item", at: p, via: travel, bySlot: true))
                let byName = byID(try store.objects(of: "Item", at: p, via: travel, bySlot: false))
                #expect(bySlot == byName, "Item at \(p), \(travel)")
                #expect(bySlot == expected, "Item at \(p), \(travel), against the model")
            }
            // Deltas both ways between two positions, by slot and by name.
            let q = UInt64.random(in: 0...head, using: &g)
            for travel in [LogStore.TimeTravel.foldFromStart, .undoFromHead] {
                for (from, to) in [(p, q), (q, p)] {
                    let slot = try store.delta(from: from, to: to, entities: ["Item"], via: travel, bySlot: true)
                    let name = try store.delta(from: from, to: to, entities: ["Item"], via: travel, bySlot: false)
                    #expect(slot == name, "delta \(from) → \(to), \(travel)")
                }
            }
        }
    }
}
