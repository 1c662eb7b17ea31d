import Testing
@_spi(Testing) import ViewLog
import ViewLogTesting
import TestSupport

/// Scenarios that break NSFetchedResultsController, with real predicates.
@Suite struct ResultsControllerTests {
    static let author = EntityDescription(name: "Author", idType: .string, attributes: [
        Attribute(name: "firstName", type: .string),
        Attribute(name: "lastName", type: .string),
        Attribute(name: "books", type: .int, defaultValue: .int(0)),
    ])

    /// A store of Authors driven through ``ViewModel``.
    struct Fixture {
        var model: ViewModel
        let controller: ResultsController
        let recorder = ChangeRecorder()

        init(_ request: FetchRequest, _ initial: [(String, ObjectValues)], entity: EntityDescription = author) throws {
            var objects: [ObjectKey: ObjectValues] = [:]
            for (id, v) in initial { objects[ObjectKey(entity: entity.name, id: .string(id))] = v }
            model = ViewModel(initial: objects)
            controller = try ResultsController(fetchRequest: request, entity: entity,
                                               objects: model.objects(of: entity.name, at: 0))
            recorder.attachAsDelegate(to: controller)  // these scenarios also check the delegate's call order
        }

        /// Commits one transaction per element of `transactions` and applies them as one batch.
        @discardableResult
        mutating func batch(_ transactions: [ModelOp]...) -> ChangeSet {
            let from = model.head
            for t in transactions { model.commit(t) }
            let cs = controller.apply(model.delta(from: from, to: model.head))
            #expect(recorder.validate().isEmpty, "\(recorder.validate())")
            return cs
        }
    }

    static func key(_ id: String) -> ObjectKey { ObjectKey(entity: "Author", id: .string(id)) }
    static func person(_ first: String, _ last: String, books: Int64 = 0) -> ObjectValues {
        ["firstName": .string(first), "lastName": .string(last), "books": .int(books)]
    }

    @Test func updatedObjectThatNewlyMatchesEntersAndLeaves() throws {
        let request = FetchRequest(entity: "Author", predicate: try ViewPredicate("lastName BEGINSWITH 'W'"),
                                   sortDescriptors: [ViewSortDescriptor(key: "lastName")])
        var f = try Fixture(request, [("a1", Self.person("Douglas", "Adams")), ("a2", Self.person("P. G.", "Wodehouse"))])
        #expect(f.controller.fetchedObjects == [.string("a2")])
        let enter = f.batch([.update(Self.key("a1"), ["firstName": .string("Milton"), "lastName": .string("Wadams")])])
        #expect(ChangeSetRenderer.render(enter) == "row + a1 [0,0]")
        #expect(f.controller.fetchedObjects == [.string("a1"), .string("a2")])
        let leave = f.batch([.update(Self.key("a1"), ["firstName": .string("Douglas"), "lastName": .string("Adams")])])
        #expect(ChangeSetRenderer.render(leave) == "row - a1 [0,0]")
        #expect(f.controller.fetchedObjects == [.string("a2")])
    }

    @Test func insertedAndUpdatedInOneBatchIsOneInsert() throws {
        let request = FetchRequest(entity: "Author", predicate: try ViewPredicate("books > 2"),
                                   sortDescriptors: [ViewSortDescriptor(key: "lastName")])
        var f = try Fixture(request, [("a1", Self.person("Ann", "Bell", books: 5))])
        let cs = f.batch([.insert(Self.key("a2"), Self.person("Cy", "Abel", books: 1))],
                         [.update(Self.key("a2"), ["books": .int(3)])])
        #expect(ChangeSetRenderer.render(cs, seq: true) == "row + a2 [0,0] seq 2")
        // Inserted and deleted within one batch: never a member before or after, not reported.
        let none = f.batch([.insert(Self.key("a3"), Self.person("Dee", "Ames", books: 9))], [.delete(Self.key("a3"))])
        #expect(none.isEmpty)
    }

    @Test func sortKeyChangeIsAMoveOtherChangeIsAnUpdate() throws {
        let request = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "lastName")])
        var f = try Fixture(request, [("a1", Self.person("A", "Alpha")), ("a2", Self.person("B", "Beta")),
                                      ("a3", Self.person("C", "Gamma"))])
        let move = f.batch([.update(Self.key("a1"), ["lastName": .string("Delta")])])
        #expect(ChangeSetRenderer.render(move) == "row > a1 [0,0] -> [0,1] changed: lastName")
        let update = f.batch([.update(Self.key("a2"), ["books": .int(7)])])
        #expect(ChangeSetRenderer.render(update) == "row ~ a2 [0,0] -> [0,0] changed: books")
        // A sort-key change that keeps the row's place is an update, not a move.
        let inPlace = f.batch([.update(Self.key("a3"), ["lastName": .string("Epsilon")])])
        #expect(ChangeSetRenderer.render(inPlace) == "row ~ a3 [0,2] -> [0,2] changed: lastName")
        // Changed and changed back within the batch: nothing.
        let back = f.batch([.update(Self.key("a3"), ["books": .int(1)])], [.update(Self.key("a3"), ["books": .int(0)])])
        #expect(back.isEmpty)
    }

    @Test func sectionsAppearAndVanish() throws {
        let request = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "lastName")],
                                   sectionKey: "lastName")
        var f = try Fixture(request, [("a1", Self.person("A", "Adams")), ("a2", Self.person("B", "Cole"))])
        #expect(f.controller.sections.map(\.name) == ["Adams", "Cole"])
        #expect(f.controller.sectionIndexTitles == ["A", "C"])
        let cs = f.batch([.update(Self.key("a1"), ["lastName": .string("Bell")])])
        #expect(ChangeSetRenderer.render(cs) == """
            section - 0 "Adams"
            section + 0 "Bell"
            row > a1 [0,0] -> [0,0] changed: lastName
            """)
        let vanish = f.batch([.delete(Self.key("a2"))])
        #expect(ChangeSetRenderer.render(vanish) == "section - 1 \"Cole\"\nrow - a2 [1,0]")
        let gone = f.batch([.delete(Self.key("a1"))])
        #expect(f.controller.numberOfSections == 0)
        #expect(ChangeSetRenderer.render(gone) == "section - 0 \"Bell\"\nrow - a1 [0,0]")
    }

    @Test func withoutSectionKeyThereIsOneNullSection() throws {
        let request = FetchRequest(entity: "Author", predicate: .none)
        let f = try Fixture(request, [("a1", Self.person("A", "Adams"))])
        #expect(f.controller.numberOfSections == 1)
        #expect(f.controller.sections.map(\.name) == ["null"])
        #expect(f.controller.sections[0].numberOfObjects == 0)
        #expect(f.controller.snapshot == ViewSnapshot(sections: [.init(value: .null, rows: [])]))
    }

    @Test func limitAndOffsetEdgesCross() throws {
        let request = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "books")], limit: 2, offset: 1)
        var f = try Fixture(request, (1...5).map { ("a\($0)", Self.person("F", "L", books: Int64($0 * 10))) })
        #expect(f.controller.fetchedObjects == [.string("a2"), .string("a3")])
        // A new first row shifts a1 into the window and a3 out of it.
        let cs = f.batch([.insert(Self.key("a0"), Self.person("F", "L", books: 0))])
        #expect(ChangeSetRenderer.render(cs) == "row - a3 [0,1]\nrow + a1 [0,0]")
        #expect(f.controller.fetchedObjects == [.string("a1"), .string("a2")])
        // A row moving from inside the window to after it.
        let out = f.batch([.update(Self.key("a1"), ["books": .int(99)])])
        #expect(ChangeSetRenderer.render(out) == "row - a1 [0,0]\nrow + a3 [0,1]")
    }

    @Test func unknownKeysAreNamed() throws {
        #expect(throws: QueryError.self) {
            try ResultsController(fetchRequest: FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "age")]),
                                  entity: Self.author, objects: [])
        }
        do {
            _ = try ResultsController(fetchRequest: FetchRequest(entity: "Author", sectionKey: "genre"),
                                      entity: Self.author, objects: [])
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("'genre'"))
        }
    }

    @Test func otherEntitiesAreIgnoredAndDelegateOrderHolds() throws {
        let request = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "lastName")])
        var f = try Fixture(request, [("a1", Self.person("A", "Adams"))])
        let cs = f.batch([.insert(ObjectKey(entity: "Book", id: .int(1)), ["title": .string("x")])])
        #expect(cs.isEmpty)
        #expect(f.recorder.events.isEmpty)
        f.batch([.insert(Self.key("a2"), Self.person("B", "Bell"))])
        #expect(f.recorder.events.first == .willChangeContent && f.recorder.events.last == .didChangeContent)
        #expect(f.recorder.batches.count == 1)
    }

    @Test func reloadIsAnExplicitEvent() async throws {
        let request = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "lastName")])
        let f = try Fixture(request, [("a1", Self.person("A", "Adams")), ("a2", Self.person("B", "Bell"))])
        let stream = f.controller.changes
        let descending = FetchRequest(entity: "Author", sortDescriptors: [ViewSortDescriptor(key: "lastName", ascending: false)])
        try f.controller.reload(objects: f.model.objects(of: "Author", at: 0), position: 0, fetchRequest: descending)
        var iterator = stream.makeAsyncIterator()
        let initial = await iterator.next()
        #expect(initial == .reload(ViewSnapshot(sections: [.init(value: .null, rows: [.string("a1"), .string("a2")])])))
        let event = await iterator.next()
        #expect(event == .reload(ViewSnapshot(sections: [.init(value: .null, rows: [.string("a2"), .string("a1")])])))
        #expect(f.recorder.events.last == .reload(f.controller.snapshot))
    }

    @Test func changesStreamDeliversBatchesAndFinishesOnOverflow() async throws {
        let request = FetchRequest(entity: "Author")
        var objects: [ObjectKey: ObjectValues] = [:]
        objects[Self.key("a1")] = Self.person("A", "Adams")
        var model = ViewModel(initial: objects)
        let controller = try ResultsController(fetchRequest: request, entity: Self.author,
                                               objects: model.objects(of: "Author", at: 0), changesBufferLimit: 2)
        let stream = controller.changes
        for i in 0..<3 {
            model.commit([.update(Self.key("a1"), ["books": .int(Int64(i + 1))])])
            controller.apply(model.delta(from: model.head - 1, to: model.head))
        }
        var received: [ViewEvent] = []
        for await event in stream { received.append(event) }
        // The current snapshot and the first batch fill the buffer; the second batch would have been a gap after
        // them, so the stream finished instead.
        #expect(received.count == 2)
        #expect(received.first == .reload(ViewSnapshot(sections: [.init(value: .null, rows: [.string("a1")])])))
    }

    @Test func realPredicatesAgreeWithClosures() throws {
        var rng = ViewTestRNG(seed: ViewTestRNG.seed(default: 77))
        for _ in 0..<24 {
            let spec = ViewsRandom.view(&rng)
            var request = spec.request
            request.predicate = try ViewPredicate(spec.predicateText)
            var model = ViewModel(initial: ViewsRandom.initialObjects(count: 20, idPool: 30, &rng))
            let real = try ResultsController(fetchRequest: request, entity: ViewsRandom.employee,
                                             objects: model.objects(of: "Employee", at: 0))
            let closure = try spec.controller(model, entity: ViewsRandom.employee, at: 0)
            #expect(real.snapshot == closure.snapshot, "\(spec)")
            for _ in 0..<30 {
                model.commit(ViewsRandom.transaction(model.current, idPool: 30, maxOps: 4, &rng))
                let delta = model.delta(from: model.head - 1, to: model.head)
                #expect(real.apply(delta) == closure.apply(delta), "\(spec)")
            }
        }
    }
}
