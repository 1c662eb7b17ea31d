import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews
import ViewLogTesting

/// A schema with relationships (DESIGN §10): employees in departments, each with an optional manager; projects
/// owned by a department (required, cascading) and reviewed by an employee (deny).
let graphSchemaText = """
{"entities": {
  "Employee": {"id": "string", "attributes": {"name": {"type": "string"}, "height": {"type": "int", "optional": true}},
    "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"},
                      "manager": {"to": "Employee", "optional": true, "inverse": "reports"}}},
  "Department": {"id": "int", "attributes": {"name": {"type": "string"}, "floor": {"type": "int", "optional": true}}},
  "Project": {"id": "int", "attributes": {"title": {"type": "string"}},
    "relationships": {"owner": {"to": "Department", "onDelete": "cascade", "inverse": "projects"},
                      "reviewer": {"to": "Employee", "optional": true, "onDelete": "deny"}}}
}}
"""

func graphSchema() throws -> Schema { try Schema(jsonText: graphSchemaText) }

private func graphStore() throws -> LogStore {
    try LogStore.create(at: newStorePath(), schema: try graphSchema(), options: StoreOptions(durable: false))
}

private func emp(_ id: String, _ name: String, department: Int64? = nil, manager: String? = nil) -> ChangeRequest {
    .insert(entity: "Employee", id: .string(id), values: ["name": .string(name),
                                                          "department": department.map(Value.int) ?? .null,
                                                          "manager": manager.map(Value.string) ?? .null])
}

private func dept(_ id: Int64, _ name: String) -> ChangeRequest {
    .insert(entity: "Department", id: .int(id), values: ["name": .string(name)])
}

/// The changes of `t` as `op Entity id` lines, for comparing logged consequences (as ``RelationshipModelTests/Model``
/// logs them).
func outline(_ t: Transaction) -> [String] {
    t.changes.map { c in
        switch c {
        case .insert(let k, _): return "insert \(k.entity) \(k.id.json.text)"
        case .update(let k, let v, _): return "update \(k.entity) \(k.id.json.text) \(v.keys.sorted().joined(separator: ","))"
        case .delete(let k, _): return "delete \(k.entity) \(k.id.json.text)"
        case .schema, .migration: return "schema"
        }
    }
}

@Suite("Relationships: schema")
struct RelationshipSchemaTests {
    @Test func relationshipsAreStoredAsAttributesOfTheTargetsIDTypeWithTheirRules() throws {
        let schema = try graphSchema()
        let e = try schema.entity(named: "Employee")
        let department = try #require(e.attribute(named: "department"))
        #expect(department.type == .int && department.isOptional)
        #expect(department.relationship == Relationship(target: "Department", inverse: "employees", deleteRule: .nullify))
        let owner = try #require(try schema.entity(named: "Project").attribute(named: "owner"))
        #expect(owner.type == .int && !owner.isOptional && owner.relationship?.deleteRule == .cascade)
        #expect(e.attribute(named: "manager")?.type == .string)
        #expect(schema.inverse(named: "employees", of: "Department") == InverseRelationship(name: "employees", source: "Employee", relationship: "department", target: "Department"))
        #expect(schema.relationships(targeting: "Department").map { "\($0.source).\($0.relationship.name)" } == ["Employee.department", "Project.owner"])
        // The schema's JSON keeps them apart from attributes, and reads back the same.
        let text = schema.json.text
        #expect(text.contains("\"relationships\""))
        #expect(try Schema(jsonText: text) == schema)
    }

    @Test func defaultDeleteRulesFollowOptionality() throws {
        let schema = try Schema(jsonText: """
        {"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}, "c": {"to": "B"}}}, "B": {"id": "string"}}}
        """)
        let a = try schema.entity(named: "A")
        #expect(a.attribute(named: "b")?.relationship?.deleteRule == .nullify)
        #expect(a.attribute(named: "c")?.relationship?.deleteRule == .deny)
        #expect(a.attribute(named: "c")?.type == .string)
    }

    @Test(arguments: [
        (#"{"entities": {"A": {"relationships": {"b": {"to": "Nope"}}}}}"#, "relationship 'b' of entity 'A' names unknown entity 'Nope'"),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "onDelete": "nullify"}}}}}"#, "is required: its onDelete cannot be \"nullify\""),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "onDelete": "explode"}}}}}"#, "'onDelete' must be \"nullify\", \"cascade\" or \"deny\""),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "weight": 1}}}}}"#, "unknown key 'weight'"),
        (#"{"entities": {"A": {"relationships": {"b": {"optional": true}}}}}"#, "needs a \"to\""),
        (#"{"entities": {"A": {"attributes": {"x": "int"}, "relationships": {"b": {"to": "A", "optional": true, "inverse": "x"}}}}}"#, "inverse 'x' is already an attribute or relationship of A"),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "optional": true, "inverse": "r"}, "c": {"to": "A", "optional": true, "inverse": "r"}}}}}"#, "inverse 'r' of entity 'A' is declared twice"),
        (#"{"entities": {"A": {"attributes": {"b": "int"}, "relationships": {"b": {"to": "A", "optional": true}}}}}"#, "has attribute 'b' twice"),
    ])
    func badRelationshipsAreRefusedNamingThem(text: String, message: String) {
        #expect { try Schema(jsonText: text) } throws: { "\($0)".contains(message) }
    }

    @Test func evolutionAddsOptionalRelationshipsAndInversesOnly() throws {
        let old = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}}}, "B": {"id": "int"}}}"#)
        let withInverse = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true, "inverse": "as"}}}, "B": {"id": "int"}}}"#)
        try withInverse.checkAdditive(over: old)
        let newOptional = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}, "c": {"to": "A", "optional": true}}}, "B": {"id": "int"}}}"#)
        try newOptional.checkAdditive(over: old)
        let newRequired = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}, "c": {"to": "A", "onDelete": "cascade"}}}, "B": {"id": "int"}}}"#)
        #expect { try newRequired.checkAdditive(over: old) } throws: { "\($0)".contains("new relationship 'c' of entity 'A' is required") }
        let changedRule = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true, "onDelete": "cascade"}}}, "B": {"id": "int"}}}"#)
        #expect { try changedRule.checkAdditive(over: old) } throws: { "\($0)".contains("relationship 'b' of entity 'A' changed") }
    }
}

@Suite("Relationships: integrity and delete rules")
struct RelationshipIntegrityTests {
    @Test func orderWithinATransactionIsFreeAndValuesAreTheTargetsIDs() throws {
        let store = try graphStore()
        // An employee before its department; two employees naming each other.
        try store.append([emp("e1", "Ann", department: 7, manager: "e2"), emp("e2", "Bob", department: 7, manager: "e1"), dept(7, "Sales")], author: "t")
        #expect(try store.object(employee("e1"))?["department"] == .int(7))
        #expect(try store.object(employee("e2"))?["manager"] == .string("e1"))
        #expect(try store.verify().isOK)
    }

    @Test func aMissingTargetIsRefusedNamingTheObjectTheRelationshipAndTheID() throws {
        let store = try graphStore()
        try store.append([dept(7, "Sales")], author: "t")
        #expect {
            try store.append([TransactionRequest(author: "t", changes: [dept(8, "Ops")]),
                              TransactionRequest(author: "t", changes: [emp("e1", "Ann", department: 9)])])
        } throws: { error in
            guard case StoreError.invalidChange(1, 0, let reason) = error else { return false }
            return reason == "insert of Employee \"e1\": relationship 'department' names Department 9, which does not exist"
        }
        #expect(try store.head == 1)  // nothing appended, not even the first transaction
        try store.append([emp("e1", "Ann", department: 7)], author: "t")
        #expect { try store.append([.update(entity: "Employee", id: .string("e1"), values: ["manager": .string("zz")])], author: "t") }
            throws: { "\($0)".contains("update of Employee \"e1\": relationship 'manager' names Employee \"zz\", which does not exist") }
        // A wrong id type is refused by type, as for any attribute, in words of relationships.
        #expect { try store.append([.update(entity: "Employee", id: .string("e1"), values: ["department": .string("7")])], author: "t") }
            throws: { "\($0)".contains("relationship 'department' takes an id of Department (an integer), got a string") }
        let context = try Context(store: store, name: "t")
        #expect { try context.update("Employee", id: "e1", values: ["manager": 7]) }
            throws: { "\($0)".contains("relationship 'manager' takes an id of Employee (a string), got an int") }
    }

    @Test func nullifyAndCascadeAreLoggedRightAfterTheirDeleteInSection10sOrder() throws {
        let store = try graphStore()
        try store.append([dept(7, "Sales"), dept(8, "Ops"),
                          emp("b", "Bob", department: 7), emp("a", "Ann", department: 7, manager: "b"), emp("c", "Cy", department: 8),
                          .insert(entity: "Project", id: .int(10), values: ["title": .string("X"), "owner": .int(7)]),
                          .insert(entity: "Project", id: .int(2), values: ["title": .string("Y"), "owner": .int(7)])], author: "t")
        let t = try store.append([.delete(entity: "Department", id: .int(7)), .update(entity: "Employee", id: .string("c"), values: ["name": .string("Cyd")])], author: "t")
        // Referring entities in code-point order (Employee, Project), then relationships, then ids (2 before 10).
        #expect(outline(t) == ["delete Department 7", "update Employee \"a\" department", "update Employee \"b\" department",
                               "delete Project 2", "delete Project 10", "update Employee \"c\" name"])
        // Cascades run depth first; an object already deleted is skipped.
        let schema = try Schema(jsonText: #"{"entities": {"N": {"id": "int", "relationships": {"up": {"to": "N", "optional": true, "onDelete": "cascade"}}}}}"#)
        let tree = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        func n(_ id: Int64, _ up: Int64?) -> ChangeRequest { .insert(entity: "N", id: .int(id), values: ["up": up.map(Value.int) ?? .null]) }
        try tree.append([n(1, nil), n(2, 1), n(3, 2), n(4, 1), n(5, 3)], author: "t")
        let cascade = try tree.append([.delete(entity: "N", id: .int(1))], author: "t")
        #expect(outline(cascade) == ["delete N 1", "delete N 2", "delete N 3", "delete N 5", "delete N 4"])
        #expect(try tree.objects(of: "N").isEmpty)
        #expect(try tree.verify().isOK && store.verify().isOK)
        // The log alone replays it, forwards and backwards.
        #expect(try store.objects(of: "Employee", at: 1).count == 3)
        #expect(try store.object(employee("a"))?["department"] == .null)
    }

    @Test func denyRefusesUnlessTheReferrersAreGoneAtTheEndOfTheTransaction() throws {
        let store = try graphStore()
        try store.append([dept(7, "Sales"), emp("e1", "Ann", department: 7),
                          .insert(entity: "Project", id: .int(1), values: ["title": .string("X"), "owner": .int(7), "reviewer": .string("e1")])], author: "t")
        #expect { try store.append([.delete(entity: "Employee", id: .string("e1"))], author: "t") }
            throws: { "\($0)".contains("delete of Employee \"e1\": Project 1 still names it through 'reviewer' (onDelete: deny)") }
        // Re-pointed later in the same transaction: allowed.
        try store.append([.delete(entity: "Employee", id: .string("e1")),
                          .update(entity: "Project", id: .int(1), values: ["reviewer": .null])], author: "t")
        #expect(try store.verify().isOK)
    }

    @Test func importReplayAndVerbatimAppendsReproduceLoggedConsequences() throws {
        let store = try graphStore()
        try store.append([dept(7, "Sales"), emp("a", "Ann", department: 7),
                          .insert(entity: "Project", id: .int(1), values: ["title": .string("X"), "owner": .int(7)])], author: "t")
        try store.append([.delete(entity: "Department", id: .int(7))], author: "t")
        let replayed = try store.replay(into: newStorePath(), options: StoreOptions(durable: false))
        #expect(try replayed.transactions() == store.transactions())
        #expect(try replayed.verify().isOK)
        let copy = try graphStore()
        try copy.appendVerbatim(try store.transactions())
        #expect(try copy.verify().isOK)
        #expect(try copy.transactions(after: 1)[0].changes.count == 3)
    }

    @Test func verifyFindsADamagedOrMissingReferenceEntry() throws {
        let store = try graphStore()
        try store.append([dept(7, "Sales"), emp("a", "Ann", department: 7)], author: "t")
        let refs = try #require(store.refsDB)
        let key = ReferenceKey.key(target: ObjectKey(entity: "Department", id: .int(7)), source: employee("a"), relationship: "department")
        try store.environment.write { txn in _ = try txn.delete(refs, key: key) }
        #expect(try store.verify().problems.contains { $0.contains("no entry for Employee \"a\" naming Department 7 through 'department'") })
        try store.environment.write { txn in try txn.put(refs, key: key, value: [0, 0, 0, 0]) }
        #expect(try store.verify().problems.contains { $0.contains("does not match its checksum") })
        let stray = ReferenceKey.key(target: ObjectKey(entity: "Department", id: .int(7)), source: employee("zz"), relationship: "department")
        try store.environment.write { txn in
            try txn.put(refs, key: key, value: ReferenceKey.value(key: key, id: .string("a")))
            try txn.put(refs, key: stray, value: ReferenceKey.value(key: stray, id: .string("zz")))
        }
        #expect(try store.verify().problems == ["relationships index (refs): an entry of Employee \"zz\" naming Department 7 through 'department', but the object does not name it"])
    }

    /// LMDB keys are at most 511 bytes; names of 128 bytes and ids of 256 still index (long parts digested).
    @Test func longestNamesAndIDsStillIndex() throws {
        let long = String(repeating: "E", count: 128), rel = String(repeating: "r", count: 128)
        let schema = try Schema(jsonText: "{\"entities\": {\"\(long)\": {\"id\": \"string\", \"relationships\": {\"\(rel)\": {\"to\": \"\(long)\", \"optional\": true}}}}}")
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        let a = String(repeating: "a", count: 256), b = String(repeating: "a", count: 255) + "b", c = String(repeating: "a", count: 255) + "c"
        try store.append([.insert(entity: long, id: .string(a), values: [:]),
                          .insert(entity: long, id: .string(c), values: [rel: .string(a)]),
                          .insert(entity: long, id: .string(b), values: [rel: .string(a)])], author: "t")
        #expect(try store.verify().isOK)
        // The delete rule finds both referrers through the digested keys, in id order.
        let t = try store.append([.delete(entity: long, id: .string(a))], author: "t")
        #expect(t.changes.compactMap(\.key?.id) == [.string(a), .string(b), .string(c)])
        #expect(try store.verify().isOK)
    }

    @Test func referenceKeysDecodeTotally() throws {
        let key = ReferenceKey.key(target: ObjectKey(entity: "Department", id: .int(-3)), source: ObjectKey(entity: "Employee", id: .string("é")), relationship: "department")
        let value = ReferenceKey.value(key: key, id: .string("é"))
        let e = try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try ReferenceKey.decode(key: k, value: v) } }
        #expect(e == ReferenceKey.Entry(target: ObjectKey(entity: "Department", id: .int(-3)), source: ObjectKey(entity: "Employee", id: .string("é")), relationship: "department"))
        var g = SeededGenerator(stream: 27)
        for _ in 0..<2_000 {  // any bytes: a value or an error, never a trap
            var bytes = key, v = value
            for _ in 0..<Int.random(in: 1...4, using: &g) { bytes[Int.random(in: 0..<bytes.count, using: &g)] = UInt8.random(in: 0...255, using: &g) }
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &g)))
            v = Array(v.prefix(Int.random(in: 0...v.count, using: &g)))
            _ = bytes.withUnsafeBytes { k in v.withUnsafeBytes { try? ReferenceKey.decode(key: k, value: $0) } }
        }
    }
}

/// Random graph workloads against a plain model of DESIGN §10's rules: every transaction either appends exactly the
/// changes the model predicts (consequences included, in order) or is refused exactly when the model refuses it, and
/// the store's objects and relationships index stay equal to the model (verify).
/// Refreshes `live` to the head: the change set of each of its `controllers` (showing `requests`), each of which must
/// show what a fresh fetch shows and follow the UITableView rules.
func refreshChecked(_ live: Context, _ controllers: [ResultsController], _ requests: [FetchRequest],
                    _ context: @autoclosure () -> String) throws -> [ChangeSet?] {
    let befores = controllers.map(\.snapshot)
    var sets: [ChangeSet?] = Array(repeating: nil, count: controllers.count)
    let observations = controllers.enumerated().map { i, c in c.observe { if case .changes(let s) = $0 { sets[i] = s } } }
    try live.refresh()
    observations.forEach { $0.cancel() }
    for (i, c) in controllers.enumerated() {
        #expect(c.snapshot == (try Context(store: live.store, name: "fresh").makeResultsController(requests[i]).snapshot), "view \(i) \(context())")
        if let s = sets[i] { #expect(ChangeSetValidator.validate(s, from: befores[i], to: c.snapshot).isEmpty, "view \(i) \(context()) \(s)") }
    }
    return sets
}

/// Opens `request` in a context at `a` and moves the context to `b`: the controller, which must show the view opened
/// at `b`, and the change set of the move, which must follow the UITableView rules.
func moveChecked(_ store: LogStore, _ request: FetchRequest, from a: UInt64, to b: UInt64,
                 _ context: @autoclosure () -> String) throws -> (ResultsController, ChangeSet?) {
    let travel = try Context(store: store, name: "travel", at: a)
    let c = try travel.makeResultsController(request)
    let before = c.snapshot
    var set: ChangeSet?
    let o = c.observe { if case .changes(let s) = $0 { set = s } }
    try travel.move(to: b)
    o.cancel()
    #expect(c.snapshot == (try Context(store: store, name: "at", at: b).makeResultsController(request).snapshot), "\(context())")
    if let set { #expect(ChangeSetValidator.validate(set, from: before, to: c.snapshot).isEmpty, "\(context()) \(set)") }
    return (c, set)
}

/// The store and a model of it disagree on whether a transaction is appended.
struct ModelDisagreement: Error, CustomStringConvertible {
    let description: String
}

/// Appends `requests` as one transaction that a model says the store accepts (`accepts`) or refuses: the transaction
/// appended, or `nil` for a refusal that appended nothing; throws ``ModelDisagreement`` when the store does otherwise.
func appendAsTheModelSays(_ store: LogStore, _ requests: [ChangeRequest], accepts: Bool,
                          _ context: @autoclosure () -> String) throws -> Transaction? {
    let head = try store.head
    switch (accepts, Result { try store.append(requests, author: "m") }) {
    case (true, .success(let t)):
        return t
    case (false, .failure):
        #expect(try store.head == head, "a refused transaction appended, \(context())")
        return nil
    case (_, let result):
        throw ModelDisagreement(description: "model \(accepts ? "accepts" : "refuses"), store \(result), requests \(requests), \(context())")
    }
}

@Suite("Relationships: model-based")
struct RelationshipModelTests {
    struct Model {
        var objects: [ObjectKey: ObjectValues] = [:]
        let schema: Schema

        func referrers(of target: ObjectKey) -> [(ObjectKey, Attribute)] {
            var out: [(ObjectKey, Attribute)] = []
            for (source, a) in schema.relationships(targeting: target.entity) {
                let ids = objects.filter { $0.key.entity == source && $0.value[a.name].flatMap(ObjectID.init) == target.id }.map(\.key).sorted()
                out += ids.map { ($0, a) }
            }
            return out
        }

        /// Applies `requests` as one transaction; the logged outline, or `nil` when refused.
        mutating func apply(_ requests: [ChangeRequest]) -> [String]? {
            let saved = objects
            var log: [String] = []
            var deleted: [ObjectKey] = []
            var touched: Set<ObjectKey> = []
            func delete(_ key: ObjectKey) {
                objects[key] = nil
                log.append("delete \(key.entity) \(key.id.json.text)")
                deleted.append(key)
                for (source, a) in referrers(of: key) where objects[source] != nil {
                    switch a.relationship!.deleteRule {
                    case .nullify:
                        objects[source]![a.name] = .null
                        log.append("update \(source.entity) \(source.id.json.text) \(a.name)")
                    case .cascade: delete(source)
                    case .deny: break
                    }
                }
            }
            for r in requests {
                let key = r.key
                touched.insert(key)
                switch r {
                case .insert(_, _, let v):
                    guard objects[key] == nil else { objects = saved; return nil }
                    var full = v
                    for a in schema.entities[key.entity]!.attributes where full[a.name] == nil { full[a.name] = .null }
                    objects[key] = full
                    log.append("insert \(key.entity) \(key.id.json.text)")
                case .update(_, _, let v):
                    guard objects[key] != nil else { objects = saved; return nil }
                    for (k, x) in v { objects[key]![k] = x }
                    log.append("update \(key.entity) \(key.id.json.text) \(v.keys.sorted().joined(separator: ","))")
                case .delete:
                    guard objects[key] != nil else { objects = saved; return nil }
                    delete(key)
                case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
                }
            }
            for key in touched {
                guard let values = objects[key] else { continue }
                for a in schema.entities[key.entity]!.relationships {
                    if let id = values[a.name].flatMap(ObjectID.init), objects[ObjectKey(entity: a.relationship!.target, id: id)] == nil {
                        objects = saved
                        return nil
                    }
                }
            }
            for key in deleted {
                for (_, a) in referrers(of: key) where a.relationship!.deleteRule == .deny || objects[key] == nil {
                    objects = saved
                    return nil
                }
            }
            return log
        }
    }

    @Test(arguments: 0..<6)
    func randomGraphWorkloadsMatchTheModel(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2700 + stream)
        let schema = try graphSchema()
        let store = try LogStore.create(at: newStorePath(), schema: schema, options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        var model = Model(schema: schema)
        let employees = (0..<8).map { "e\($0)" }, departments: [Int64] = [1, 2, 3, 10], projects: [Int64] = [1, 2, 11]
        func maybe<T>(_ xs: [T]) -> T? { Bool.random(using: &g) && Bool.random(using: &g) ? nil : xs.randomElement(using: &g)! }
        func request() -> ChangeRequest {
            switch Int.random(in: 0..<10, using: &g) {
            case 0, 1:
                return .insert(entity: "Department", id: .int(departments.randomElement(using: &g)!), values: ["name": .string("d")])
            case 2, 3:
                return emp(employees.randomElement(using: &g)!, "n", department: maybe(departments), manager: maybe(employees))
            case 4:
                return .insert(entity: "Project", id: .int(projects.randomElement(using: &g)!),
                               values: ["title": .string("p"), "owner": .int(departments.randomElement(using: &g)!),
                                        "reviewer": maybe(employees).map(Value.string) ?? .null])
            case 5:
                return .update(entity: "Employee", id: .string(employees.randomElement(using: &g)!),
                               values: Bool.random(using: &g) ? ["department": maybe(departments).map(Value.int) ?? .null]
                                                              : ["manager": maybe(employees).map(Value.string) ?? .null])
            case 6:
                return .update(entity: "Project", id: .int(projects.randomElement(using: &g)!), values: ["reviewer": maybe(employees).map(Value.string) ?? .null])
            case 7:
                return .delete(entity: "Employee", id: .string(employees.randomElement(using: &g)!))
            case 8:
                return .delete(entity: "Department", id: .int(departments.randomElement(using: &g)!))
            default:
                return .delete(entity: "Project", id: .int(projects.randomElement(using: &g)!))
            }
        }
        var appended = 0
        for step in 0..<150 {
            let requests = (0..<Int.random(in: 1...4, using: &g)).map { _ in request() }
            let predicted = model.apply(requests)
            if let t = try appendAsTheModelSays(store, requests, accepts: predicted != nil, "step \(step), \(g.rerunHint)") {
                #expect(outline(t) == predicted, "step \(step), \(g.rerunHint)")
                appended += 1
            }
        }
        for entity in ["Employee", "Department", "Project"] {
            let stored = Dictionary(uniqueKeysWithValues: try store.objects(of: entity).map { (ObjectKey(entity: entity, id: $0.id), $0.values) })
            #expect(stored == model.objects.filter { $0.key.entity == entity }, "\(entity), \(g.rerunHint)")
        }
        #expect(try store.verify().isOK)
        #expect(appended > 10)
    }
}

/// Views over key paths (DESIGN §10): a related object's change reaches the rows that reach it, in every context,
/// at every position, in both directions, exactly as a recomputation says and by the UITableView rules.
@Suite("Relationships: views over key paths")
struct KeyPathViewTests {
    @Test(arguments: [
        ("manager.manager.manager.department.name", "more than 3 relationships"),
        ("department.nme", "Department has no attribute or relationship 'nme'"),
        ("name.length", "'name' of Employee is an attribute, not a relationship"),
        ("department.employees", "is a to-many relationship"),
    ])
    func badKeyPathsAreRefusedWhenTheViewIsMade(path: String, message: String) throws {
        let schema = try graphSchema()
        let request = FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: path)])
        #expect { try request.validate(against: schema) } throws: { "\($0)".contains(message) }
        // A named view is checked when the schema is given.
        let text = String(graphSchemaText.dropLast()) + ", \"views\": {\"v\": {\"entity\": \"Employee\", \"sort\": \"\(path)\"}}}"
        #expect { try Schema(jsonText: text) } throws: { "\($0)".contains(message) }
    }

    @Test func aSiblingContextsRenameMovesExactlyTheRowsSectionedByTheDepartmentsName() throws {
        let store = try graphStore()
        try store.append([dept(1, "Sales"), dept(2, "Ops"), emp("a", "Ann", department: 1), emp("b", "Bob", department: 2),
                          emp("c", "Cy", department: 1), emp("d", "Di")], author: "t")
        let main = try Context(store: store, name: "main")
        let request = FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")],
                                   sectionKey: "department.name")
        let controller = try main.makeResultsController(request)
        #expect(controller.snapshot.sections.map(\.rows) == [[.string("d")], [.string("b")], [.string("a"), .string("c")]])
        var changes: [ChangeSet] = []
        let observation = controller.observe { if case .changes(let c) = $0 { changes.append(c) } }
        defer { observation.cancel() }
        // A sibling context renames Sales to Alpha: a and c move to the section before Ops.
        let sibling = try Context(store: store, name: "sibling")
        try sibling.update("Department", id: .int(1), values: ["name": .string("Alpha")])
        try sibling.save()
        let before = controller.snapshot
        try main.refresh()
        let after = controller.snapshot
        #expect(after.sections.map(\.rows) == [[.string("d")], [.string("a"), .string("c")], [.string("b")]])
        let change = try #require(changes.last)
        #expect(ChangeSetValidator.validate(change, from: before, to: after).isEmpty)
        #expect(Set(change.rowChanges.map(\.id)) == [.string("a"), .string("c")])
        #expect(change.rowChanges.allSatisfy { $0.changed.contains("department.name") })
        // Another process's view of it: a fresh context at the head agrees.
        #expect(try Context(store: store, name: "fresh").makeResultsController(request).snapshot == after)
        #expect(controller.pathValues(of: .string("a")) == ["department.name": .string("Alpha")])
    }

    /// The views of ``randomGraphWorkloadsKeepEveryKeyPathViewEqualToARecomputation(stream:)``.
    static func keyPathRequests() throws -> [FetchRequest] {
        [
            FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")], sectionKey: "department.name"),
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("department.floor > 1 OR manager.department.name == 'd1'"),
                         sortDescriptors: [ViewSortDescriptor(key: "manager.name", ascending: false)], limit: 3, offset: 1),
            FetchRequest(entity: "Project", predicate: try ViewPredicate("owner.name != 'd0'"), sortDescriptors: [ViewSortDescriptor(key: "reviewer.department.floor")],
                         sectionKey: "owner.floor"),
            FetchRequest(entity: "Department", predicate: try ViewPredicate("ANY employees.name == 'n1' OR NONE projects.title == 'p'"),
                         sortDescriptors: [ViewSortDescriptor(key: "employees.@count", ascending: false), ViewSortDescriptor(key: "employees.@max.name")],
                         sectionKey: "projects.@count"),
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("ALL reports.name != 'n0' AND department.employees.@count > 1"),
                         sortDescriptors: [ViewSortDescriptor(key: "reports.@min.name")], includes: ["manager.reports.@count"]),
        ]
    }

    @Test(arguments: 0..<4)
    func randomGraphWorkloadsKeepEveryKeyPathViewEqualToARecomputation(stream: UInt64) throws {
        let store = try graphStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try Self.checkRandomWorkload(store, requests: try Self.keyPathRequests(), stream: 2710 + stream)
    }

    /// Derived attributes (DESIGN §10) in views, in the same workloads: each view over them is checked as every view
    /// is, and at every step and position it equals its twin — the view written with the key paths the attributes
    /// name, and including the paths of the entity's other derived attributes (which every view of it carries) — row
    /// for row, value for value, and change for change (`changed` naming the derived attribute where the twin names
    /// its path).
    @Test(arguments: 0..<3)
    func randomGraphWorkloadsKeepViewsOverDerivedAttributesEqualToTheirKeyPaths(stream: UInt64) throws {
        let store = try LogStore.create(at: newStorePath(), schema: try derivedSchema(), options: StoreOptions(durable: false))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let paths = ["headcount": "employees.@count", "tallest": "employees.@max.height", "deptName": "department.name"]
        func path(_ key: String) -> String { paths[key] ?? key }
        let derived: [FetchRequest] = [
            FetchRequest(entity: "Department", predicate: try ViewPredicate("headcount > 0 OR tallest == nil"),
                         sortDescriptors: [ViewSortDescriptor(key: "headcount", ascending: false), ViewSortDescriptor(key: "name")], sectionKey: "tallest"),
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("deptName != 'd2'"),
                         sortDescriptors: [ViewSortDescriptor(key: "deptName"), ViewSortDescriptor(key: "name")], sectionKey: "deptName", limit: 4),
            FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "height", ascending: false)], includes: ["deptName", "manager.name"]),
        ]
        let twins: [FetchRequest] = [
            FetchRequest(entity: "Department", predicate: try ViewPredicate("employees.@count > 0 OR employees.@max.height == nil"),
                         sortDescriptors: [ViewSortDescriptor(key: "employees.@count", ascending: false), ViewSortDescriptor(key: "name")],
                         sectionKey: "employees.@max.height"),
            FetchRequest(entity: "Employee", predicate: try ViewPredicate("department.name != 'd2'"),
                         sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")], sectionKey: "department.name", limit: 4),
            FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "height", ascending: false)], includes: ["department.name", "manager.name"]),
        ]
        func renamed(_ set: ChangeSet?) -> [String]? {
            set.map { s in s.rowChanges.map { "\($0.kind) \($0.id) \(String(describing: $0.from)) \(String(describing: $0.to)) \(Set($0.changed.map(path)).sorted())" } }
        }
        try Self.checkRandomWorkload(store, requests: try Self.keyPathRequests() + derived + twins, stream: 2720 + stream) { controllers, sets, step in
            let n = derived.count, k = controllers.count - 2 * n
            for i in 0..<n {
                let (d, t) = (controllers[k + i], controllers[k + n + i])
                #expect(d.snapshot == t.snapshot, "derived view \(i) \(step)")
                for id in d.fetchedObjects {
                    // The twin, on the same schema, carries the derived attributes too: its paths are what they are.
                    let values = d.pathValues(of: id) ?? [:], twin = (t.pathValues(of: id) ?? [:]).filter { paths[$0.key] == nil }
                    #expect(Dictionary(values.map { (path($0.key), $0.value) }) { a, b in a == b ? a : .string("differ") } == twin,
                            "derived view \(i) \(step) \(id)")
                }
                #expect(renamed(sets[k + i]) == renamed(sets[k + n + i]), "derived view \(i) \(step)")
            }
        }
    }

    /// Random graph workloads from `stream` on `store`, with `requests` as library controllers of a context that
    /// follows them: after each append every controller equals a recomputation and its change set is valid (and
    /// `compare` sees the controllers and their change sets); then moves between random positions, both ways.
    static func checkRandomWorkload(_ store: LogStore, requests: [FetchRequest], stream: UInt64,
                                    compare: ([ResultsController], [ChangeSet?], String) throws -> Void = { _, _, _ in }) throws {
        var g = SeededGenerator(stream: stream)
        let ids = (0..<6).map { "e\($0)" }
        func value<T>(_ xs: [T]) -> T { xs.randomElement(using: &g)! }
        let live = try Context(store: store, name: "live")
        var controllers = try requests.map { try live.makeResultsController($0) }
        for step in 0..<60 {
            var batch: [ChangeRequest] = []
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                switch Int.random(in: 0..<6, using: &g) {
                case 0: batch.append(.insert(entity: "Department", id: .int(value([1, 2, 3])), values: ["name": .string("d\(value([0, 1, 2]))"), "floor": value([.null, .int(1), .int(2)])]))
                case 1: batch.append(.update(entity: "Department", id: .int(value([1, 2, 3])), values: Bool.random(using: &g) ? ["name": .string("d\(value([0, 1, 2]))")] : ["floor": value([.null, .int(1), .int(3)])]))
                case 2: batch.append(emp(value(ids), "n\(value([0, 1, 2]))", department: value([nil, 1, 2, 3]), manager: value([nil] + ids)))
                case 3: batch.append(.update(entity: "Employee", id: .string(value(ids)), values: value([["department": value([.null, .int(1), .int(2)])], ["manager": value([.null, .string("e0"), .string("e1")])], ["name": .string("n\(value([0, 1, 2]))")], ["height": value([.null, .int(150), .int(190)])]])))
                case 4: batch.append(.insert(entity: "Project", id: .int(value([1, 2])), values: ["title": .string("p"), "owner": .int(value([1, 2, 3])), "reviewer": value([.null, .string("e0"), .string("e2")])]))
                default: batch.append(value([.delete(entity: "Department", id: .int(value([1, 2, 3]))), .delete(entity: "Employee", id: .string(value(ids)))]))
                }
            }
            _ = try? store.append(batch, author: "w")
            let sets = try refreshChecked(live, controllers, requests, "step \(step), \(g.rerunHint)")
            try compare(controllers, sets, "step \(step), \(g.rerunHint)")
            if step % 20 == 19 { controllers = try requests.map { try live.makeResultsController($0) } }
        }
        // Time travel both ways between random positions: a move gives the view a recomputation gives.
        let head = try store.head
        for _ in 0..<12 {
            let a = UInt64.random(in: 0...head, using: &g), b = UInt64.random(in: 0...head, using: &g)
            var moved: [ResultsController] = [], sets: [ChangeSet?] = []
            for (i, request) in requests.enumerated() {
                let (c, set) = try moveChecked(store, request, from: a, to: b, "view \(i) \(a)→\(b), \(g.rerunHint)")
                moved.append(c)
                sets.append(set)
            }
            try compare(moved, sets, "\(a)→\(b), \(g.rerunHint)")
        }
    }
}

@Suite("Relationships: quantifiers and aggregates")
struct QuantifierAggregateTests {
    @Test func aggregatesAndQuantifiersFollowSection10sNullRules() throws {
        let store = try graphStore()
        try store.append([dept(1, "Sales"), dept(2, "Ops"), dept(3, "Empty"),
                          .insert(entity: "Employee", id: .string("a"), values: ["name": .string("Ann"), "height": .int(195), "department": .int(1)]),
                          .insert(entity: "Employee", id: .string("b"), values: ["name": .string("Bob"), "height": .null, "department": .int(1)]),
                          .insert(entity: "Employee", id: .string("c"), values: ["name": .string("Cy"), "height": .int(170), "department": .int(2)]),
                          .insert(entity: "Employee", id: .string("d"), values: ["name": .string("Di")])], author: "t")
        let context = try Context(store: store, name: "q")
        func ids(_ predicate: String, _ entity: String = "Department") throws -> [ObjectID] {
            try context.makeResultsController(FetchRequest(entity: entity, predicate: try ViewPredicate(predicate))).fetchedObjects
        }
        #expect(try ids("ANY employees.height > 190") == [.int(1)])
        #expect(try ids("SOME employees.height > 190") == [.int(1)])
        // ALL over the empty set is true; a null member compares false.
        #expect(try ids("ALL employees.height > 100") == [.int(2), .int(3)])
        #expect(try ids("NONE employees.height > 190") == [.int(2), .int(3)])
        #expect(try ids("employees.@count == 0") == [.int(3)])
        // Through a null relationship: an aggregate is null, a quantifier ranges over nothing.
        #expect(try ids("department.employees.@count == nil", "Employee") == [.string("d")])
        #expect(try ids("ALL department.employees.height > 500", "Employee") == [.string("d")])
        let controller = try context.makeResultsController(FetchRequest(entity: "Department", sortDescriptors: [ViewSortDescriptor(key: "name")],
                                                                          includes: ["employees.@count", "employees.@sum.height", "employees.@avg.height", "employees.@min.name", "employees.@max.height"]))
        #expect(controller.pathValues(of: .int(1)) == ["employees.@count": .int(2), "employees.@sum.height": .int(195), "employees.@avg.height": .double(195),
                                                       "employees.@min.name": .string("Ann"), "employees.@max.height": .int(195)])
        #expect(controller.pathValues(of: .int(3)) == ["employees.@count": .int(0), "employees.@sum.height": .int(0), "employees.@avg.height": .null,
                                                       "employees.@min.name": .null, "employees.@max.height": .null])
        // An employee joining a department updates its aggregates: one update, the paths in `changed`.
        var last: ChangeSet?
        let o = controller.observe { if case .changes(let c) = $0 { last = c } }
        defer { o.cancel() }
        try store.append([.update(entity: "Employee", id: .string("d"), values: ["department": .int(3), "height": .int(150)])], author: "t")
        try context.refresh()
        let change = try #require(last)
        #expect(change.rowChanges.map(\.id) == [.int(3)])
        #expect(change.rowChanges.first?.changed == ["employees.@avg.height", "employees.@count", "employees.@max.height", "employees.@min.name", "employees.@sum.height"])
    }

    @Test(arguments: [
        ("employees", "unknown sort key 'employees'"),
        ("employees.@median.height", "unknown aggregate '@median'"),
        ("employees.@sum.name", "@sum takes an int or double attribute"),
        ("employees.@count.name", "@count ends a path"),
    ])
    func badAggregatesAreRefused(path: String, message: String) throws {
        let request = FetchRequest(entity: "Department", sortDescriptors: [ViewSortDescriptor(key: path)])
        #expect { try request.validate(against: try graphSchema()) } throws: { "\($0)".contains(message) }
    }

    @Test func aQuantifierNeedsAToManyPathAndQuantifiedKeysAreNotShown() throws {
        #expect { try FetchRequest(entity: "Employee", predicate: try ViewPredicate("ANY department.name == 'x'")).validate(against: try graphSchema()) }
            throws: { "\($0)".contains("a quantifier needs a to-many relationship") }
        #expect { try ViewPredicate("ANY 3 > 2") } throws: { "\($0)".contains("ANY needs a to-many key path") }
        // The text round-trips.
        let p = try ViewPredicate("ANY employees.height > 190 AND name == 'x'")
        #expect(try ViewPredicate(p.expression.description).expression == p.expression)
    }
}

@Suite("Relationships: incremental")
struct IncrementalKeyPathTests {
    /// DESIGN §10 "Cost": renaming a department with k employees evaluates the k rows that reach it, through the
    /// relationships index, not the n rows of the view; a member joining a department, the rows of its department.
    @Test func aRenameEvaluatesOnlyTheRowsThatReachTheDepartment() throws {
        let store = try graphStore()
        var batch: [ChangeRequest] = (1...10).map { dept(Int64($0), "d\($0)") }
        for i in 0..<1_000 { batch.append(emp("e\(i)", "n\(i)", department: Int64(i % 10 + 1))) }
        try store.append(batch, author: "t")
        let context = try Context(store: store, name: "c")
        let byDepartment = try context.makeResultsController(FetchRequest(
            entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")], sectionKey: "department.name"))
        let departments = try context.makeResultsController(FetchRequest(
            entity: "Department", sortDescriptors: [ViewSortDescriptor(key: "employees.@count")]))
        let relational = try #require(byDepartment.relational), counts = try #require(departments.relational)
        let start = relational.rowsEvaluated, startCounts = counts.rowsEvaluated
        try store.append([.update(entity: "Department", id: .int(3), values: ["name": .string("zz")])], author: "t")
        try context.refresh()
        #expect(relational.rowsEvaluated - start == 100)
        #expect(byDepartment.sections.last?.name == "zz" && byDepartment.sections.last?.numberOfObjects == 100)
        #expect(counts.rowsEvaluated - startCounts <= 1)  // the renamed department itself
        // A member moving between departments: its own row, and the two departments' aggregates.
        let before = (relational.rowsEvaluated, counts.rowsEvaluated)
        try store.append([.update(entity: "Employee", id: .string("e0"), values: ["department": .int(2)])], author: "t")
        try context.refresh()
        #expect(relational.rowsEvaluated - before.0 == 1)
        #expect(counts.rowsEvaluated - before.1 == 2)
        #expect(departments.fetchedObjects.last == .int(2))
        #expect(try Context(store: store, name: "fresh").makeResultsController(byDepartment.fetchRequest).snapshot == byDepartment.snapshot)
    }
}

@Suite("Relationships: contexts")
struct RelationshipContextTests {
    /// As Core Data shows its delete rules' effects when it processes pending changes, a context staging a delete
    /// shows its consequences to its controllers before the save — and the save logs exactly them.
    @Test func aStagedDeleteShowsItsConsequencesWhenPendingChangesAreProcessed() throws {
        let store = try graphStore()
        try store.append([dept(1, "Sales"), dept(2, "Ops"), emp("a", "Ann", department: 1), emp("b", "Bob", department: 2),
                          .insert(entity: "Project", id: .int(7), values: ["title": .string("X"), "owner": .int(1)])], author: "t")
        let context = try Context(store: store, name: "c")
        let employees = try context.makeResultsController(FetchRequest(entity: "Employee", predicate: try ViewPredicate("department != nil"),
                                                                         sortDescriptors: [ViewSortDescriptor(key: "name")]))
        let projects = try context.makeResultsController(FetchRequest(entity: "Project"))
        #expect(employees.fetchedObjects == [.string("a"), .string("b")] && projects.fetchedObjects == [.int(7)])
        try context.delete("Department", id: .int(1))
        try context.processPendingChanges()
        // Ann's department is nullified (she leaves the view), the project cascades away — before any save.
        #expect(employees.fetchedObjects == [.string("b")])
        #expect(projects.fetchedObjects.isEmpty)
        #expect(try context.object(employee("a"))?["department"] == .null)
        let saved = try #require(try context.save())
        #expect(outline(saved) == ["delete Department 1", "update Employee \"a\" department", "delete Project 7"])
        #expect(employees.fetchedObjects == [.string("b")] && projects.fetchedObjects.isEmpty)
        // A rollback brings them back.
        try context.delete("Department", id: .int(2))
        try context.processPendingChanges()
        #expect(employees.fetchedObjects.isEmpty)
        try context.rollback()
        #expect(employees.fetchedObjects == [.string("b")])
    }
}

@Suite("Relationships: typed models")
struct TypedRelationshipTests {
    struct Department: EntityType, Equatable {
        static let entityName = "Department"
        var id: Int
        var name: String
    }
    struct Employee: EntityType, Equatable {
        static let entityName = "Employee"
        var id: String
        var name: String
        var department: ToOne<Department>?
        var manager: ToOne<Employee>?
    }

    @Test func aTypedToOneIsTheTargetsIDAndItsInverseReadsBack() throws {
        let store = try graphStore()
        let context = try Context(store: store, name: "typed")
        let sales = Department(id: 7, name: "Sales")
        try context.insert(sales)
        try context.insert(Employee(id: "a", name: "Ann", department: ToOne(sales), manager: nil))
        try context.insert(Employee(id: "b", name: "Bob", department: ToOne(7), manager: ToOne("a")))
        try context.save()
        #expect(try store.object(employee("b"))?["department"] == .int(7))
        let bob = try #require(try context.object(Employee.self, id: "b"))
        #expect(try context.object(try #require(bob.department)) == sales)
        #expect(try context.object(try #require(bob.manager))?.name == "Ann")
        #expect(try context.inverse("employees", of: sales, as: Employee.self).map(\.id) == ["a", "b"])
        let ann = try #require(try context.object(Employee.self, id: "a"))
        #expect(try context.inverse("reports", of: ann, as: Employee.self).map(\.id) == ["b"])
        #expect { try context.inverse("staff", of: sales, as: Employee.self) } throws: { "\($0)".contains("has no inverse 'staff'") }
    }
}

@Suite("Relationships: damage")
struct RelationshipDamageTests {
    /// A damaged relationships index while a view over key paths follows a move: the view reloads at the new
    /// position and says why (``ResultsController/followError``), never traps on a position mismatch (it did).
    @Test func aDamagedIndexReloadsTheViewAndNamesTheError() throws {
        let store = try graphStore()
        try store.append([dept(1, "Sales"), emp("a", "Ann", department: 1)], author: "t")
        let context = try Context(store: store, name: "c")
        let controller = try context.makeResultsController(FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name")]))
        var events: [ViewEvent] = []
        let o = controller.observe { events.append($0) }
        defer { o.cancel() }
        let refs = try #require(store.refsDB)
        let key = ReferenceKey.key(target: ObjectKey(entity: "Department", id: .int(1)), source: employee("a"), relationship: "department")
        try store.environment.write { txn in try txn.put(refs, key: key, value: [1, 2, 3, 4, 5]) }
        try store.append([.update(entity: "Department", id: .int(1), values: ["name": .string("Ops")])], author: "t")
        try context.refresh()
        #expect(controller.followError.map { "\($0)".contains("relationships index") } == true)
        #expect(controller.position == 2)
        #expect(events.contains { if case .reload = $0 { return true }; return false })
        // The view goes on following later moves.
        try store.environment.write { txn in try txn.put(refs, key: key, value: ReferenceKey.value(key: key, id: .string("a"))) }
        try store.append([.insert(entity: "Employee", id: .string("b"), values: ["name": .string("Bob")])], author: "t")
        try context.refresh()
        #expect(controller.fetchedObjects == [.string("b"), .string("a")])
    }
}

/// Graph workloads through contexts (DESIGN §6 with §10): two contexts stage random changes — deletes whose rules
/// touch objects the other staged, re-pointed relationships — and save in turn under random merge policies. Whatever
/// a policy decides, the store keeps its integrity and index (verify), a refused save appends nothing, and each
/// context's views over key paths equal a recomputation after every save and refresh, and each batch is valid by the
/// UITableView rules.
@Suite("Relationships: contexts and merge policies")
struct RelationshipContextModelTests {
    @Test(arguments: 0..<3)
    func contextsUnderEveryMergePolicyKeepTheGraphAndTheirViewsRight(stream: UInt64) throws {
        var g = SeededGenerator(stream: 2790 + stream)
        let store = try graphStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        try store.append([dept(1, "d1"), dept(2, "d2"), dept(3, "d3"), emp("e0", "n0", department: 1), emp("e1", "n1", department: 2, manager: "e0"),
                          .insert(entity: "Project", id: .int(1), values: ["title": .string("p"), "owner": .int(1)])], author: "seed")
        let requests: [FetchRequest] = [
            FetchRequest(entity: "Employee", sortDescriptors: [ViewSortDescriptor(key: "department.name"), ViewSortDescriptor(key: "name")], sectionKey: "department.name"),
            FetchRequest(entity: "Department", predicate: try ViewPredicate("ANY employees.name != 'n9'"), sortDescriptors: [ViewSortDescriptor(key: "employees.@count")],
                         includes: ["projects.@count"]),
        ]
        let contexts = try [Context(store: store, name: "a"), Context(store: store, name: "b")]
        var views = try contexts.map { c in try requests.map { try c.makeResultsController($0) } }
        let policies: [MergePolicy] = [.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback]
        func value<T>(_ xs: [T]) -> T { xs.randomElement(using: &g)! }
        var saved = 0, refused = 0
        for step in 0..<40 {
            let c = value([0, 1])
            let context = contexts[c]
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                let request: ChangeRequest
                switch Int.random(in: 0..<6, using: &g) {
                case 0: request = .update(entity: "Department", id: .int(value([1, 2, 3])), values: ["name": .string("d\(value([1, 2, 3, 4]))")])
                case 1: request = .delete(entity: "Department", id: .int(value([1, 2, 3])))
                case 2: request = .insert(entity: "Department", id: .int(value([1, 2, 3])), values: ["name": .string("d0")])
                case 3: request = emp("e\(value([0, 1, 2, 3]))", "n\(value([0, 1, 2]))", department: value([nil, 1, 2, 3]), manager: value([nil, "e0", "e1"]))
                case 4: request = .update(entity: "Employee", id: .string("e\(value([0, 1, 2, 3]))"), values: ["department": value([.null, .int(1), .int(2), .int(3)])])
                default: request = .delete(entity: "Employee", id: .string("e\(value([0, 1, 2, 3]))"))
                }
                try? context.stage(request)  // a request the context refuses (no such object, …) is not staged
            }
            context.mergePolicy = value(policies)
            let head = try store.head
            // Each batch of the saving context's views is checked against the snapshots around it.
            var last = views[c].map(\.snapshot)
            let observations = views[c].enumerated().map { i, v in
                v.observe { event in
                    if case .changes(let s) = event {
                        #expect(ChangeSetValidator.validate(s, from: last[i], to: v.snapshot).isEmpty, "view \(i) step \(step)")
                    }
                    last[i] = v.snapshot
                }
            }
            do {
                try context.processPendingChanges()
                if try context.save() != nil { saved += 1 }
            } catch {
                refused += 1
                #expect(try store.head == head, "a refused save appended, step \(step), \(g.rerunHint)")
                try context.rollback()
            }
            observations.forEach { $0.cancel() }
            for other in contexts { try other.refresh() }
            #expect(try store.verify().isOK, "step \(step), \(g.rerunHint)")
            for (k, ctx) in contexts.enumerated() {
                for (i, request) in requests.enumerated() {
                    let fresh = try Context(store: store, name: "fresh", at: ctx.position).makeResultsController(request)
                    #expect(views[k][i].snapshot == fresh.snapshot, "context \(k) view \(i) step \(step), \(g.rerunHint)")
                }
            }
            if step % 15 == 14 { views = try contexts.map { c in try requests.map { try c.makeResultsController($0) } } }
        }
        #expect(saved > 5)
    }
}

/// Items with tags and tags with items (DESIGN §10, many-to-many): `Item.tags` is a stored to-many relationship and
/// `Tag.items` its to-many inverse.
let tagsSchemaText = """
{"entities": {
  "Item": {"id": "string", "attributes": {"name": {"type": "string"}, "price": {"type": "double", "optional": true}},
    "relationships": {"tags": {"to": "Tag", "toMany": true, "inverse": "items"},
                      "favorites": {"to": "Tag", "toMany": true, "onDelete": "deny"}}},
  "Tag": {"id": "int", "attributes": {"name": {"type": "string"}}}
}}
"""

@Suite("Many-to-many: schema")
struct ManyToManySchemaTests {
    @Test func aToManyRelationshipIsASetOfTheTargetsIDsWithAToManyInverse() throws {
        let schema = try Schema(jsonText: tagsSchemaText)
        let item = try schema.entity(named: "Item")
        let tags = try #require(item.attribute(named: "tags"))
        #expect(tags.type == .int && !tags.isOptional && tags.isToMany)
        #expect(tags.relationship == Relationship(target: "Tag", isToMany: true, inverse: "items", deleteRule: .nullify),
                "nullify is a to-many's default delete rule")
        #expect(item.attribute(named: "favorites")?.relationship?.deleteRule == .deny)
        #expect(schema.inverse(named: "items", of: "Tag") == InverseRelationship(name: "items", source: "Item", relationship: "tags",
                                                                                target: "Tag", invertsToMany: true))
        #expect(schema.relationships(targeting: "Tag").map(\.relationship.name) == ["favorites", "tags"])
        // The schema's JSON says "toMany" and reads back the same.
        let text = schema.json.text
        #expect(text.contains(#""tags": {"to": "Tag", "toMany": true, "inverse": "items", "onDelete": "nullify"}"#))
        #expect(try Schema(jsonText: text) == schema)
        #expect(LogStore.features(of: schema) == ["relationships", "toMany"])
    }

    @Test(arguments: [
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "toMany": true, "optional": true}}}}}"#,
         "invalid schema: relationship 'b' of entity 'A' is to-many: its value is a set, never null, so it cannot be 'optional'"),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "A", "toMany": "yes"}}}}}"#,
         "malformed schema: relationship 'b' of entity 'A': 'toMany' must be true or false"),
        (#"{"entities": {"A": {"relationships": {"b": {"to": "B", "toMany": true}}}}}"#,
         "invalid schema: relationship 'b' of entity 'A' names unknown entity 'B'"),
        (#"{"entities": {"A": {"attributes": {"x": "int"}, "relationships": {"b": {"to": "A", "toMany": true, "inverse": "x"}}}}}"#,
         "invalid schema: relationship 'b' of entity 'A': inverse 'x' is already an attribute or relationship of A"),
    ])
    func badToManyRelationshipsAreRefusedNamingThem(text: String, message: String) {
        #expect { try Schema(jsonText: text) } throws: { "\($0)" == message }
    }

    @Test func aNewToManyIsAdditiveButTurningAToOneIntoAToManyIsNot() throws {
        let old = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}}}, "B": {"id": "int"}}}"#)
        let newSet = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "optional": true}, "bs": {"to": "B", "toMany": true, "inverse": "as"}}}, "B": {"id": "int"}}}"#)
        try newSet.checkAdditive(over: old)
        let turned = try Schema(jsonText: #"{"entities": {"A": {"id": "int", "relationships": {"b": {"to": "B", "toMany": true}}}, "B": {"id": "int"}}}"#)
        #expect { try turned.checkAdditive(over: old) } throws: { "\($0)".contains("relationship 'b' of entity 'A' changed") }
    }

    @Test func aStoreWithAToManyRecordsTheFeature() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: tagsSchemaText), options: StoreOptions(durable: false))
        #expect(try StoreFeaturesTests.recorded(store) == ["relationships", "toMany"])
        #expect(try store.verify().isOK)
    }

    @Test func aSingleIDIsNotAValueOfAToManyAndNothingIsAppended() throws {
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: tagsSchemaText), options: StoreOptions(durable: false))
        try store.append([.insert(entity: "Tag", id: .int(1), values: ["name": .string("urgent")])], author: "t")
        #expect {
            try store.append([.insert(entity: "Item", id: .string("i1"), values: ["name": .string("Pen"), "tags": .int(1), "favorites": .int(1)])], author: "t")
        } throws: { "\($0)".contains("relationship 'favorites' takes an id of Tag (an integer), got one id, not a set of ids (the relationship is to-many)") }
        #expect(try store.head == 1)
    }

    @Test(arguments: ["tags.name == 'a'", "ANY tags.name == 'a'", "tags.@count > 1"])
    func keyPathsOverASetAreRefusedNamingTheRelationship(predicate: String) throws {
        let schema = try Schema(jsonText: tagsSchemaText)
        let request = FetchRequest(entity: "Item", predicate: try ViewPredicate(predicate))
        #expect { try schema.viewEntity(of: request) } throws: {
            "\($0)".contains("'tags' of Item is one side of a many-to-many relationship: key paths do not follow sets of ids yet")
        }
        let inverse = FetchRequest(entity: "Tag", predicate: try ViewPredicate("items.@count > 1"))
        #expect { try schema.viewEntity(of: inverse) } throws: { "\($0)".contains("'items' of Tag is one side of a many-to-many") }
    }
}
