import Testing
@testable @_spi(Testing) @_spi(Engine) import ViewLog
@testable @_spi(Testing) @_spi(Engine) import ViewLogModel
@testable @_spi(Testing) @_spi(Engine) import ViewLogQuery
@testable @_spi(Testing) @_spi(Engine) import ViewLogStore
@testable @_spi(Testing) @_spi(Engine) import ViewLogViews
import TestSupport

@Suite struct OrderedRowsTests {
    static let seed = ViewTestRNG.seed(default: 1234)

    static func order(sectioned: Bool, ascending: [Bool]) -> RowOrder {
        RowOrder(ascending: ascending, isSectioned: sectioned, keyPaths: ascending.indices.map { "k\($0)" })
    }

    @Test(arguments: [4, 5, 16, 64])
    func randomOperationsAgainstASortedArray(capacity: Int) {
        var rng = ViewTestRNG(seed: Self.seed &+ UInt64(capacity))
        let order = Self.order(sectioned: true, ascending: [false, true])
        let rows = OrderedRows(order: order, capacity: capacity)
        var reference: [(values: [Value], id: ObjectID)] = []
        for step in 0..<3000 {
            if reference.isEmpty || rng.chance(0.55) {
                let id = ObjectID.int(Int64(rng.int(0...400)))
                guard !reference.contains(where: { $0.id == id }) else { continue }
                let values: [Value] = [.string(rng.pick(["a", "b", "c"])), rng.chance(0.2) ? .null : .int(Int64(rng.int(0...9)))]
                rows.insert(order.key(id: id, keyValues: values))
                reference.append((values, id))
            } else {
                let key = reference.remove(at: rng.int(0...(reference.count - 1)))
                #expect(rows.remove(key.id) == order.key(id: key.id, keyValues: key.values))
            }
            reference.sort { Self.compare(order, $0, $1) < 0 }
            if step % 50 == 0 || reference.count < 10 {
                rows.checkInvariants()
                for (i, k) in reference.enumerated() {
                    #expect(rows.key(at: i) == order.key(id: k.id, keyValues: k.values), "seed \(Self.seed)")
                    #expect(order.keyValues(rows.key(at: i)) == k.values, "seed \(Self.seed)")
                    #expect(rows.rank(of: k.id) == i, "seed \(Self.seed)")
                }
                var sectionStart = 0
                var s = 0
                while sectionStart < reference.count {
                    let v = reference[sectionStart].values[0]
                    let end = reference[sectionStart...].firstIndex { $0.values[0] != v } ?? reference.count
                    let loc = rows.sections.section(at: s)
                    #expect(loc.value == v && loc.start == sectionStart && loc.rows == end - sectionStart)
                    #expect(rows.sections.section(containingRank: end - 1).index == s)
                    sectionStart = end
                    s += 1
                }
                #expect(rows.sections.count == s)
            }
        }
    }

    /// View order of reference rows, from ``Value/compare(_:_:)`` and the directions, ties by id.
    static func compare(_ order: RowOrder, _ a: (values: [Value], id: ObjectID), _ b: (values: [Value], id: ObjectID)) -> Int {
        for i in 0..<order.width {
            let c = Value.compare(a.values[i], b.values[i])
            if c != 0 { return order.ascending[i] ? c : -c }
        }
        return a.id < b.id ? -1 : (a.id == b.id ? 0 : 1)
    }

    @Test func bulkLoadMatchesInserts() {
        var rng = ViewTestRNG(seed: Self.seed)
        let order = Self.order(sectioned: false, ascending: [true])
        let rowValues = (0..<5000).map { (values: [Value.int(Int64(rng.int(0...50)))], id: ObjectID.int(Int64($0))) }
        let keys = rowValues.map { order.key(id: $0.id, keyValues: $0.values) }
        let loaded = OrderedRows(order: order, capacity: 8)
        loaded.load(keys.shuffled(using: &rng))
        loaded.checkInvariants()
        let sorted = rowValues.sorted { Self.compare(order, $0, $1) < 0 }.map { order.key(id: $0.id, keyValues: $0.values) }
        for i in stride(from: 0, to: 5000, by: 97) { #expect(loaded.key(at: i) == sorted[i]) }
    }

    /// The ranks that `insert`, `remove(slot:)`, `detach` and `reattach` return from their own descent equal
    /// `lowerBound` before and after, on random trees of every shape (small nodes split and merge often); a
    /// moved row keeps its slot and stays findable by id; keys move between inline and apart (long strings).
    @Test(arguments: [4, 5, 16])
    func ranksFromRemoveAndInsertEqualLowerBound(capacity: Int) {
        var rng = ViewTestRNG(seed: Self.seed &+ 77 &+ UInt64(capacity))
        let order = RowOrder(ascending: [true, false], isSectioned: true, keyPaths: ["s", "k"],
                             types: [.string, .int], idType: .int)
        let rows = OrderedRows(order: order, capacity: capacity)
        var values: [ObjectID: [Value]] = [:]
        func randomValues() -> [Value] {
            let s = rng.pick(["a", "b", String(repeating: "long-section-", count: 1 + rng.int(0...4))])
            return [.string(s), rng.chance(0.1) ? .null : .int(Int64(rng.int(0...30)))]
        }
        func rankByLowerBound(_ key: RowKey) -> (index: Int, matched: Bool) {
            key.bytes.withUnsafeBytes { rows.lowerBound($0) }
        }
        for step in 0..<2500 {
            let id = ObjectID.int(Int64(rng.int(0...300)))
            if let old = values[id] {
                let oldKey = order.key(id: id, keyValues: old)
                let before = rankByLowerBound(oldKey)
                #expect(before.matched)
                guard let slot = rows.slot(of: id) else { Issue.record("stored id not found"); return }
                if rng.chance(0.4) {
                    #expect(rows.remove(slot: slot) == before.index, "seed \(Self.seed) step \(step)")
                    values[id] = nil
                    #expect(rows.slot(of: id) == nil)
                } else {
                    let new = randomValues()
                    let newKey = order.key(id: id, keyValues: new)
                    #expect(rows.detach(slot: slot) == before.index, "seed \(Self.seed) step \(step)")
                    let rank = newKey.bytes.withUnsafeBytes { rows.reattach(slot: slot, $0, idStart: newKey.idStart) }
                    #expect(rank == rankByLowerBound(newKey).index, "seed \(Self.seed) step \(step)")
                    #expect(rows.slot(of: id) == slot && rows.key(of: id) == newKey)
                    values[id] = new
                }
            } else {
                let new = randomValues()
                let key = order.key(id: id, keyValues: new)
                let expected = rankByLowerBound(key)
                #expect(!expected.matched)
                let rank = key.bytes.withUnsafeBytes { rows.insert($0, idStart: key.idStart) }
                #expect(rank == expected.index && rank == rows.rank(of: id), "seed \(Self.seed) step \(step)")
                values[id] = new
            }
            if step % 100 == 0 { rows.checkInvariants() }
        }
        rows.checkInvariants()
        #expect(rows.count == values.count)
    }

    /// A row that moves inside its section leaves the section counts alone (no descent in the sections tree);
    /// a row that changes section moves its count.
    @Test func aMoveInsideASectionDoesNotTouchTheSectionCounts() {
        let order = RowOrder(ascending: [true, true], isSectioned: true, keyPaths: ["s", "k"], types: [.string, .int],
                             idType: .int)
        let rows = OrderedRows(order: order, capacity: 4)
        for i in 0..<40 { rows.insert(order.key(id: .int(Int64(i)), keyValues: [.string(i % 2 == 0 ? "a" : "b"), .int(Int64(i))])) }
        func move(_ id: Int64, _ values: [Value]) {
            let key = order.key(id: .int(id), keyValues: values)
            guard let slot = rows.slot(of: .int(id)) else { Issue.record("row \(id) not found"); return }
            _ = rows.detach(slot: slot)
            key.bytes.withUnsafeBytes { _ = rows.reattach(slot: slot, $0, idStart: key.idStart) }
        }
        rows.sections.counters = TreeCounters()
        move(4, [.string("a"), .int(100)])
        #expect(rows.sections.counters == TreeCounters())
        move(6, [.string("b"), .int(100)])
        #expect(rows.sections.counters.nodeVisits > 0)
        rows.checkInvariants()
        #expect(rows.sections.section(at: 0).rows == 19 && rows.sections.section(at: 1).rows == 21)
    }

    /// A tree element is 16 bytes (a 12-byte key prefix and a slot), so a 64-element leaf is 16 cache lines.
    @Test func aTreeElementIsSixteenBytes() {
        #expect(MemoryLayout<RowSlot>.stride == 16)
    }

    /// One change to a view of n rows touches O(log n) nodes and comparisons (counted, never timed).
    @Test func oneChangeTouchesLogarithmicallyManyNodes() throws {
        let n = 200_000
        let entity = EntityDescription(name: "Row", idType: .int, attributes: [Attribute(name: "v", type: .int)])
        let objects = (0..<n).lazy.map { (ObjectID.int(Int64($0)), ["v": Value.int(Int64($0 % 1000))] as ObjectValues) }
        let log2n = log2(Double(n))
        for (limit, offset) in [(nil, 0), (Optional(100), 50_000)] {
            let request = FetchRequest(entity: "Row", sortDescriptors: [ViewSortDescriptor(key: "v")], limit: limit, offset: offset)
            let c = try ResultsController(fetchRequest: request, entity: entity, objects: objects, nodeCapacity: 64) { _, _ in true }
            var position: UInt64 = 0
            for id in [7, 123_456, 199_999] {
                c.resetTreeWork()
                let key = ObjectKey(entity: "Row", id: .int(Int64(id)))
                let delta = Delta(from: position, to: position + 1, objects: [
                    ObjectDelta(key: key, before: ["v": .int(Int64(id % 1000))], after: ["v": .int(Int64((id * 7 + 500) % 1000))], seq: position + 1),
                ])
                _ = c.apply(delta)
                position += 1
                let work = c.treeWork
                #expect(Double(work.nodeVisits + work.comparisons) < 40 * log2n,
                        "\(work) for n=\(n) limit \(String(describing: limit))")
            }
            c.checkInvariants(deep: limit != nil)
        }
    }
}

private func log2(_ x: Double) -> Double {
    var r = 0.0, v = x
    while v >= 2 { v /= 2; r += 1 }
    return r + (v - 1)
}
