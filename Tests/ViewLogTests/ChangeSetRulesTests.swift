import Foundation
import Testing
@_spi(Testing) import ViewLog
import ViewLogTesting
import TestSupport

/// DESIGN §5 rules, one case each: what is a move, what is an update, what is not reported.
@Suite struct ChangeSetRulesTests {
    static let entity = EntityDescription(name: "Item", idType: .int, attributes: [
        Attribute(name: "rank", type: .int),
        Attribute(name: "group", type: .string, defaultValue: .string("g")),
        Attribute(name: "note", type: .string, defaultValue: .string("")),
    ])

    static func key(_ i: Int64) -> ObjectKey { ObjectKey(entity: "Item", id: .int(i)) }

    /// Items 1…n with rank = 10·id, sorted by rank (optionally sectioned by group), applying `ops` as one batch.
    static func run(_ ops: [ModelOp], count: Int64 = 5, section: Bool = false, limit: Int? = nil, offset: Int = 0,
                    filter: String = "TRUEPREDICATE") throws -> (ChangeSet, ResultsController) {
        var objects: [ObjectKey: ObjectValues] = [:]
        for i in 1...count { objects[key(i)] = ["rank": .int(i * 10), "group": .string(i <= 2 ? "a" : "b"), "note": .string("")] }
        var model = ViewModel(initial: objects)
        let request = FetchRequest(entity: "Item", predicate: try ViewPredicate(filter), sortDescriptors: [ViewSortDescriptor(key: "rank")],
                                   sectionKey: section ? "group" : nil, limit: limit, offset: offset)
        let controller = try ResultsController(fetchRequest: request, entity: entity, objects: model.objects(of: "Item", at: 0))
        let before = controller.snapshot
        model.commit(ops)
        let cs = controller.apply(model.delta(from: 0, to: 1))
        #expect(ChangeSetValidator.validate(cs, from: before, to: controller.snapshot).isEmpty)
        #expect(ChangeSetValidator.validateSequential(cs, from: before, to: controller.snapshot).isEmpty)
        return (cs, controller)
    }

    @Test func twoRowsSwappingAreBothMoves() throws {
        let (cs, _) = try Self.run([.update(Self.key(2), ["rank": .int(30)]), .update(Self.key(3), ["rank": .int(20)])])
        // 2 and 3 swap (rank 30 vs 20; ties broken by id): both change order relative to each other.
        #expect(Set(cs.rowChanges.map(\.kind)) == [.move])
        #expect(cs.rowChanges.count == 2)
    }

    @Test func sortKeyChangeKeepingOrderAmongStayersIsAnUpdate() throws {
        // 3 jumps past 4, but 4 is deleted: relative to every row that stays, 3 keeps its place.
        let (cs, _) = try Self.run([.update(Self.key(3), ["rank": .int(45)]), .delete(Self.key(4))])
        #expect(ChangeSetRenderer.render(cs) == "row - 4 [0,3]\nrow ~ 3 [0,2] -> [0,2] changed: rank")
    }

    @Test func shiftedRowsAreNotReported() throws {
        let (cs, _) = try Self.run([.insert(Self.key(0), ["rank": .int(0)]), .update(Self.key(5), ["note": .string("n")])])
        #expect(ChangeSetRenderer.render(cs) == "row + 0 [0,0]\nrow ~ 5 [0,4] -> [0,5] changed: note")
    }

    @Test func sectionChangeIsAlwaysAMove() throws {
        // 3 moves from group b to a, staying the third row of the view.
        let (cs, c) = try Self.run([.update(Self.key(3), ["group": .string("a")])], section: true)
        #expect(ChangeSetRenderer.render(cs) == "row > 3 [1,0] -> [0,2] changed: group")
        #expect(c.sections.map(\.numberOfObjects) == [3, 2])
    }

    @Test func valuesChangedBackAreNoChange() throws {
        let (cs, _) = try Self.run([.update(Self.key(1), ["rank": .int(99)]), .update(Self.key(1), ["rank": .int(10)])])
        #expect(cs.isEmpty)
    }

    @Test func nonMembersAreNotReported() throws {
        let (cs, _) = try Self.run([.update(Self.key(1), ["note": .string("x")])], filter: "rank > 10")
        #expect(cs.isEmpty)
    }

    @Test func changedListsEveryAttribute() throws {
        let (cs, _) = try Self.run([.update(Self.key(1), ["rank": .int(60), "note": .string("x")])])
        #expect(cs.rowChanges == [.move(.int(1), from: IndexPath(row: 0, section: 0), to: IndexPath(row: 4, section: 0), seq: 1, changed: ["note", "rank"])])
    }

    @Test func windowMovesAreInsertsAndDeletes() throws {
        // Row 1 moves from before the window into it: for the window it is an insert, and 3 leaves.
        let (cs, c) = try Self.run([.update(Self.key(1), ["rank": .int(25)])], limit: 2, offset: 1)
        #expect(c.fetchedObjects == [.int(1), .int(3)])
        #expect(ChangeSetRenderer.render(cs) == "row - 2 [0,0]\nrow + 1 [0,0]")
    }

    @Test func sequentialFormAndDifference() throws {
        let (cs, c) = try Self.run([.delete(Self.key(1)), .update(Self.key(2), ["rank": .int(60)]), .insert(Self.key(9), ["rank": .int(35)])])
        let before: [ObjectID] = [1, 2, 3, 4, 5].map { .int($0) }
        #expect(before.applying(cs.difference!) == c.fetchedObjects)
        #expect(cs.sequentialSteps.first == .deleteRow(.int(2), at: IndexPath(row: 1, section: 0), isMove: true))
    }
}
