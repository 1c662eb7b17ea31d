import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

private let rulesEntities = ["Department", "Employee", "Project", "Task"]

/// Values without their nulls: a context's inserts, the store's rows and the model fill absent optional values in
/// different ways.
private func trimmed(_ values: ObjectValues?) -> ObjectValues? { values?.filter { $0.value != .null } }

/// A context shows what the delete rules of its staged deletes will do (DESIGN §10) exactly as the store will do it
/// when the changes are saved, wherever the context sits: checked after every staging against the store's own rules
/// run from scratch on the same changes (``RelationshipModelTests/Model``, which the store's log is checked against),
/// and against the store itself when the context saves.
@Suite("Delete rules: contexts, model-based")
struct ContextDeleteRuleModelTests {
    enum Placement: String, CaseIterable {
        /// At the head; other writers append while it stages; it refreshes and saves at the end of each round.
        case head
        /// Below the head, moving between older positions with its changes staged; never saves.
        case belowHead
        /// As `head`, finding referrers by reading entities (a store without the relationships index).
        case scanning
    }

    @Test(arguments: Placement.allCases, 0..<3)
    func aContextShowsWhatTheSaveWillDo(placement: Placement, stream: UInt64) throws {
        // Streams far apart: nearby streams of SeededGenerator are the same sequence a few draws apart.
        var g = SeededGenerator(stream: (3600 + stream * 3 + UInt64(Placement.allCases.firstIndex(of: placement)!)) << 32)
        let schema = try Schema(jsonText: deleteRulesSchemaText)
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let employees = (0..<10).map { "e\($0)" }, departments: [Int64] = [1, 2, 3, 4], projects: [Int64] = [1, 2, 3, 4, 5],
            tasks: [Int64] = [1, 2, 3, 4, 5, 6]
        func maybe<T>(_ xs: [T]) -> T? { Int.random(in: 0..<3, using: &g) == 0 ? nil : xs.randomElement(using: &g)! }
        func employeeRef() -> Value { maybe(employees).map(Value.string) ?? .null }
        func request() -> ChangeRequest {
            switch Int.random(in: 0..<16, using: &g) {
            case 0:
                return .insert(entity: "Department", id: .int(departments.randomElement(using: &g)!), values: ["name": .string("d")])
            case 1, 2:
                return .insert(entity: "Employee", id: .string(employees.randomElement(using: &g)!),
                               values: ["name": .string(["a", "b", "c"].randomElement(using: &g)!),
                                        "department": maybe(departments).map(Value.int) ?? .null, "manager": employeeRef(),
                                        "mentor": Bool.random(using: &g) ? employeeRef() : .null])
            case 3:
                return .insert(entity: "Project", id: .int(projects.randomElement(using: &g)!),
                               values: ["title": .string("p"), "owner": .int(departments.randomElement(using: &g)!), "lead": employeeRef()])
            case 4:
                return .insert(entity: "Task", id: .int(tasks.randomElement(using: &g)!),
                               values: ["title": .string("t"), "project": maybe(projects).map(Value.int) ?? .null])
            case 5:
                return .update(entity: "Employee", id: .string(employees.randomElement(using: &g)!),
                               values: ["name": .string(["a", "b", "c"].randomElement(using: &g)!)])
            case 6, 7:
                let relationship = ["department", "manager", "mentor"].randomElement(using: &g)!
                return .update(entity: "Employee", id: .string(employees.randomElement(using: &g)!),
                               values: [relationship: relationship == "department" ? maybe(departments).map(Value.int) ?? .null : employeeRef()])
            case 8:
                return .update(entity: "Project", id: .int(projects.randomElement(using: &g)!),
                               values: Bool.random(using: &g) ? ["lead": employeeRef()] : ["owner": .int(departments.randomElement(using: &g)!)])
            case 9:
                return .update(entity: "Task", id: .int(tasks.randomElement(using: &g)!), values: ["project": maybe(projects).map(Value.int) ?? .null])
            case 10, 11:
                return .delete(entity: "Employee", id: .string(employees.randomElement(using: &g)!))
            case 12, 13:
                return .delete(entity: "Department", id: .int(departments.randomElement(using: &g)!))
            case 14:
                return .delete(entity: "Project", id: .int(projects.randomElement(using: &g)!))
            default:
                return .delete(entity: "Task", id: .int(tasks.randomElement(using: &g)!))
            }
        }
        // A populated store, then a history of random transactions (each kept only if the store takes it).
        var setup: [ChangeRequest] = departments.map { .insert(entity: "Department", id: .int($0), values: ["name": .string("d\($0)")]) }
        for (i, e) in employees.enumerated() {
            setup.append(.insert(entity: "Employee", id: .string(e), values: [
                "name": .string(["a", "b", "c"][i % 3]), "department": .int(departments[i % 4]),
                "manager": i > 0 ? .string(employees[(i - 1) / 2]) : .null, "mentor": i > 2 && i % 3 == 0 ? .string(employees[i - 2]) : .null]))
        }
        for p in projects { setup.append(.insert(entity: "Project", id: .int(p), values: ["title": .string("p"), "owner": .int((p - 1) % 4 + 1), "lead": .string(employees[Int(p)])])) }
        for t in tasks { setup.append(.insert(entity: "Task", id: .int(t), values: ["title": .string("t"), "project": .int((t - 1) % 5 + 1)])) }
        try store.append(setup, author: "setup")
        func appendRandomTransaction() {
            _ = try? store.append((0..<Int.random(in: 1...3, using: &g)).map { _ in request() }, author: "other")
        }
        for _ in 0..<12 { appendRandomTransaction() }

        let context = try Context(store: store, name: "c", at: placement == .belowHead ? 1 + UInt64.random(in: 0..<6, using: &g) : nil)
        context.scansForReferrers = placement == .scanning
        let controllers = try [
            context.makeResultsController(FetchRequest(entity: "Employee", predicate: try ViewPredicate("department != nil"),
                                                       sortDescriptors: [ViewSortDescriptor(key: "name")])),
            context.makeResultsController(FetchRequest(entity: "Project")),
            context.makeResultsController(FetchRequest(entity: "Task")),
        ]
        var compared = 0, refused = 0, saved = 0

        /// The store's objects at `position` with `requests` applied as one transaction by the store's rules, and
        /// what it logs; `nil` when the store refuses them.
        func model(at position: UInt64, _ requests: [ChangeRequest]) throws -> RelationshipModelTests.Model? {
            var m = RelationshipModelTests.Model(schema: schema)
            for entity in rulesEntities {
                for (id, values) in try store.objects(of: entity, at: position) { m.objects[ObjectKey(entity: entity, id: id)] = values }
            }
            return m.apply(requests) == nil ? nil : m
        }

        /// Compares everything the context shows with the model of its staged changes at its position.
        func check(_ step: String) throws {
            try context.processPendingChanges()
            guard let expected = try model(at: context.position, context.staged.requests) else {
                refused += 1
                return
            }
            compared += 1
            for entity in rulesEntities {
                let shown = try context.objects(of: entity)
                let wanted = expected.objects.filter { $0.key.entity == entity }
                #expect(Dictionary(uniqueKeysWithValues: shown.map { (ObjectKey(entity: entity, id: $0.id), trimmed($0.values)!) })
                        == wanted.mapValues { trimmed($0)! },
                        "\(step): objects(of: \(entity)), staged \(context.staged.requests), \(g.rerunHint)")
                let ids = entity == "Employee" ? employees.map(ObjectID.string) : (entity == "Department" ? departments : entity == "Project" ? projects : tasks).map(ObjectID.int)
                for id in ids {
                    let key = ObjectKey(entity: entity, id: id)
                    #expect(trimmed(try context.object(key)) == trimmed(expected.objects[key]),
                            "\(step): object \(entity) \(id.json.text), staged \(context.staged.requests), \(g.rerunHint)")
                }
            }
            func name(_ values: ObjectValues) -> String {
                if case .string(let s)? = values["name"] { return s }
                return ""
            }
            let rows = expected.objects.filter { $0.key.entity == "Employee" && $0.value["department"] != .null }
                .sorted { (name($0.value), $0.key.id) < (name($1.value), $1.key.id) }.map(\.key.id)
            #expect(controllers[0].fetchedObjects == rows, "\(step): employees with a department, \(g.rerunHint)")
            for (controller, entity) in zip(controllers.dropFirst(), ["Project", "Task"]) {
                #expect(controller.fetchedObjects == expected.objects.keys.filter { $0.entity == entity }.map(\.id).sorted(),
                        "\(step): \(entity) rows, \(g.rerunHint)")
            }
        }

        for round in 0..<60 {
            for step in 0..<Int.random(in: 1...8, using: &g) {
                if placement != .belowHead && Int.random(in: 0..<6, using: &g) == 0 { appendRandomTransaction() }
                let r = request()
                do { try context.stage(r) } catch {
                    if case .invalidStagedChange = error { continue }  // the context refused it: nothing staged
                    throw error
                }
                try check("round \(round) step \(step), staged \(r)")
            }
            if placement == .belowHead {
                // Its changes stay staged while it moves: the rules' effects are those at the new position.
                try context.move(to: UInt64.random(in: 1...(try store.head), using: &g))
                try check("round \(round), moved to \(context.position)")
                if Bool.random(using: &g) { try context.rollback() }
                continue
            }
            try context.refresh()
            try check("round \(round), refreshed")
            let requests = context.staged.requests
            let expected = try model(at: context.position, requests)
            var logged = try model(at: context.position, [])!
            let log = logged.apply(requests)
            do {
                let transaction = try context.save()
                if let transaction {
                    #expect(outline(transaction) == log, "round \(round): the store logged \(outline(transaction)), \(g.rerunHint)")
                    saved += 1
                }
                for entity in rulesEntities {
                    let stored = try store.objects(of: entity).map { (ObjectKey(entity: entity, id: $0.id), trimmed($0.values)!) }
                    #expect(Dictionary(uniqueKeysWithValues: stored) == (expected?.objects ?? [:]).filter { $0.key.entity == entity }.mapValues { trimmed($0)! },
                            "round \(round): \(entity) as saved, \(g.rerunHint)")
                }
            } catch {
                #expect(expected == nil, "round \(round): the store refused \(requests): \(error), \(g.rerunHint)")
                try context.rollback()
            }
        }
        #expect(compared > 50 && refused < 4 * compared, "\(compared) checks, \(refused) refused")
        if placement != .belowHead { #expect(saved > 5) }
        #expect(try store.verify().isOK)
    }
}

/// DESIGN §10 "Cost", for a context: the effects of a staged delete are found through the relationships index, so
/// staging it reads the objects it reaches; a later staging that cannot change them reads nothing.
@Suite("Delete rules: contexts, cost")
struct ContextDeleteRuleCostTests {
    @Test(arguments: [false, true])
    func stagingAfterADeleteReadsOnlyWhatTheDeleteReaches(belowHead: Bool) throws {
        let store = try LogStore.create(at: newStorePath(), schema: try graphSchema(), options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let n = 6_000, k = 1_000
        var batch: [ChangeRequest] = (1...6).map { .insert(entity: "Department", id: .int(Int64($0)), values: ["name": .string("d\($0)")]) }
        for i in 0..<n {
            batch.append(.insert(entity: "Employee", id: .string("e\(i)"),
                                 values: ["name": .string("n\(i)"), "department": .int(Int64(i % 6 + 1)), "manager": .null]))
        }
        try store.append(batch, author: "t")
        let position = try store.head
        if belowHead {
            // After the context's position: ten of department 1's employees leave it and ten others join.
            try store.append((0..<10).map { .update(entity: "Employee", id: .string("e\($0 * 6)"), values: ["department": .int(2)]) }
                             + (0..<10).map { .update(entity: "Employee", id: .string("e\($0 * 6 + 1)"), values: ["department": .int(1)]) },
                             author: "other")
        }
        let context = try Context(store: store, name: "c", at: position)
        let members = try store.objects(of: "Employee", at: position).filter { $0.values["department"] == .int(1) }.map(\.id)
        #expect(members.count == k)

        // A member renamed before the delete is staged: a change the save makes before the delete's rules run.
        let early = ObjectKey(entity: "Employee", id: members[0])
        try context.update("Employee", id: early.id, values: ["name": .string("early")])
        try context.delete("Department", id: .int(1))
        #expect(context.deleteRuleObjectsRead == k)  // the department's employees at the position, each once
        for id in members { #expect(try context.object(ObjectKey(entity: "Employee", id: id))?["department"] == .null) }

        // A thousand renames after it: none can change what the delete does.
        var g = SeededGenerator(stream: 3700)
        for i in 0..<1_000 {
            let id = "e\(Int.random(in: 0..<n, using: &g))"
            try context.update("Employee", id: .string(id), values: ["name": .string("r\(i)")])
        }
        #expect(context.deleteRuleObjectsRead == k)
        // Nor can re-pointing employees after it: the save runs the rules before those changes.
        try context.update("Employee", id: .string("e2"), values: ["department": .int(1)])
        #expect(context.deleteRuleObjectsRead == k)
        #expect(try context.object(employee("e2"))?["department"] == .int(1))
        // Re-pointing the member staged before the delete changes what the rules do: they run again, reading what
        // they reach — the members in the index (the re-pointed one too, skipped by its staged value) and e2, whose
        // staged value names the department (skipped: the save re-points it after the rules ran).
        try context.update("Employee", id: early.id, values: ["department": .int(3)])
        #expect(context.deleteRuleObjectsRead == 2 * k + 1)
        #expect(try context.object(early)?["department"] == .int(3))
        #expect(try context.object(early)?["name"] == .string("early"))
        for id in members.dropFirst() { #expect(try context.object(ObjectKey(entity: "Employee", id: id))?["department"] == .null) }
    }
}
