import Testing
import TestSupport
@testable import ViewLog

/// `ObjectIDIndex` (the row index of a fold by slot) against a dictionary: every id found at its row, every
/// other id absent, across growth, with int and string ids (code-point equality: `"é"` and `"e\u{301}"` are two).
@Suite struct ObjectIDIndexTests {
    @Test func findsWhatADictionaryFinds() {
        var g = SeededGenerator(stream: 60)
        for round in 0..<40 {
            var index = ObjectIDIndex(capacity: round % 3 == 0 ? 0 : Int.random(in: 0...500, using: &g))
            var ids: [ObjectID] = [], model: [ObjectID: Int] = [:]
            let strings = round % 2 == 0
            for _ in 0..<Int.random(in: 0...3000, using: &g) {
                let id: ObjectID = strings
                    ? .string(["é", "e\u{301}", "a", ""].randomElement(using: &g)! + String(Int.random(in: 0..<2000, using: &g)))
                    : .int(Int64.random(in: -1500...1500, using: &g) &* (Bool.random(using: &g) ? 1 : 1 << 40))
                if let r = model[id] {
                    #expect(index.row(of: id, in: ids) == r, "round \(round): \(id)")
                } else {
                    #expect(index.row(of: id, in: ids) == nil, "round \(round): \(id) absent")
                    model[id] = ids.count
                    ids.append(id)
                    index.insert(id, row: ids.count - 1)
                }
            }
            #expect(index.count == model.count)
            for (id, r) in model { #expect(index.row(of: id, in: ids) == r, "round \(round): \(id)") }
        }
    }
}
