import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import TestSupport

/// Revert, undo and redo (DESIGN §14) against oracles written from the contract: random transactions by two
/// authors (inserts, changes by id and by predicate, delete rules' cascades and nullifications) interleaved with
/// reverts of random seqs and undos and redos by either author. After each: a revert's changes are exactly the
/// inverses of the reverted transactions' logged changes (newest first, last change first), it is refused exactly
/// when the log shows a later conflicting change (and then appends nothing), reverting the newest transaction gives
/// the objects of the position before it, a revert of that revert gives them back, and undo and redo pick the
/// transaction the contract's definition picks from the log.
@Suite("Revert, undo and redo: the model")
struct RevertModelTests {
    typealias State = ChangesByPredicateModelTests.State

    /// The inverses of `reverted`'s changes, as requests, newest transaction first and within it the last change first.
    static func inverses(_ reverted: [Transaction]) -> [ChangeRequest] {
        var out: [ChangeRequest] = []
        for t in reverted.sorted(by: { $0.seq > $1.seq }) {
            for change in t.changes.reversed() {
                switch change {
                case let .insert(key, _): out.append(.delete(entity: key.entity, id: key.id))
                case let .delete(key, previous): out.append(.insert(entity: key.entity, id: key.id, values: previous))
                case let .update(key, _, previous): out.append(.update(entity: key.entity, id: key.id, values: previous))
                case .schema, .migration: break
                }
            }
        }
        return out
    }

    /// The first conflict the contract names, or `nil`: a transaction after a reverted one, not listed, that changed
    /// an attribute it set back (an update), or the object at all (an insert's or delete's inverse).
    static func conflict(_ listed: [Transaction], log: [Transaction]) -> (key: ObjectKey, seq: UInt64)? {
        let seqs = Set(listed.map(\.seq))
        for t in log where !seqs.contains(t.seq) {
            for change in t.changes {
                guard let key = change.key else { continue }
                for r in listed where t.seq > r.seq {
                    for mine in r.changes where mine.key == key {
                        switch (mine, change) {
                        case let (.update(_, _, previous), .update(_, values, _)):
                            if !Set(previous.keys).isDisjoint(with: values.keys) { return (key, t.seq) }
                        case (.update, _), (.insert, _), (.delete, _):
                            return (key, t.seq)
                        case (.schema, _), (.migration, _): break
                        }
                    }
                }
            }
        }
        return nil
    }

    enum Kind { case ordinary, undo, redo }

    /// The contract's undo (`redo` false) or redo target for `author` in `log`.
    static func target(_ author: String, redo: Bool, log: [Transaction]) -> UInt64? {
        let bySeq = Dictionary(uniqueKeysWithValues: log.map { ($0.seq, $0) })
        func kind(_ seq: UInt64) -> Kind {
            guard let first = bySeq[seq]!.reverts.first else { return .ordinary }
            return kind(first) == .undo ? .redo : .undo
        }
        var revertedLater = Set<UInt64>()
        for t in log.reversed() {
            if t.author == author, !revertedLater.contains(t.seq) {
                let k = kind(t.seq)
                if redo ? k == .undo : (k == .ordinary || k == .redo) { return t.seq }
            }
            revertedLater.formUnion(t.reverts)
        }
        return nil
    }

    static func objects(_ store: LogStore, at position: UInt64? = nil) throws -> State {
        try ChangesByPredicateModelTests.state(of: store, at: position)
    }

    @Test(arguments: [1, 2, 3, 4])
    func revertsUndosAndRedosFollowTheContract(seed: Int) throws {
        var rng = SeededGenerator(seed: SeededGenerator.environmentSeed &+ UInt64(seed) &* 0x51_7CC1_B727)
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                        options: StoreOptions(durable: false))
        var nextID: Int64 = 0
        var reverted = 0, refused = 0, undone = 0, redone = 0
        for round in 0..<150 {
            let log = try store.transactions()
            let head = try store.head
            let before = try Self.objects(store)
            let author = ["a", "b"].randomElement(using: &rng)!
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                let (requests, _) = ChangesByPredicateModelTests.transaction(before, &rng, nextID: &nextID)
                guard !requests.isEmpty else { continue }
                _ = try? store.append([TransactionRequest(author: author, changes: requests)])
            case 5..<7:
                guard head > 0 else { continue }
                let count = Int.random(in: 1...2, using: &rng)
                let seqs = Array(Set((0..<count).map { _ in UInt64.random(in: (head > 8 ? head - 8 : 1)...head, using: &rng) }))
                let listed = log.filter { seqs.contains($0.seq) }
                let expectedConflict = Self.conflict(listed, log: log)
                let outcome = Result { () throws(StoreError) -> Transaction in try store.revert(seqs, author: author) }
                switch outcome {
                case .success(let t):
                    reverted += 1
                    #expect(expectedConflict == nil, "round \(round): revert \(seqs) took a conflict at \(expectedConflict.map { "\($0.key) seq \($0.seq)" } ?? "")")
                    #expect(t.reverts == seqs.sorted(by: >))
                    #expect(t.changes.compactMap(\.request) == Self.inverses(listed), "round \(round): revert \(seqs)")
                    if seqs == [head] {
                        #expect(try Self.objects(store) == Self.objects(store, at: head - 1), "round \(round): reverting the newest")
                        try store.revert([t.seq], author: author)
                        #expect(try Self.objects(store) == before, "round \(round): reverting the revert")
                    }
                case .failure(let error):
                    refused += 1
                    #expect(try store.head == head, "round \(round): a refused revert appended")
                    switch error {
                    case let .revertConflict(key, _, seq):
                        let named = expectedConflict.map { $0.key == key && $0.seq == seq } ?? false
                        #expect(named, "round \(round): revert \(seqs) refused for \(key) at \(seq), expected \(String(describing: expectedConflict))")
                    case .cannotRevert:
                        break  // integrity (a later object names one it would delete) is the store's to judge
                    default:
                        Issue.record("round \(round): \(error)")
                    }
                }
            default:
                let redo = Bool.random(using: &rng)
                let expected = Self.target(author, redo: redo, log: log)
                #expect((redo ? try store.redoTarget(author: author) : try store.undoTarget(author: author)) == expected,
                        "round \(round): \(redo ? "redo" : "undo") target of \(author)")
                do {
                    let t = redo ? try store.redo(author: author) : try store.undo(author: author)
                    if redo { redone += 1 } else { undone += 1 }
                    #expect(t.reverts == [expected!] && t.author == author)
                } catch {
                    #expect(try store.head == head, "round \(round): a refused \(redo ? "redo" : "undo") appended")
                    if expected == nil { #expect(error.code == .cannotRevert) }
                }
            }
        }
        #expect(try store.verify().isOK)
        #expect(reverted > 5 && refused > 3 && undone > 3 && redone > 0,
                "reverted \(reverted), refused \(refused), undone \(undone), redone \(redone)")
    }

    /// A context's undo and redo: one save is one step of its author; its merge policy decides a later change.
    @Test func aContextUndoesAndRedoesItsSavesUnderItsMergePolicy() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: ChangesByPredicateModelTests.schemaText),
                                        options: StoreOptions(durable: false))
        let ann = try Context(store: store, name: "ann")
        #expect(!ann.canUndo && !ann.canRedo)
        try ann.insert("Department", id: 1, values: ["name": "d1"])
        try ann.insert("Employee", id: 1, values: ["name": "e1", "rank": 1, "department": 1])
        try ann.save()
        try ann.update("Employee", id: 1, values: ["rank": 2, "name": "E1"])
        try ann.save()
        let controller = try ann.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "rank")]))
        #expect(ann.canUndo)
        try ann.undo()
        #expect(try ann.object(ObjectKey(entity: "Employee", id: 1))?["rank"] == 1)
        #expect(controller.fetchedObjects == [.int(1)])
        #expect(ann.canRedo)
        try ann.redo()
        #expect(try ann.object(ObjectKey(entity: "Employee", id: 1))?["rank"] == 2)
        // Another author changes the rank later: undoing ann's update conflicts on it.
        try store.append([.update(entity: "Employee", id: 1, values: ["rank": 7])], author: "bob")
        ann.mergePolicy = .error
        #expect(throws: StoreError.self) { try ann.undo() }
        ann.mergePolicy = .rollback
        #expect(try ann.undo() == nil)
        ann.mergePolicy = .mergeByPropertyStoreTrump
        let kept = try #require(try ann.undo())
        #expect(kept.changes.compactMap(\.request) == [.update(entity: "Employee", id: 1, values: ["name": "e1"])])
        #expect(try store.object(ObjectKey(entity: "Employee", id: 1))?["rank"] == 7)
        // Object trump: ann's next save is undone whatever bob did after it.
        try ann.refresh()
        try ann.update("Employee", id: 1, values: ["rank": 5])
        try ann.save()
        try store.append([.update(entity: "Employee", id: 1, values: ["rank": 9])], author: "bob")
        ann.mergePolicy = .mergeByPropertyObjectTrump
        try ann.undo()
        #expect(try store.object(ObjectKey(entity: "Employee", id: 1))?["rank"] == 7)
        // Unsaved changes first: refused.
        try ann.update("Employee", id: 1, values: ["rank": 3])
        #expect(throws: StoreError.self) { try ann.undo() }
        try ann.rollback()
        // The history is the log's: a second context of the same author (another process, after a restart) sees it.
        let again = try Context(store: store, name: "ann")
        #expect(again.canRedo)
        try again.redo()
        #expect(try store.verify().isOK)
    }

    /// DESIGN §14: a reverted delete from before an additive schema change gets the new attributes' defaults, as an
    /// insert would; the schema change itself cannot be reverted.
    @Test func aRevertedDeleteGetsTheDefaultsOfALaterSchema() throws {
        let v1 = try Schema(jsonText: #"{"entities": {"Item": {"id": "int", "attributes": {"name": {"type": "string"}}}}}"#)
        let v2 = try Schema(jsonText: #"{"entities": {"Item": {"id": "int", "attributes": {"name": {"type": "string"}, "#
                            + #""rank": {"type": "int", "default": 7}}}}}"#)
        let store = try LogStore.create(at: newStorePath(), schema: v1, options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Item", id: 1, values: ["name": "a"])], author: "a")
        let deleted = try store.append([.delete(entity: "Item", id: 1)], author: "a")
        let change = try #require(try store.updateSchema(v2, author: "a"))
        try store.revert([deleted.seq], author: "a")
        #expect(try store.object(ObjectKey(entity: "Item", id: 1)) == ["name": "a", "rank": 7])
        #expect(throws: StoreError.self) { try store.revert([change.seq], author: "a") }
        #expect(try store.verify().isOK)
    }
}
