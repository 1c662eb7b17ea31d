import Testing
@_spi(Testing) import ViewLog
import ViewLogTesting
import TestSupport

/// Every consumer sees every batch from the moment it subscribes: several `changes` sequences, observers beside
/// the app's delegate, and a recorder that leaves the delegate alone.
@Suite struct ObservationTests {
    static let item = EntityDescription(name: "Item", idType: .int, attributes: [Attribute(name: "rank", type: .int)])

    /// A controller over an in-memory model of `Item`s, and a way to commit one update as one batch.
    final class Fixture {
        var model: ViewModel
        let controller: ResultsController

        init() throws {
            var objects: [ObjectKey: ObjectValues] = [:]
            for i in 1...3 { objects[ObjectKey(entity: "Item", id: .int(Int64(i)))] = ["rank": .int(Int64(i))] }
            model = ViewModel(initial: objects)
            controller = try ResultsController(fetchRequest: FetchRequest(entity: "Item", sortDescriptors: [ViewSortDescriptor(key: "rank")]),
                                               entity: ObservationTests.item, objects: model.objects(of: "Item", at: 0))
        }

        @discardableResult
        func update(_ id: Int64, rank: Int64) -> ChangeSet {
            model.commit([.update(ObjectKey(entity: "Item", id: .int(id)), ["rank": .int(rank)])])
            return controller.apply(model.delta(from: model.head - 1, to: model.head))
        }
    }

    final class CountingDelegate: ResultsControllerDelegate {
        var batches = 0
        func controllerDidChangeContent(_ controller: ResultsController) { batches += 1 }
    }

    @Test func everyChangesSequenceStartsWithTheSnapshotAndSeesEveryLaterBatch() async throws {
        let f = try Fixture()
        let first = f.controller.changes
        let before = f.controller.snapshot
        let batch1 = f.update(1, rank: 10)
        let second = f.controller.changes        // a second consumer, subscribed later
        let after1 = f.controller.snapshot
        let batch2 = f.update(2, rank: 20)
        var a = first.makeAsyncIterator(), b = second.makeAsyncIterator()
        #expect(await a.next() == .reload(before))
        #expect(await a.next() == .changes(batch1))
        #expect(await a.next() == .changes(batch2))
        #expect(await b.next() == .reload(after1))
        #expect(await b.next() == .changes(batch2))
    }

    /// The README's pattern: subscribe, hand the (Sendable) sequence to a task, then save. The batch arrives even
    /// though the task starts iterating after it was applied.
    @Test func aBatchAppliedBeforeTheConsumerStartsIsNotLost() async throws {
        let f = try Fixture()
        let events = f.controller.changes
        let consumer = Task { () -> [ViewEvent] in
            var seen: [ViewEvent] = []
            for await event in events {
                seen.append(event)
                if seen.count == 2 { break }
            }
            return seen
        }
        let batch = f.update(3, rank: 0)
        let seen = await consumer.value
        #expect(seen.count == 2)
        #expect(seen.last == .changes(batch))
    }

    @Test func observersAndARecorderLeaveTheDelegateToTheApp() throws {
        let f = try Fixture()
        let delegate = CountingDelegate()
        f.controller.delegate = delegate
        let recorder = ChangeRecorder(), other = ChangeRecorder()
        recorder.attach(to: f.controller)
        other.attach(to: f.controller)
        var observed: [ViewEvent] = []
        let observation = f.controller.observe { observed.append($0) }
        f.update(1, rank: 5)
        f.update(2, rank: 6)
        #expect(f.controller.delegate === delegate)
        #expect(delegate.batches == 2)
        #expect(recorder.batches.count == 2 && other.batches.count == 2)
        #expect(recorder.validate().isEmpty, "\(recorder.validate())")
        #expect(observed.count == 2)
        observation.cancel()
        f.update(3, rank: 7)
        #expect(observed.count == 2, "a cancelled observation hears nothing more")
        #expect(recorder.batches.count == 3)
    }

    @Test func releasingAnObservationEndsIt() throws {
        let f = try Fixture()
        var calls = 0
        do {
            let observation = f.controller.observe { _ in calls += 1 }
            f.update(1, rank: 9)
            withExtendedLifetime(observation) {}
        }
        f.update(2, rank: 9)
        #expect(calls == 1)
    }
}
