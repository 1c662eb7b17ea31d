import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import ViewLogTesting

/// The relationships test's graph with derived attributes (DESIGN §10): a department's headcount and tallest
/// employee's height (aggregates), an employee's department name (a to-one path).
let derivedSchemaText = graphSchemaText
    .replacingOccurrences(of: #""Department": {"id": "int", "attributes": {"name": {"type": "string"}, "floor": {"type": "int", "optional": true}}}"#,
                          with: #""Department": {"id": "int", "attributes": {"name": {"type": "string"}, "floor": {"type": "int", "optional": true}, "headcount": {"derived": "employees.@count"}, "tallest": {"derived": "employees.@max.height"}}}"#)
    .replacingOccurrences(of: #""height": {"type": "int", "optional": true}},"#,
                          with: #""height": {"type": "int", "optional": true}, "deptName": {"derived": "department.name"}},"#)

func derivedSchema(views: String? = nil) throws -> Schema {
    try Schema(jsonText: views.map { String(derivedSchemaText.dropLast()) + ", \"views\": {\($0)}}" } ?? derivedSchemaText)
}

private func derivedStore(views: String? = nil) throws -> LogStore {
    try LogStore.create(at: newStorePath(), schema: try derivedSchema(views: views), options: StoreOptions(durable: false))
}

private func emp(_ id: String, _ name: String, department: Int64? = nil, height: Int64? = nil) -> ChangeRequest {
    .insert(entity: "Employee", id: .string(id), values: ["name": .string(name), "department": department.map(Value.int) ?? .null,
                                                          "height": height.map(Value.int) ?? .null])
}

private func dept(_ id: Int64, _ name: String) -> ChangeRequest {
    .insert(entity: "Department", id: .int(id), values: ["name": .string(name)])
}

@Suite("Derived attributes: schema")
struct DerivedSchemaTests {
    @Test func derivedAttributesAreKeptBesideTheStoredOnesAndPrintedBackAmongThemInCodePointOrder() throws {
        let schema = try derivedSchema()
        let d = try schema.entity(named: "Department")
        #expect(d.derived == ["headcount": "employees.@count", "tallest": "employees.@max.height"])
        #expect(d.attributes.map(\.name) == ["floor", "name"])  // never stored
        #expect(d.valueNames == ["floor", "headcount", "name", "tallest"])
        let printed = schema.json
        #expect(printed["entities"]?["Department"]?["attributes"]?.text
                == #"{"floor": {"type": "int", "optional": true}, "headcount": {"derived": "employees.@count"}, "name": {"type": "string"}, "tallest": {"derived": "employees.@max.height"}}"#)
        #expect(try Schema(json: printed) == schema)
    }

    @Test(arguments: [
        (#""x": {"derived": "employees"}"#, "key path 'employees' of entity 'Department': not a key path"),
        (#""x": {"derived": "ANY employees.height > 1"}"#, "Department has no attribute or relationship 'ANY employees'"),
        (#""x": {"derived": "employees.nme"}"#, "after the to-many 'employees' comes exactly one attribute"),
        (#""x": {"derived": "floor"}"#, "not a key path"),
        (#""x": {"derived": "headcount"}"#, "not a key path"),
        (#""x": {"derived": "employees.@sum.deptName"}"#, "'deptName' of Employee is a derived attribute"),
        (#""x": {"derived": "employees.@count", "type": "int"}"#, "unknown key 'type'"),
        (#""x": {"derived": 3}"#, "'derived' must be a key path"),
        (#""employees": {"derived": "employees.@count"}"#, "inverse 'employees' is already an attribute or relationship of Department"),
        (#""id": {"derived": "employees.@count"}"#, "'id' is reserved"),
    ])
    func badDerivedAttributesAreRefusedNamingThem(spec: String, message: String) throws {
        let text = derivedSchemaText.replacingOccurrences(of: #""headcount": {"derived": "employees.@count"}"#, with: spec)
        #expect { try Schema(jsonText: text) } throws: { "\($0)".contains(message) }
    }

    @Test func aDerivedAttributeNamedLikeARelationshipIsADuplicate() throws {
        let text = derivedSchemaText.replacingOccurrences(of: #""deptName": {"derived": "department.name"}"#,
                                                          with: #""department": {"derived": "manager.name"}"#)
        #expect { try Schema(jsonText: text) } throws: { ($0 as? SchemaError) == .duplicateAttribute(entity: "Employee", attribute: "department") }
    }

    @Test func aDerivedAttributeIsNotUsableThroughAnotherEntitysKeyPath() throws {
        let schema = try derivedSchema()
        for path in ["department.headcount", "manager.deptName", "reports.@max.deptName"] {
            let request = FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: path)])
            #expect(throws: QueryError.self) { try request.validate(against: schema) }
            #expect { try request.validate(against: schema) } throws: { "\($0)".contains("is a derived attribute: it is usable in") }
        }
        #expect { try derivedSchema(views: #""v": {"entity": "Employee", "where": "department.headcount > 1"}"#) }
            throws: { "\($0)".contains("'headcount' of Department is a derived attribute") }
    }

    @Test func derivedAttributesCanBeAddedNotChangedNorRemoved() throws {
        let old = try graphSchema(), new = try derivedSchema()
        try new.checkAdditive(over: old)
        #expect { try old.checkAdditive(over: new) } throws: { "\($0)".contains("derived attribute 'headcount' of entity 'Department' was removed") }
        let changed = try Schema(jsonText: derivedSchemaText.replacingOccurrences(of: "employees.@max.height", with: "employees.@min.height"))
        #expect { try changed.checkAdditive(over: new) } throws: { "\($0)".contains("derived attribute 'tallest' of entity 'Department' changed") }
    }
}

@Suite("Derived attributes: input and values")
struct DerivedInputTests {
    @Test func aDerivedAttributeGivenIsRefusedNamingItAndNothingIsAppended() throws {
        let store = try derivedStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.append([dept(1, "Sales")], author: "t")
        let refused: [ChangeRequest] = [
            .insert(entity: "Department", id: .int(2), values: ["name": .string("Ops"), "headcount": .int(3)]),
            .update(entity: "Department", id: .int(1), values: ["headcount": .int(3)]),
        ]
        for change in refused {
            #expect { try store.append([change], author: "t") } throws: { error in
                guard let e = error as? StoreError else { return false }
                return e.code == .invalidChange && "\(e)".contains("attribute 'headcount' of entity 'Department' is derived")
            }
        }
        #expect(try store.head == 1)
        // A context refuses it when staged.
        let context = try Context(store: store, name: "c")
        #expect(throws: StoreError.self) { try context.insert("Department", id: .int(2), values: ["name": .string("Ops"), "headcount": .int(3)]) }
        #expect(!context.hasChanges)
        // The JSON input names it, on its line.
        let line = #"{"insert": "Department", "id": 2, "values": {"name": "Ops", "headcount": 0}}"#
        #expect { _ = try AppendInput.parse(line, schema: try store.schema) } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.code == .derivedAttributeGiven && e.description.contains("'headcount'")
        }
    }

    @Test func derivedValuesAreComputedAtEveryPositionAndNeverLogged() throws {
        let store = try derivedStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.append([dept(1, "Sales"), emp("a", "Ann", department: 1, height: 180)], author: "t")
        try store.append([emp("b", "Bob", department: 1, height: 190), .update(entity: "Department", id: .int(1), values: ["name": .string("Ops")])], author: "t")
        try store.append([.update(entity: "Employee", id: .string("a"), values: ["department": .null])], author: "t")
        func derived(_ key: ObjectKey, at p: UInt64) throws -> ObjectValues? { try Context(store: store, name: "d", at: p).derivedValues(of: key) }
        let sales = ObjectKey(entity: "Department", id: .int(1)), ann = ObjectKey(entity: "Employee", id: .string("a"))
        #expect(try derived(sales, at: 1) == ["headcount": .int(1), "tallest": .int(180)])
        #expect(try derived(sales, at: 2) == ["headcount": .int(2), "tallest": .int(190)])
        #expect(try derived(sales, at: 3) == ["headcount": .int(1), "tallest": .int(190)])
        #expect(try derived(ann, at: 1) == ["deptName": .string("Sales")])
        #expect(try derived(ann, at: 2) == ["deptName": .string("Ops")])
        #expect(try derived(ann, at: 3) == ["deptName": .null])
        #expect(try derived(ObjectKey(entity: "Employee", id: .string("zz")), at: 3) == nil)
        // Not stored, not logged.
        #expect(try store.object(sales, at: 3)?["headcount"] == nil)
        for t in try store.transactions() {
            for change in t.changes {
                if case .insert(_, let v) = change { #expect(v["headcount"] == nil && v["deptName"] == nil) }
            }
        }
    }
}

@Suite("Derived attributes: views")
struct DerivedViewTests {
    @Test func aViewFiltersSortsAndSectionsByDerivedAttributesAndNamesThemInChanged() throws {
        let store = try derivedStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.append([dept(1, "Sales"), dept(2, "Ops"), dept(3, "Empty"), emp("a", "Ann", department: 1, height: 180),
                          emp("b", "Bob", department: 1), emp("c", "Cy", department: 2, height: 170)], author: "t")
        let context = try Context(store: store, name: "v")
        let byHeadcount = try context.makeResultsController(FetchRequest(
            entity: "Department", predicate: try ViewPredicate("headcount > 0"),
            sortDescriptors: [ViewSortDescriptor(key: "headcount", ascending: false), ViewSortDescriptor(key: "name")]))
        #expect(byHeadcount.fetchedObjects == [.int(1), .int(2)])
        #expect(byHeadcount.pathValues(of: .int(1)) == ["headcount": .int(2), "tallest": .int(180)])
        let byDepartment = try context.makeResultsController(FetchRequest(
            entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "name")], sectionKey: "deptName"))
        #expect(byDepartment.sections.map(\.name) == ["Ops", "Sales"])
        // The same views over the paths the attributes name: the same rows, in the same order.
        let twin = try context.makeResultsController(FetchRequest(
            entity: "Department", predicate: try ViewPredicate("employees.@count > 0"),
            sortDescriptors: [ViewSortDescriptor(key: "employees.@count", ascending: false), ViewSortDescriptor(key: "name")]))
        #expect(twin.snapshot == byHeadcount.snapshot)

        var sets: [ChangeSet] = []
        let o1 = byHeadcount.observe { if case .changes(let c) = $0 { sets.append(c) } }
        var sectioned: ChangeSet?
        let o2 = byDepartment.observe { if case .changes(let c) = $0 { sectioned = c } }
        defer { o1.cancel(); o2.cancel() }
        // Two join Ops: it moves above Sales (a move naming headcount); Sales is renamed: its employees are updated.
        let before = byHeadcount.snapshot, sectionsBefore = byDepartment.snapshot
        try store.append([emp("d", "Di", department: 2), emp("e", "Ed", department: 2, height: 200),
                          .update(entity: "Department", id: .int(1), values: ["name": .string("Admin")])], author: "t")
        try context.refresh()
        let change = try #require(sets.last)
        #expect(ChangeSetValidator.validate(change, from: before, to: byHeadcount.snapshot).isEmpty)
        #expect(byHeadcount.fetchedObjects == [.int(2), .int(1)])
        let moved = try #require(change.rowChanges.first { $0.id == .int(2) })
        #expect(moved.kind == .move && Set(moved.changed) == ["headcount", "tallest"])
        let renamed = try #require(change.rowChanges.first { $0.id == .int(1) })
        #expect(Set(renamed.changed) == ["name"])
        let s = try #require(sectioned)
        #expect(ChangeSetValidator.validate(s, from: sectionsBefore, to: byDepartment.snapshot).isEmpty)
        #expect(byDepartment.sections.map(\.name) == ["Admin", "Ops"])
        #expect(s.rowChanges.filter { $0.kind == .move }.allSatisfy { $0.changed == ["deptName"] })
        // Back in time, both ways: the views a recomputation gives.
        for (from, to) in [(UInt64(2), UInt64(1)), (1, 2)] {
            let travelling = try Context(store: store, name: "t", at: from)
            let c = try travelling.makeResultsController(byHeadcount.fetchRequest)
            let start = c.snapshot
            var set: ChangeSet?
            let o = c.observe { if case .changes(let x) = $0 { set = x } }
            try travelling.move(to: to)
            o.cancel()
            #expect(c.snapshot == (try Context(store: store, name: "at", at: to).makeResultsController(byHeadcount.fetchRequest).snapshot))
            if let set { #expect(ChangeSetValidator.validate(set, from: start, to: c.snapshot).isEmpty) }
        }
    }

    @Test func namedViewsOverDerivedAttributesAreStoredAndVerified() throws {
        let store = try derivedStore(views: #""big": {"entity": "Department", "where": "headcount >= 1", "sort": "headcount desc, name", "section": "tallest"}, "people": {"entity": "Employee", "sort": "deptName, name", "include": "deptName"}"#)
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        var g = SeededGenerator(stream: 3900)
        for _ in 0..<40 {
            let batch = try StoredPathViewTests.randomBatch({ try store.objects(of: $0).map(\.id) }, using: &g)
                .map { change -> ChangeRequest in  // this schema's employees have no salary
                    switch change {
                    case .insert(let e, let id, var v): v["salary"] = nil; return .insert(entity: e, id: id, values: v)
                    case .update(let e, let id, var v): v["salary"] = nil; return v.isEmpty ? .update(entity: e, id: id, values: ["name": .string("n")]) : .update(entity: e, id: id, values: v)
                    default: return change
                    }
                }
            _ = try? store.append(batch, author: "w")
            #expect(try store.verify().isOK)
            for name in ["big", "people"] {
                let stored = try Context(store: store, name: "s").makeResultsController(FetchRequest(try store.schema.views[name]!))
                #expect(stored.fetchedObjects == (try StoredPathViewTests.inMemory(store, name)))
            }
        }
        #expect(try store.storedViewStatistics().allSatisfy(\.isStored))
    }
}
