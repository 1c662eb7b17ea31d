import Foundation
import Testing
import ViewLogTesting
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Typed rows from a controller, literals for ids and values, a typed update that stages only what changed,
/// `performFetch` through the controller's context, and staging errors that say what was staged.
@Suite("Typed access")
struct TypedAccessTests {
    struct Employee: EntityType, Equatable {
        static let entityName = "Employee"
        var id: String
        var name: String
        var height: Int?
        var sectionName: String
    }

    func seeded() throws -> (LogStore, Context) {
        let store = try makeStore()
        try store.append([
            .insert(entity: "Employee", id: "e1", values: ["name": "Ann", "height": 180, "sectionName": "A"]),
            .insert(entity: "Employee", id: "e2", values: ["name": "Bob", "height": 175, "sectionName": "B"]),
            .insert(entity: "Employee", id: "e3", values: ["name": "Cy", "height": 190, "sectionName": "A", "salary": 1.5, "active": false]),
        ], author: "test")
        return (store, try Context(store: store, name: "ui"))
    }

    @Test func literalsMakeIdsAndValues() {
        let id: ObjectID = "e1", number: ObjectID = 7
        let values: ObjectValues = ["name": "Ann", "height": 180, "salary": 1.5, "active": true]
        #expect(id == .string("e1") && number == .int(7))
        #expect(values["name"] == .string("Ann") && values["height"] == .int(180))
        #expect(values["salary"] == .double(1.5) && values["active"] == .bool(true))
    }

    @Test func typedRowsSectionsAndObjects() throws {
        let (_, context) = try seeded()
        let tall = try context.makeResultsController(
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("height > 170"),
                         sortDescriptors: try ViewSortDescriptor.parse("sectionName, name"), sectionKey: "sectionName"))
        #expect(try tall.object(at: IndexPath(row: 1, section: 0), as: Employee.self).name == "Cy")
        #expect(try tall.objects(as: Employee.self).map(\.name) == ["Ann", "Cy", "Bob"])
        let sections = try tall.sections(as: Employee.self)
        #expect(sections.map(\.section.name) == ["A", "B"])
        #expect(sections.map { $0.objects.map(\.id) } == [["e1", "e3"], ["e2"]])
    }

    @Test func aControllerKeepsItsContextAliveAndFollowsIt() throws {
        let (store, context) = try seeded()
        weak let weakContext: Context? = context
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee"))
        _ = consume context
        #expect(weakContext != nil, "the controller holds its context")
        let recorder = ChangeRecorder()
        recorder.attach(to: controller)
        try store.append([.delete(entity: "Employee", id: "e2")], author: "other")
        try controller.context?.refresh()
        #expect(controller.fetchedObjects == ["e1", "e3"])
        #expect(recorder.batches.count == 1 && recorder.validate().isEmpty)
    }

    @Test func performFetchChangesTheRequestAsOneReload() throws {
        let (_, context) = try seeded()
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "name")]))
        var events: [ViewEvent] = []
        let observation = controller.observe { events.append($0) }
        try context.insert("Employee", id: "e4", values: ["name": "Di", "height": 200])   // pending: shown by the fetch
        var request = controller.fetchRequest
        request.predicate = try ViewPredicate("height >= 180")
        try controller.performFetch(request)
        #expect(controller.fetchedObjects == ["e1", "e3", "e4"])
        #expect(events.last == .reload(controller.snapshot))
        let before = controller.snapshot
        var wrong = request
        wrong.predicate = try ViewPredicate("shoeSize > 3")
        #expect(throws: QueryError.self) { try controller.performFetch(wrong) }
        #expect(controller.snapshot == before, "a refused request leaves the view as it was")
        observation.cancel()
    }

    @Test func aTypedUpdateStagesOnlyTheAttributesThatChanged() throws {
        let (store, context) = try seeded()
        var bob = try #require(try context.object(Employee.self, id: "e2"))
        try context.update(bob)
        #expect(!context.hasChanges, "an unchanged model stages nothing")
        bob.height = 176
        try context.update(bob)
        let saved = try #require(try context.save())
        guard case .update(let key, let values, _) = saved.changes[0] else { Issue.record("expected an update"); return }
        #expect(key.id == "e2" && Array(values.keys) == ["height"])

        // So a sibling's change of another attribute merges instead of conflicting.
        let sibling = try Context(store: store, name: "sibling")
        try sibling.update("Employee", id: "e2", values: ["name": "Robert"])
        try sibling.save()
        bob.height = 177
        try context.update(bob)       // the context still sees name "Bob" at its position: only height differs
        context.mergePolicy = .mergeDisjointProperties
        try context.save()
        let merged = try #require(try store.object(employee("e2")))
        #expect(merged["name"] == "Robert" && merged["height"] == 177)
    }

    @Test func aRefusedStageSaysWhatWasStaged() throws {
        let (store, context) = try seeded()
        let head = try store.head
        #expect(throws: StoreError.invalidStagedChange(employee("e1"), operation: "insert", reason: "the id exists already")) {
            try context.insert("Employee", id: "e1", values: ["name": "Again"])
        }
        do {
            try context.delete("Employee", id: "zz")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == #"cannot stage the delete of Employee "zz": no such object (nothing staged, nothing saved)"#)
        }
        let after = try store.head
        #expect(!context.hasChanges && after == head)
    }
}
