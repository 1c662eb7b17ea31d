import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// An append does not read the store for an object whose first change in the write is an insert: the row's put
/// checks that it was absent. Whatever the order of the write's changes and of their keys, the refusal must be
/// the one of the first change refused, in order, and a refused write must leave nothing — checked against a
/// model that resolves the changes one by one. Half the writes go through ``LogStore/append(batches:)`` in random
/// batches (each batch's rows are written before the next batch is read), which must behave as one batch.
@Suite("Append refusals against a model")
struct AppendRefusalModelTests {
    enum Step: CustomStringConvertible {
        case insert(String), insertWrongType(String), update(String), delete(String)

        var description: String {
            switch self {
            case .insert(let id): "insert \(id)"
            case .insertWrongType(let id): "insert \(id) (wrong type)"
            case .update(let id): "update \(id)"
            case .delete(let id): "delete \(id)"
            }
        }

        var request: ChangeRequest {
            switch self {
            case .insert(let id): .insert(entity: "Employee", id: .string(id), values: ["name": .string(id)])
            case .insertWrongType(let id):
                .insert(entity: "Employee", id: .string(id), values: ["name": .string(id), "height": .double(1.5)])
            case .update(let id): .update(entity: "Employee", id: .string(id), values: ["height": .int(7)])
            case .delete(let id): .delete(entity: "Employee", id: .string(id))
            }
        }

        /// The model's verdict on this step against `existing`: `nil` when accepted (and `existing` updated),
        /// else the words the refusal must contain.
        func apply(to existing: inout Set<String>) -> String? {
            switch self {
            case .insert(let id):
                guard !existing.contains(id) else { return "the id exists already" }
                existing.insert(id)
            case .insertWrongType(let id):
                // The existence check comes before the values' check.
                return existing.contains(id) ? "the id exists already" : "attribute 'height' is int, got a double"
            case .update(let id):
                guard existing.contains(id) else { return "no such object" }
            case .delete(let id):
                guard existing.contains(id) else { return "no such object" }
                existing.remove(id)
            }
            return nil
        }
    }

    static func ids(in store: LogStore) throws -> Set<String> {
        Set(try store.objects(of: "Employee").map { id, _ in
            guard case .string(let s) = id else { return "" }
            return s
        })
    }

    @Test func theFirstRefusedChangeIsNamedAndARefusedWriteLeavesNothing() throws {
        var g = SeededGenerator(seed: 0xA99E_0D)
        var refusedExisting = 0, refusedEarlier = 0, accepted = 0
        for trial in 0..<400 {
            let store = try makeStore()
            // Ids of one and two digits, so that key order and the order of the changes differ.
            let pool = (0..<12).map { "e\([3, 17, 5, 40, 1, 29, 8, 11, 62, 9, 2, 77][$0])" }
            let existing = Set(pool.filter { _ in Bool.random(using: &g) })
            if !existing.isEmpty {
                try store.append(existing.sorted().map { Step.insert($0).request }, author: "setup")
            }
            let head = try store.head
            var model = existing
            var expected: (transaction: Int, change: Int, words: String)?
            var requests: [TransactionRequest] = []
            for t in 0..<Int.random(in: 1...5, using: &g) {
                var changes: [ChangeRequest] = []
                for c in 0..<Int.random(in: 1...3, using: &g) {
                    let id = pool.randomElement(using: &g)!
                    let step: Step = switch Int.random(in: 0..<10, using: &g) {
                    case 0..<5: .insert(id)
                    case 5: .insertWrongType(id)
                    case 6, 7: .update(id)
                    default: .delete(id)
                    }
                    if expected == nil, let words = step.apply(to: &model) { expected = (t, c, words) }
                    changes.append(step.request)
                }
                requests.append(TransactionRequest(author: "t", changes: changes))
            }
            let batched = Bool.random(using: &g)
            do {
                if batched {
                    var rest = requests[...]
                    _ = try store.append(batches: {
                        guard !rest.isEmpty else { return nil }
                        let batch = rest.prefix(Int.random(in: 1...3, using: &g))
                        rest = rest.dropFirst(batch.count)
                        return Array(batch)
                    })
                } else {
                    try store.append(requests)
                }
                accepted += 1
                #expect(expected == nil, "trial \(trial): expected a refusal \(String(describing: expected))")
                #expect(try Self.ids(in: store) == model, "trial \(trial)")
                #expect(try store.head == head + UInt64(requests.count))
            } catch let StoreError.invalidChange(transaction, change, reason) {
                guard let expected else {
                    Issue.record("trial \(trial): refused \(transaction).\(change) \(reason), expected to be accepted")
                    continue
                }
                #expect(transaction == expected.transaction && change == expected.change,
                        "trial \(trial)\(batched ? " (batched)" : ""): refused \(transaction).\(change), expected \(expected.transaction).\(expected.change): \(reason); existing \(existing.sorted()), \(requests.map(\.changes))")
                #expect(reason.contains(expected.words), "trial \(trial): \(reason)")
                // Inserts of an existing id: found when the rows are written, or when a later change is refused.
                if expected.words == "the id exists already" { refusedExisting += 1 } else { refusedEarlier += 1 }
                #expect(try store.head == head)
                #expect(try Self.ids(in: store) == existing)
            }
        }
        #expect(accepted > 8 && refusedExisting > 40 && refusedEarlier > 40,
                "\(accepted) accepted, \(refusedExisting) existing ids, \(refusedEarlier) other refusals")
    }

    /// Batches make the same log as one append of all their transactions, and the same rows; an error thrown by
    /// the batch source is thrown as it is, and nothing of the batches before it stays.
    @Test func batchesAppendWhatOneAppendAppendsAndAThrowingSourceLeavesNothing() throws {
        var g = SeededGenerator(seed: 0xBA7C4)
        let time = Timestamp(milliseconds: 1_795_341_600_000)
        var requests: [TransactionRequest] = []
        for t in 0..<300 {
            let id = ObjectID.string("e\(t % 40)")
            let change: ChangeRequest = t < 40 ? .insert(entity: "Employee", id: id, values: ["name": .string("n\(t)")])
                : .update(entity: "Employee", id: id, values: ["height": .int(Int64(t))])
            requests.append(TransactionRequest(author: "a", changes: [change], time: time))
        }
        let whole = try makeStore(), batched = try makeStore()
        try whole.append(requests)
        var rest = requests[...]
        let seqs = try batched.append(batches: {
            guard !rest.isEmpty else { return nil }
            let batch = rest.prefix(Int.random(in: 1...50, using: &g))
            rest = rest.dropFirst(batch.count)
            return Array(batch)
        })
        #expect(seqs == Array(1...300))
        #expect(try batched.transactions() == whole.transactions())
        #expect(try batched.objects(of: "Employee").map(\.values) == whole.objects(of: "Employee").map(\.values))

        struct Stop: Error {}
        var calls = 0
        #expect(throws: Stop.self) {
            try batched.append(batches: {
                calls += 1
                if calls == 3 { throw Stop() }
                return [TransactionRequest(author: "a", changes: [.insert(entity: "Employee", id: .string("x\(calls)"), values: ["name": "x"])])]
            })
        }
        #expect(try batched.head == 300)
        #expect(try batched.object(ObjectKey(entity: "Employee", id: .string("x1"))) == nil)
        #expect(throws: StoreError.emptyInput) { try batched.append(batches: { nil }) }
    }
}
