import Testing
import TestSupport
@testable import ViewLog
@testable import ViewLogModel
@testable import ViewLogQuery
@testable import ViewLogStore
@testable import ViewLogViews

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

    /// The ids' hashes are seeded: ids chosen to fall in one slot of a 1,024-slot table under one seed are spread
    /// under another, so a process's random seed (`IDHash.processSeed`) keeps whoever writes the ids from making
    /// every lookup of a view's or a fold's table walk one long chain. Both kinds of id: strings found by search,
    /// and ints that differ only in their high bits (which a seed xored in before a multiply would not separate).
    @Test func idsThatCollideUnderOneSeedSpreadUnderAnother() {
        let mask = 1023
        func slot(_ id: String, _ seed: UInt64) -> Int {
            var id = id
            return id.withUTF8 { IDHash.hash(UnsafeRawBufferPointer($0), seed: seed) } & mask
        }
        var colliding: [String] = []
        var n = 0
        while colliding.count < 64, n < 1_000_000 {  // bounded; about 65,000 tries are expected
            let id = "id\(n)"
            if slot(id, 0) == 0 { colliding.append(id) }
            n += 1
        }
        #expect(colliding.count == 64)
        let highBits = (0..<64).map { Int64($0) << 48 }
        for seed: UInt64 in [1, 2, 0x9E37_79B9_7F4A_7C15, IDHash.processSeed | 1] {
            let strings = Set(colliding.map { slot($0, seed) })
            #expect(strings.count > 40, "seed \(seed): \(strings.count) distinct slots of strings")
            let ints = Set(highBits.map { IDHash.mix(UInt64(bitPattern: $0), seed: seed) & mask })
            #expect(ints.count > 40, "seed \(seed): \(ints.count) distinct slots of ints")
        }
    }

    /// Ascending int ids fill the dense array; the first id that does not fit it (below the first, too far above,
    /// a string) moves everything to the hash table. Either way, every id is found at its row and no other id is.
    @Test func denseIdsAndTheMoveToHashingFindWhatADictionaryFinds() {
        var g = SeededGenerator(stream: 64)
        for round in 0..<60 {
            var index = ObjectIDIndex(capacity: Int.random(in: 0...100, using: &g))
            var ids: [ObjectID] = [], model: [ObjectID: Int] = [:]
            var next = Int64.random(in: -5...5, using: &g) * (round % 5 == 0 ? Int64.max / 8 : 1)
            let ascending = Int.random(in: 0...3000, using: &g)
            func add(_ id: ObjectID) {
                guard model[id] == nil else { return }
                #expect(index.row(of: id, in: ids) == nil, "round \(round): \(id) absent")
                model[id] = ids.count
                ids.append(id)
                index.insert(id, row: ids.count - 1)
            }
            for _ in 0..<ascending {
                add(.int(next))
                next += Int64.random(in: 1...(round % 3 == 0 ? 9 : 2), using: &g)
            }
            // Probes around and inside the range, present or not.
            for _ in 0..<200 {
                let probe = ObjectID.int(next - Int64.random(in: -20...(Int64(ascending) * 3 + 20), using: &g))
                #expect(index.row(of: probe, in: ids) == model[probe], "round \(round): \(probe)")
            }
            switch round % 4 {
            case 0: add(.int(next - Int64(ascending) * 10 - 1_000))  // below the first
            case 1: add(.int(next + 1_000_000))                       // far above
            case 2: add(.string("s\(round)"))
            default: break                                            // stays dense
            }
            for _ in 0..<Int.random(in: 0...500, using: &g) {
                add(Bool.random(using: &g) ? .int(Int64.random(in: -3000...9000, using: &g)) : .string("x\(Int.random(in: 0..<300, using: &g))"))
            }
            #expect(index.count == model.count)
            for (id, r) in model { #expect(index.row(of: id, in: ids) == r, "round \(round): \(id)") }
            #expect(index.row(of: .int(Int64.min), in: ids) == model[.int(Int64.min)])
            #expect(index.row(of: .int(Int64.max), in: ids) == model[.int(Int64.max)])
        }
    }
}
