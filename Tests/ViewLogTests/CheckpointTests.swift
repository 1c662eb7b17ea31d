import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Checkpoints (`Sources/ViewLogStore/Checkpoints`): the directory's codec, the choice of the nearest ones, a build
/// left behind by code that does not keep checkpoints, and damage to their rows or directory. The store model test
/// (`StoreModelTests`) checks time travel through them against a plain model under three policies.
@Suite("Checkpoints")
struct CheckpointTests {
    /// Builds a checkpoint over a few writes (one row per change), a new one every 4 entries.
    static let tight = CheckpointPolicy(minimumEntries: 4, entriesPerRow: 0, rowsCopiedPerChange: 1, rowsCopiedPerWrite: 0)

    /// The objects of `entity` at `p` through the checkpoints and folded from the empty store, as comparable text.
    static func bothWays(_ store: LogStore, _ entity: String, at p: UInt64) throws -> (checkpoints: [String], log: [String]) {
        func text(_ rows: [(id: ObjectID, values: ObjectValues)]) -> [String] {
            rows.map { row in "\(row.id) " + row.values.keys.sorted().map { "\($0)=\(row.values[$0]!)" }.joined(separator: ",") }
        }
        return (text(try store.objects(of: entity, at: p)), text(try store.objects(of: entity, at: p, via: .foldFromStart)))
    }

    static func directory(_ store: LogStore) throws -> CheckpointDirectory {
        try store.perform(read: true) { txn in try store.checkpointDirectory(in: txn) }
    }

    /// A store of `Employee`s under `policy`, with `writes` appends of 1–3 changes each.
    static func makeStore(writes: Int, policy: CheckpointPolicy = tight, using g: inout SeededGenerator) throws -> LogStore {
        let store = try LogStore.create(at: newStorePath(), schema: try employeesSchema(),
                                        options: StoreOptions(durable: false, checkpoints: policy))
        var exists: [String] = []
        for w in 0..<writes {
            var changes: [ChangeRequest] = []
            var touched: Set<String> = []
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                let roll = Int.random(in: 0..<10, using: &g)
                if roll < 4 || exists.count < 3 {
                    let id = "e\(w)-\(changes.count)"
                    changes.append(.insert(entity: "Employee", id: .string(id),
                                           values: ["name": .string(id), "height": .int(Int64.random(in: 150...200, using: &g))]))
                    exists.append(id)
                    touched.insert(id)
                } else if let id = exists.randomElement(using: &g), !touched.contains(id) {
                    touched.insert(id)
                    if roll < 9 {
                        changes.append(.update(entity: "Employee", id: .string(id), values: ["height": .int(Int64(w))]))
                    } else {
                        changes.append(.delete(entity: "Employee", id: .string(id)))
                        exists.removeAll { $0 == id }
                    }
                }
            }
            if !changes.isEmpty { try store.append(changes, author: "t") }
        }
        return store
    }

    @Test func aDirectoryDecodesExactlyWhatItEncodes() throws {
        var g = SeededGenerator(stream: 140)
        for round in 0..<300 {
            var d = CheckpointDirectory()
            var seq: UInt64 = 0
            for _ in 0..<Int.random(in: 0...6, using: &g) {
                seq += UInt64.random(in: 1...100_000, using: &g)
                d.complete.append(seq)
            }
            if Bool.random(using: &g) {
                d.building = seq + UInt64.random(in: 1...1000, using: &g)
                d.cursor = (0..<Int.random(in: 0...40, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                d.maintained = d.building! + UInt64.random(in: 0...50, using: &g)
            }
            let bytes = d.encoded()
            func decode(_ b: [UInt8]) throws(CodecError) -> CheckpointDirectory {
                let r = b.withUnsafeBytes { raw in Result { () throws(CodecError) in try CheckpointDirectory(decoding: raw) } }
                return try r.get()
            }
            #expect(try decode(bytes) == d, "round \(round), \(g.rerunHint)")
            for n in 0..<bytes.count {
                #expect(throws: CodecError.self, "truncated to \(n), \(g.rerunHint)") { try decode(Array(bytes[..<n])) }
            }
            #expect(throws: CodecError.self, "a trailing byte") { try decode(bytes + [0]) }
            // Any changed byte decodes to a directory that holds its rules, or is an error: never a trap.
            for i in 0..<bytes.count {
                var flipped = bytes
                flipped[i] ^= UInt8.random(in: 1...255, using: &g)
                if let other = try? decode(flipped) {
                    #expect(zip(other.complete, other.complete.dropFirst()).allSatisfy { $0 < $1 } && other.complete.allSatisfy { $0 >= 1 })
                    #expect(other.building.map { b in other.complete.allSatisfy { $0 < b } } ?? other.cursor.isEmpty)
                }
            }
        }
        // The rules, one by one.
        var unsorted = CheckpointDirectory()
        unsorted.complete = [5, 5]
        #expect(throws: CodecError.self) { try unsorted.encoded().withUnsafeBytes { try CheckpointDirectory(decoding: $0) } }
        var above = CheckpointDirectory()
        above.complete = [9]
        above.building = 9
        #expect(throws: CodecError.self) { try above.encoded().withUnsafeBytes { try CheckpointDirectory(decoding: $0) } }
        var stray = CheckpointDirectory()
        stray.cursor = [1]
        #expect(throws: CodecError.self) { try stray.encoded().withUnsafeBytes { try CheckpointDirectory(decoding: $0) } }
    }

    @Test func basesAreTheNearestCompleteCheckpointsEachWay() {
        var d = CheckpointDirectory()
        #expect(d.bases(around: 7) == (nil, nil))
        d.complete = [10, 20, 30]
        d.building = 40
        #expect(d.bases(around: 5) == (nil, 10))
        #expect(d.bases(around: 10) == (10, 10))
        #expect(d.bases(around: 15) == (10, 20))
        #expect(d.bases(around: 30) == (30, 30))
        #expect(d.bases(around: 45) == (30, nil), "the one being built is no base")
        // The interval: at least the minimum, else rows × entries per row, without overflow.
        #expect(CheckpointPolicy.standard.interval(rows: 10) == 65_536)
        #expect(CheckpointPolicy.standard.interval(rows: 100_000) == 200_000)
        #expect(CheckpointPolicy.standard.interval(rows: .max) == UInt64(Int64.max))
        #expect(CheckpointPolicy.standard.rowsCopied(changes: 3) == 14)
        #expect(CheckpointPolicy.standard.rowsCopied(changes: .max) == .max)
        #expect(!CheckpointPolicy.never.startsCheckpoints && CheckpointPolicy.standard.startsCheckpoints)
    }

    /// A write by code that keeps no checkpoints (an older ViewLog) leaves the build behind: its rows would lack the
    /// before-images of that write. The next write drops the build and its rows; the checkpoints after it are right.
    @Test func aBuildLeftBehindIsDroppedAndStartedAgain() throws {
        var g = SeededGenerator(stream: 141)
        let store = try Self.makeStore(writes: 30, using: &g)
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        // Run on until a build is under way with some rows copied.
        try store.append([.insert(entity: "Employee", id: .string("x0"), values: ["name": .string("x")])], author: "t")
        var directory = try Self.directory(store)
        for w in 0..<200 where directory.building == nil || directory.cursor.isEmpty {
            try store.append([.insert(entity: "Employee", id: .string("x\(w + 1)"), values: ["name": .string("x")])], author: "t")
            directory = try Self.directory(store)
        }
        let dropped = try #require(directory.building)
        // What an older code's write looks like to the next one: a head the directory did not see.
        try store.perform { txn in
            var stale = directory
            stale.maintained -= 1
            try store.putCheckpointDirectory(stale, in: txn)
        }
        try store.append([.update(entity: "Employee", id: .string("x0"), values: ["height": .int(1)])], author: "t")
        let after = try Self.directory(store)
        #expect(after.building != dropped && !after.complete.contains(dropped))
        let rows = try store.perform(read: true) { txn in
            try txn.scan(store.checkpointsDB!, prefix: bigEndianBytes(dropped)) { _ in .next }
        }
        #expect(rows == 0, "the dropped build's rows are gone")
        for w in 0..<40 {
            try store.append([.update(entity: "Employee", id: .string("x0"), values: ["height": .int(Int64(w))])], author: "t")
        }
        let report = try store.verify()
        #expect(report.isOK, "\(report.problems)")
        #expect(try Self.directory(store).complete.count > directory.complete.count)
        let head = try store.head
        for p in 0...head {
            let both = try Self.bothWays(store, "Employee", at: p)
            #expect(both.checkpoints == both.log, "at \(p)")
        }
    }

    /// A changed byte in a checkpoint's row or in the directory is an error of every read that uses it and a problem
    /// `verify` names — never other data.
    @Test func damageToACheckpointIsAnErrorAndAProblem() throws {
        var g = SeededGenerator(stream: 142)
        let store = try Self.makeStore(writes: 40, using: &g)
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let directory = try Self.directory(store)
        let checkpoint = try #require(directory.complete.first)
        #expect(try store.verify().checkpoints == directory.complete.count + (directory.building == nil ? 0 : 1))
        // Damage the checkpoint's first row: one byte of its values.
        let (key, value) = try #require(try store.perform(read: true) { txn -> ([UInt8], [UInt8])? in
            var found: ([UInt8], [UInt8])?
            try txn.scan(store.checkpointsDB!, prefix: bigEndianBytes(checkpoint)) { e in
                found = (Array(e.key), Array(e.value))
                return .stop
            }
            return found
        })
        var damaged = value
        damaged[10] ^= 0x20
        try store.perform { txn in try txn.put(store.checkpointsDB!, key: key, value: damaged) }
        #expect(throws: StoreError.self, "a read from the checkpoint") {
            _ = try store.objects(of: "Employee", at: checkpoint)
        }
        #expect(try store.objects(of: "Employee", at: checkpoint, via: .foldFromStart).count > 0, "the log still serves")
        let report = try store.verify()
        // The row that fails its checksum, and so the object the checkpoint lacks.
        #expect(report.problems.count == 2 && report.problems[0].hasPrefix("the checkpoint at seq \(checkpoint): object record")
                    && report.problems[1].hasSuffix("missing from the checkpoint"), "\(report.problems)")
        #expect(try store.verify(bySlot: false).problems == report.problems)
        try store.perform { txn in try txn.put(store.checkpointsDB!, key: key, value: value) }
        #expect(try store.verify().isOK)

        // A row under a seq the directory does not list.
        try store.perform { txn in try txn.put(store.checkpointsDB!, key: bigEndianBytes(checkpoint + 1) + key.dropFirst(8), value: value) }
        #expect(try store.verify().problems == ["the checkpoints database holds rows of seq \(checkpoint + 1), which its directory does not list"])
        try store.perform { txn in _ = try txn.delete(store.checkpointsDB!, key: bigEndianBytes(checkpoint + 1) + key.dropFirst(8)) }

        // The directory: a changed byte fails its checksum.
        let stored = try #require(try store.perform(read: true) { txn in try txn.value(store.checkpointsDB!, for: CheckpointDirectory.key) })
        var flipped = stored
        flipped[3] ^= 1
        try store.perform { txn in try txn.put(store.checkpointsDB!, key: CheckpointDirectory.key, value: flipped) }
        #expect(throws: StoreError.self) { _ = try store.objects(of: "Employee", at: checkpoint) }
        #expect(throws: StoreError.self, "an append does not build on a damaged directory") {
            try store.append([.insert(entity: "Employee", id: .string("late"), values: ["name": .string("l")])], author: "t")
        }
        let problems = try store.verify().problems
        #expect(problems.first?.contains("the directory in the checkpoints database fails its checksum") == true
                && problems.first?.contains("--drop") == true, "\(problems)")

        // Dropping the checkpoints repairs the store, losing nothing; appends build new ones.
        let rows = try store.dropCheckpoints()
        #expect(rows > 0)
        #expect(try Self.directory(store) == CheckpointDirectory())
        #expect(try store.verify().isOK)
        for i in 0..<40 {
            try store.append([.insert(entity: "Employee", id: .string("after\(i)"), values: ["name": .string("a")])], author: "t")
        }
        #expect(try Self.directory(store).complete.count >= 1)
        #expect(try store.verify().isOK)
        #expect(try store.dropCheckpoints() > 0 && store.dropCheckpoints() == 0, "a second drop finds nothing")
    }

    /// A checkpoint holds every entity's rows, so a view of either reads from it, and an entity with no rows at the
    /// checkpoint's seq (made later) folds from it too.
    @Test func timeTravelReadsACheckpointForEveryEntity() throws {
        let schema = try Schema(jsonText: """
            {"entities": {"A": {"id": "int", "attributes": {"n": {"type": "int"}}},
                          "B": {"id": "string", "attributes": {"s": {"type": "string", "optional": true}}}}}
            """)
        let policy = CheckpointPolicy(minimumEntries: 4, entriesPerRow: 0, rowsCopiedPerChange: 2, rowsCopiedPerWrite: 4)
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false, checkpoints: policy))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        for i in 0..<60 {
            var changes: [ChangeRequest] = [.insert(entity: "A", id: .int(Int64(i)), values: ["n": .int(Int64(i))])]
            if i >= 30 { changes.append(.insert(entity: "B", id: .string("b\(i)"), values: [:])) }
            if i >= 2 { changes.append(.update(entity: "A", id: .int(Int64(i / 2)), values: ["n": .int(-1)])) }
            try store.append(changes, author: "t")
        }
        let directory = try Self.directory(store)
        #expect(directory.complete.count >= 5)
        let statistics = try store.statistics()
        #expect(statistics.checkpoints == directory.complete && statistics.checkpointBuilding == directory.building)
        #expect(statistics.checkpointBytes > 0)
        for p in 0...(try store.head) {
            for entity in ["A", "B"] {
                let both = try Self.bothWays(store, entity, at: p)
                #expect(both.checkpoints == both.log, "\(entity) at \(p)")
            }
        }
        #expect(try store.verify().isOK)
    }

    /// A results controller's fill at an older position (`forEachObject(of:at:…)`): every object that exists there,
    /// in id order, `visit` given the attributes it reads and `member` the whole values of those it accepts —
    /// whether it folds from the empty store, overlays the entries on a checkpoint, or undoes them from the head.
    @Test func aFillAtAnyPositionSeesWhatTheLogSays() throws {
        var g = SeededGenerator(stream: 143)
        let store = try Self.makeStore(writes: 120, using: &g)
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        #expect(try Self.directory(store).complete.count >= 5)
        let entity = try #require(try store.schema.entities["Employee"])
        let read = entity.attributes.filter { $0.name == "height" || $0.name == "name" }
        let head = try store.head
        for p in 0..<head {
            let expected = try store.objects(of: "Employee", at: p, via: .foldFromStart)
            var visited: [ObjectID] = [], members: [(ObjectID, [Value])] = []
            let complete = try store.perform(read: true) { txn in
                try store.forEachObject(of: entity, at: p, reading: read, in: txn, visit: { id, fetched in
                    visited.append(id)
                    let values = expected.first { $0.id == id }?.values
                    #expect(Array(fetched.slots) == read.map { values?[$0.name] ?? .null }, "\(id) at \(p)")
                    return id.description.utf8.reduce(0) { $0 + Int($1) } % 3 != 0
                }, member: { id, values in members.append((id, values)) })
            }
            #expect(complete)
            #expect(visited == expected.map(\.id), "every object once, in id order, at \(p)")
            let accepted = expected.filter { $0.id.description.utf8.reduce(0) { $0 + Int($1) } % 3 != 0 }
            #expect(members.map(\.0) == accepted.map(\.id), "at \(p)")
            for ((id, values), object) in zip(members, accepted) {
                #expect(values == entity.attributes.map { object.values[$0.name] ?? .null }, "\(id) at \(p)")
            }
        }
    }
}
