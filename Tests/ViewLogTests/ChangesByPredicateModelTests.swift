import Testing
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
import TestSupport

/// Changes by predicate (DESIGN §14) against a plain model: random transactions mixing inserts, changes by id and
/// changes by predicate (key paths, aggregates and quantifiers included, with `max`) are appended to a store, dry run
/// first, and staged in a context; after each, the store's objects, the dry run's changes and the context's objects
/// equal what the model computes with its own predicate closures and delete rules, and a refused transaction
/// appends nothing.
@Suite("Changes by predicate: the model")
struct ChangesByPredicateModelTests {
    static let schemaText = """
    {"entities": {
      "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
      "Employee": {"id": "int", "attributes": {"name": {"type": "string"}, "rank": {"type": "int"}},
        "relationships": {"department": {"to": "Department", "optional": true, "inverse": "employees"},
                          "mentor": {"to": "Employee", "optional": true, "onDelete": "cascade", "inverse": "mentees"}}},
      "Project": {"id": "int", "attributes": {"title": {"type": "string"}},
        "relationships": {"owner": {"to": "Department", "onDelete": "cascade", "inverse": "projects"}}}
    }}
    """

    typealias State = [ObjectKey: ObjectValues]

    /// A predicate as text for the store and as a closure over the model's state for the model.
    struct Form {
        let entity: String
        let text: String
        let holds: (ObjectID, ObjectValues, State) -> Bool
    }

    static func int(_ v: Value?) -> Int64? { if case .int(let i)? = v { return i }; return nil }
    static func key(_ entity: String, _ v: Value?) -> ObjectKey? { v.flatMap(ObjectID.init).map { ObjectKey(entity: entity, id: $0) } }

    /// A random predicate over `entity`.
    static func form(_ entity: String, _ rng: inout SeededGenerator) -> Form {
        let k = Int64.random(in: 0...5, using: &rng)
        let name = "d\(Int.random(in: 0..<4, using: &rng))"
        switch (entity, Int.random(in: 0..<5, using: &rng)) {
        case ("Employee", 0):
            return Form(entity: entity, text: "rank > \(k)") { _, v, _ in (int(v["rank"]) ?? 0) > k }
        case ("Employee", 1):
            return Form(entity: entity, text: "department.name == '\(name)'") { _, v, s in
                key("Department", v["department"]).flatMap { s[$0]?["name"] } == .string(name)
            }
        case ("Employee", 2):
            return Form(entity: entity, text: "department == nil") { _, v, _ in v["department"] == nil || v["department"] == .null }
        case ("Employee", 3):
            return Form(entity: entity, text: "mentor.rank < \(k)") { _, v, s in
                guard let m = key("Employee", v["mentor"]).flatMap({ s[$0] }) else { return false }
                return (int(m["rank"]) ?? 0) < k
            }
        case ("Employee", _):
            return Form(entity: entity, text: "mentees.@count >= 1") { id, _, s in
                s.contains { $0.key.entity == "Employee" && $0.value["mentor"].flatMap(ObjectID.init) == id }
            }
        case ("Department", 0), ("Department", 1):
            return Form(entity: entity, text: "employees.@count >= \(k % 3)") { id, _, s in
                s.filter { $0.key.entity == "Employee" && $0.value["department"].flatMap(ObjectID.init) == id }.count >= Int(k % 3)
            }
        case ("Department", 2):
            return Form(entity: entity, text: "ANY employees.rank > \(k)") { id, _, s in
                s.contains { $0.key.entity == "Employee" && $0.value["department"].flatMap(ObjectID.init) == id && (int($0.value["rank"]) ?? 0) > k }
            }
        case ("Department", _):
            return Form(entity: entity, text: "name == '\(name)'") { _, v, _ in v["name"] == .string(name) }
        default:
            return Form(entity: entity, text: "owner.name == '\(name)'") { _, v, s in
                key("Department", v["owner"]).flatMap { s[$0]?["name"] } == .string(name)
            }
        }
    }

    /// The model's delete of `key` with its rules: employees' `department` nullified, mentees and owned projects
    /// deleted (the final state does not depend on the walk's order).
    static func delete(_ key: ObjectKey, in s: inout State) {
        guard s.removeValue(forKey: key) != nil else { return }
        for (k, v) in s where k.entity == "Employee" && key.entity == "Department" && v["department"].flatMap(ObjectID.init) == key.id {
            s[k]?["department"] = .null
        }
        let cascaded = s.filter { k, v in
            (k.entity == "Employee" && key.entity == "Employee" && v["mentor"].flatMap(ObjectID.init) == key.id)
                || (k.entity == "Project" && key.entity == "Department" && v["owner"].flatMap(ObjectID.init) == key.id)
        }.keys.sorted()
        for k in cascaded { delete(k, in: &s) }
    }

    enum Refused: Error { case refused }

    /// Applies `requests` to the model; throws when the store must refuse them.
    static func apply(_ requests: [ChangeRequest], forms: [Int: Form], to s: inout State) throws {
        for (i, request) in requests.enumerated() {
            switch request {
            case let .insert(e, id, values):
                let key = ObjectKey(entity: e, id: id)
                guard s[key] == nil else { throw Refused.refused }
                // A relationship must name an existing object.
                for (name, target) in [("department", "Department"), ("mentor", "Employee"), ("owner", "Department")] {
                    if let k = Self.key(target, values[name]), s[k] == nil, k != key { throw Refused.refused }
                }
                s[key] = values
            case let .update(e, id, values):
                let key = ObjectKey(entity: e, id: id)
                guard s[key] != nil else { throw Refused.refused }
                s[key]?.merge(values) { $1 }
            case let .delete(e, id):
                let key = ObjectKey(entity: e, id: id)
                guard s[key] != nil else { throw Refused.refused }
                delete(key, in: &s)
            case .updateMembers: preconditionFailure("this model makes no changes of sets")
            case .updateMatching(let e, _, _, let max), .deleteMatching(let e, _, let max):
                let form = forms[i]!
                let snapshot = s
                let matched = s.filter { $0.key.entity == e && form.holds($0.key.id, $0.value, snapshot) }.keys.sorted()
                if let max, matched.count > max { throw Refused.refused }
                for key in matched where s[key] != nil {
                    if case .updateMatching(_, _, let values, _) = request { s[key]?.merge(values) { $1 } } else { delete(key, in: &s) }
                }
            }
        }
    }

    /// A random transaction of 1 to 3 changes over the model's state, with the forms of its changes by predicate.
    static func transaction(_ s: State, _ rng: inout SeededGenerator, nextID: inout Int64) -> ([ChangeRequest], [Int: Form]) {
        var requests: [ChangeRequest] = [], forms: [Int: Form] = [:]
        func existing(_ e: String) -> Value? {
            guard case .int(let i)? = s.keys.filter({ $0.entity == e }).sorted().randomElement(using: &rng)?.id else { return nil }
            return .int(i)
        }
        for i in 0..<Int.random(in: 1...3, using: &rng) {
            let entity = ["Department", "Employee", "Employee", "Project"].randomElement(using: &rng)!
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                nextID += 1
                var values: ObjectValues
                switch entity {
                case "Department": values = ["name": .string("d\(Int.random(in: 0..<4, using: &rng))")]
                case "Employee":
                    values = ["name": .string("e\(nextID)"), "rank": .int(Int64.random(in: 0...6, using: &rng)),
                              "department": existing("Department") ?? .null,
                              "mentor": Bool.random(using: &rng) ? (existing("Employee") ?? .null) : .null]
                default:
                    guard let d = existing("Department") else { continue }
                    values = ["title": .string("p\(nextID)"), "owner": d]
                }
                requests.append(.insert(entity: entity, id: .int(nextID), values: values))
            case 4:
                guard let id = existing(entity).flatMap(ObjectID.init) else { continue }
                requests.append(.delete(entity: entity, id: id))
            case 5..<8:
                let form = form(entity, &rng)
                forms[requests.count] = form
                let values: ObjectValues = entity == "Employee" ? ["rank": .int(Int64.random(in: 0...6, using: &rng))]
                    : entity == "Department" ? ["name": .string("d\(Int.random(in: 0..<4, using: &rng))")] : ["title": "t"]
                requests.append(.updateMatching(entity: entity, predicate: try! ViewPredicate(form.text), values: values,
                                                max: Bool.random(using: &rng) ? Int.random(in: 0...3, using: &rng) : nil))
            default:
                let form = form(entity, &rng)
                forms[requests.count] = form
                requests.append(.deleteMatching(entity: entity, predicate: try! ViewPredicate(form.text),
                                                max: Int.random(in: 0..<3, using: &rng) == 0 ? 1 : nil))
            }
            _ = i
        }
        return (requests, forms)
    }

    /// The store's objects at `position` (default: the head), every attribute as the model keeps it.
    static func state(of store: LogStore, at position: UInt64? = nil) throws -> State {
        var s: State = [:]
        for e in ["Department", "Employee", "Project"] {
            for (id, v) in try store.objects(of: e, at: position) { s[ObjectKey(entity: e, id: id)] = v }
        }
        return s
    }

    @Test(arguments: [1, 2, 3, 4])
    func storeDryRunAndContextAgreeWithTheModel(seed: Int) throws {
        var rng = SeededGenerator(seed: SeededGenerator.environmentSeed &+ UInt64(seed) &* 0x9E37_79B9)
        let store = try LogStore.create(at: newStorePath(), schema: try Schema(jsonText: Self.schemaText),
                                        options: StoreOptions(durable: false))
        var model: State = [:], nextID: Int64 = 0, appended = 0, refused = 0, matchedNothing = 0
        for round in 0..<120 {
            let (requests, forms) = Self.transaction(model, &rng, nextID: &nextID)
            guard !requests.isEmpty else { continue }
            var expected = model
            let accepted: Bool
            do { try Self.apply(requests, forms: forms, to: &expected); accepted = true } catch { accepted = false }
            let head = try store.head
            let request = TransactionRequest(author: "model", changes: requests)
            // The dry run: the same answer as the append, nothing appended.
            let dry = Result { () throws(StoreError) in try store.dryRun([request]) }
            #expect(try store.head == head, "round \(round): a dry run appended")
            // A context shows the same state before it saves (it resolves the forms against its own state).
            let context = try Context(store: store, name: "model")
            let staged = Result { () throws(StoreError) in for r in requests { try context.stage(r) } }
            let result = Result { () throws(StoreError) in try store.append([request]) }
            switch result {
            case .success(let logged):
                #expect(accepted, "round \(round): the store appended what the model refuses: \(requests)")
                model = expected
                #expect(try Self.state(of: store) == model, "round \(round): \(requests.map { "\($0)" })")
                if case .success(let would) = dry {
                    #expect(would[0].changes == logged[0].changes, "round \(round): the dry run differs from the append")
                } else {
                    Issue.record("round \(round): the dry run refused what the append took")
                }
                if logged[0].seq == 0 {
                    matchedNothing += 1
                    let headNow = try store.head
                    #expect(logged[0].changes.isEmpty && headNow == head)
                } else {
                    appended += 1
                    #expect(try store.head == head + 1)
                }
                if case .success = staged {
                    var contextState: State = [:]
                    for e in ["Department", "Employee", "Project"] {
                        for (id, v) in try context.objects(of: e) { contextState[ObjectKey(entity: e, id: id)] = v }
                    }
                    #expect(contextState == model, "round \(round): the context's staged state differs")
                }
            case .failure:
                refused += 1
                #expect(!accepted, "round \(round): the store refused what the model accepts: \(requests)")
                #expect(try store.head == head, "round \(round): a refused append changed the head")
                #expect(try Self.state(of: store) == model)
                if case .success = dry { Issue.record("round \(round): the dry run took what the append refused") }
            }
        }
        #expect(appended > 20 && refused > 3 && matchedNothing > 0, "appended \(appended), refused \(refused), empty \(matchedNothing)")
    }
}
