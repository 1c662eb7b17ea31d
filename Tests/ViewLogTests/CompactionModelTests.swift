import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Compaction against a plain model (DESIGN §13): random appends, a schema change, compactions in small chunks and
/// moves of contexts, checked after every step — at every position at or above the horizon the store answers as the
/// model (objects by every way of time travel, one object, deltas, the log, a context's controller), below it
/// every read is refused with `log.compacted` naming the horizon, and a context following the head goes on across
/// each compaction. Seeded; rerun a failure with `VIEWLOG_SEED`.
@Suite("Compaction model")
struct CompactionModelTests {

    /// The members of the controller's view (`Item where flag == YES`, sorted by `n`) in `state`.
    static func members(_ state: [ObjectKey: ObjectValues]) -> [ObjectID] {
        state.filter { $0.key.entity == "Item" && $0.value["flag"] == .bool(true) }
            .sorted { a, b in
                let x = a.value["n"]!, y = b.value["n"]!
                return x != y ? Value.compare(x, y) < 0 : a.key.id < b.key.id
            }
            .map(\.key.id)
    }

    /// Expects `body` to throw `log.compacted` naming `horizon`.
    static func expectCompacted(_ what: String, horizon: UInt64, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(what): answered below the horizon \(horizon)")
        } catch let error as StoreError {
            #expect(error.code == .compacted, "\(what): \(error)")
            #expect(error.description.contains("horizon (\(horizon))"), "\(what): \(error)")
        } catch {
            Issue.record("\(what): \(error)")
        }
    }

    @Test(arguments: StoreModelTests.checkpointPolicies)
    func aCompactedStoreAnswersAsItsModelFromTheHorizonAndRefusesBelowIt(checkpoints: CheckpointPolicy) throws {
        var g = SeededGenerator(stream: 141)
        let hint = g.rerunHint
        let schema = try Schema(jsonText: StoreModelTests.schemaText)
        let schema2 = try Schema(jsonText: StoreModelTests.schemaText2)
        let store = try LogStore.create(at: newStorePath(), schema: schema,
                                        options: StoreOptions(durable: false, checkpoints: checkpoints))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        var model = StoreModelTests.Model(schema: schema)
        // Every transaction as the store gave it back right after it was appended.
        var log: [Transaction] = []
        var horizon: UInt64 = 0
        let request = FetchRequest(entity: "Item", predicate: try ViewPredicate("flag == YES"),
                                   sortDescriptors: try ViewSortDescriptor.parse("n"))
        let traveler = try Context(store: store, name: "traveler")
        let travelerView = try traveler.makeResultsController(request)
        // Follows the head across every compaction, as a watcher does.
        let follower = try Context(store: store, name: "follower")
        let followerView = try follower.makeResultsController(request)
        let keys = StoreModelTests.itemIDs.map { ObjectKey(entity: "Item", id: $0) }
            + StoreModelTests.noteIDs.map { ObjectKey(entity: "Note", id: $0) }
        var compactions = 0, refusals = 0

        for step in 0..<180 {
            let roll = Int.random(in: 0..<10, using: &g)
            if step == 70 {
                try #require(try store.updateSchema(schema2, author: "admin") != nil, "\(hint)")
                model.append([], newSchema: schema2)
                log += try store.transactions(after: model.head - 1)
            } else if roll < 5 {
                guard let t = try StoreModelTests.appendRandom(to: store, &model, using: &g) else { continue }
                #expect(t.seq == model.head, "step \(step), \(hint)")
                log += try store.transactions(after: model.head - 1)
            } else if roll < 6 {
                // A compaction, in chunks of a few rows: to a seq, or keeping the last few transactions.
                let target: CompactionTarget = Bool.random(using: &g)
                    ? .before(UInt64.random(in: 0...model.head, using: &g))
                    : .keepLast(UInt64.random(in: 0...min(model.head, 12), using: &g))
                let seq: UInt64
                switch target {
                case .before(let s): seq = s
                case .keepLast(let n): seq = model.head - n
                case .keepFor: preconditionFailure("not drawn")
                }
                let result = try store.compact(target, now: .now, chunkRows: Int.random(in: 1...5, using: &g))
                #expect(result.previousHorizon == horizon, "step \(step), \(hint)")
                #expect(result.horizon == max(horizon, seq), "step \(step): \(target), \(hint)")
                #expect(result.moved == (seq > horizon), "step \(step), \(hint)")
                horizon = result.horizon
                compactions += result.moved ? 1 : 0
            } else {
                // The traveler moves anywhere: refused below the horizon, and from a position the horizon passed.
                let target = UInt64.random(in: 0...model.head, using: &g)
                let before = traveler.position
                if target < horizon || (before < horizon && target != before) {
                    Self.expectCompacted("step \(step): move from \(before) to \(target)", horizon: horizon) {
                        try traveler.move(to: target)
                    }
                    #expect(traveler.position == before, "step \(step), \(hint)")
                    refusals += 1
                    if target >= horizon { try traveler.reset(to: target) }
                } else {
                    try traveler.move(to: target)
                }
                if traveler.position >= horizon {
                    let state = model.states[Int(traveler.position)]
                    #expect(travelerView.fetchedObjects == Self.members(state), "step \(step): at \(traveler.position), \(hint)")
                    for entity in ["Item", "Note"] {
                        let got = try traveler.objects(of: entity)
                        #expect(Dictionary(uniqueKeysWithValues: got.map { ($0.id, $0.values) }) == StoreModelTests.objects(state, entity),
                                "step \(step): context at \(traveler.position), \(entity), \(hint)")
                    }
                }
            }
            try follower.refresh()
            #expect(followerView.fetchedObjects == Self.members(model.states.last!), "step \(step): the follower, \(hint)")

            // After every step: the horizon, the log from it, and the answers at two random positions.
            #expect(try store.horizon == horizon, "step \(step), \(hint)")
            #expect(try store.transactions() == Array(log[Int(horizon)...]), "step \(step): the log from the horizon, \(hint)")
            let p = UInt64.random(in: 0...model.head, using: &g), q = UInt64.random(in: 0...model.head, using: &g)
            let key = keys.randomElement(using: &g)!
            if p < horizon {
                let what = "step \(step): at \(p) below \(horizon), \(hint)"
                Self.expectCompacted("objects, " + what, horizon: horizon) { _ = try store.objects(of: "Item", at: p) }
                Self.expectCompacted("object, " + what, horizon: horizon) { _ = try store.object(key, at: p) }
                Self.expectCompacted("delta from, " + what, horizon: horizon) { _ = try store.delta(from: p, to: model.head) }
                Self.expectCompacted("delta to, " + what, horizon: horizon) { _ = try store.delta(from: model.head, to: p, entities: ["Item"]) }
                Self.expectCompacted("log, " + what, horizon: horizon) { _ = try store.transactions(after: p) }
                Self.expectCompacted("schema, " + what, horizon: horizon) { _ = try store.schema(at: p) }
                Self.expectCompacted("context, " + what, horizon: horizon) { _ = try Context(store: store, name: "x", at: p) }
                refusals += 1
                continue
            }
            let r = max(q, horizon)
            #expect(try store.transactions(after: p, through: max(p, r)) == Array(log[Int(p)..<Int(max(p, r))]), "step \(step), \(hint)")
            for travel in [LogStore.TimeTravel.automatic, .foldFromStart, .undoFromHead] {
                let how = "step \(step): \(travel), \(hint)"
                for entity in ["Item", "Note"] {
                    for bySlot in [true, false] {
                        let got = try store.objects(of: entity, at: p, via: travel, bySlot: bySlot)
                        #expect(Dictionary(uniqueKeysWithValues: got.map { ($0.id, $0.values) })
                                    == StoreModelTests.objects(model.states[Int(p)], entity),
                                "objects of \(entity) at \(p), by slot \(bySlot), \(how)")
                    }
                }
                #expect(try store.object(key, at: p, via: travel) == model.states[Int(p)][key], "\(key) at \(p), \(how)")
                let expected = model.delta(from: p, to: r)
                for bySlot in [true, false] {
                    for entities: Set<String>? in [nil, ["Item"], ["Item", "Note"]] {
                        let delta = try store.delta(from: p, to: r, entities: entities, via: travel, bySlot: bySlot)
                        #expect(Dictionary(uniqueKeysWithValues: delta.objects.map { ($0.key, $0) })
                                    == expected.filter { entities?.contains($0.key.entity) ?? true },
                                "delta of \(entities.map { "\($0)" } ?? "all") \(p) → \(r), by slot \(bySlot), \(how)")
                        let back = try store.delta(from: r, to: p, entities: entities, via: travel, bySlot: bySlot)
                        #expect(Dictionary(uniqueKeysWithValues: back.objects.map { ($0.key, $0) })
                                    == model.delta(from: r, to: p).filter { entities?.contains($0.key.entity) ?? true },
                                "delta of \(entities.map { "\($0)" } ?? "all") \(r) → \(p), by slot \(bySlot), \(how)")
                    }
                }
            }
            if step % 15 == 0 {
                let report = try store.verify()
                #expect(report.isOK, "step \(step): \(report.problems), \(hint)")
            }
        }
        #expect(compactions >= 4 && refusals >= 10 && model.head > 60,
                "the run compacted (\(compactions)) and refused (\(refusals)): \(hint)")
        let report = try store.verify()
        #expect(report.isOK, "\(report.problems), \(hint)")
        #expect(try store.verify(bySlot: false) == report, "\(hint)")
    }
}
