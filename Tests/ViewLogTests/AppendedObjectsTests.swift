import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `AppendedObjects` (the objects one append touches) against a dictionary: each key gets one slot, found again
/// on every later touch, whether the keys came ascending (no table) or in any order (the table made on the first
/// key out of order); `keyOrder()` is the keys' byte order.
@Suite struct AppendedObjectsTests {
    @Test func findsWhatADictionaryFinds() {
        var g = SeededGenerator(stream: 61)
        for round in 0..<60 {
            let touches = Int.random(in: 0...2000, using: &g)
            // The first part ascends (a bulk load), maybe with repeats of the last key; the rest is random.
            let ascendingPart = round % 4 == 0 ? touches : Int.random(in: 0...touches, using: &g)
            let entities = ["Item", "Employee", "Ém"]
            var keys: [ObjectKey] = []
            var next: Int64 = -50
            for t in 0..<touches {
                if t < ascendingPart {
                    if keys.isEmpty || Int.random(in: 0..<5, using: &g) != 0 { next += Int64.random(in: 1...3, using: &g) }
                    keys.append(ObjectKey(entity: "Item", id: .int(next)))
                } else if Bool.random(using: &g) {
                    keys.append(ObjectKey(entity: entities.randomElement(using: &g)!,
                                          id: .int(Int64.random(in: -60...Int64(touches), using: &g))))
                } else {
                    keys.append(ObjectKey(entity: entities.randomElement(using: &g)!,
                                          id: .string(["é", "e\u{301}", "a", ""].randomElement(using: &g)! + String(Int.random(in: 0..<300, using: &g)))))
                }
            }
            var objects = AppendedObjects(capacity: touches)
            var model: [ObjectKey: Int] = [:]
            for key in keys {
                let (slot, isNew) = objects.slot(of: key)
                if let known = model[key] {
                    #expect(!isNew && slot == known, "round \(round): \(key) found again")
                } else {
                    #expect(isNew && slot == model.count, "round \(round): \(key) new")
                    model[key] = slot
                }
                objects.withKey(of: slot) { #expect(Array($0) == ObjectRecordCodec.key(key)) }
            }
            #expect(objects.count == model.count)
            let order = objects.keyOrder()
            #expect(order.count == model.count && Set(order).count == order.count)
            let orderedKeys = order.map { slot in objects.withKey(of: slot) { Array($0) } }
            #expect(zip(orderedKeys, orderedKeys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) },
                    "round \(round): key order")
        }
    }
}
