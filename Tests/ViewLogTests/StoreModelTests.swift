import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// A store-level model-based test: random appends, context saves under every merge policy, a schema change,
/// moves and time travel through ``LogStore`` (`append`, `object`/`objects` at positions, `delta(from:to:)`) and
/// ``Context`` (`save`, `move`, `objects`, a results controller), each checked against a plain model: one
/// dictionary of full objects per position. Seeded; rerun a failure with `VIEWLOG_SEED`.
@Suite("Store model")
struct StoreModelTests {
    static let schemaText = """
        {"entities": {
          "Item": {"id": "int", "attributes": {
            "flag": {"type": "bool", "default": false}, "n": {"type": "int", "default": 0},
            "label": {"type": "string", "optional": true}}},
          "Note": {"id": "string", "attributes": {
            "text": {"type": "string", "default": ""}, "score": {"type": "double", "optional": true}}}}}
        """
    /// The additive change made halfway: a defaulted attribute (every existing Item gets it by an update in
    /// the same transaction) and an optional one without a default (no update; `null` in canonical form).
    static let schemaText2 = """
        {"entities": {
          "Item": {"id": "int", "attributes": {
            "flag": {"type": "bool", "default": false}, "n": {"type": "int", "default": 0},
            "label": {"type": "string", "optional": true}, "extra": {"type": "int", "default": 7}}},
          "Note": {"id": "string", "attributes": {
            "text": {"type": "string", "default": ""}, "score": {"type": "double", "optional": true},
            "tag": {"type": "string", "optional": true}}}}}
        """

    /// What one transaction did to one object, for conflicts and deltas.
    struct Touch {
        var attributes: Set<String> = []
        var structural = false
    }

    /// The model: the schema and every object's full, canonical values at every position.
    struct Model {
        var schemas: [Schema]
        var states: [[ObjectKey: ObjectValues]] = [[:]]
        /// Index seq: the objects that transaction touched (index 0 unused).
        var touches: [[ObjectKey: Touch]] = [[:]]
        var head: UInt64 { UInt64(states.count - 1) }

        init(schema: Schema) { schemas = [schema] }

        /// Appends a transaction of `requests` (each valid at the head) and returns nothing.
        mutating func append(_ requests: [ChangeRequest], newSchema: Schema? = nil) {
            var state = states.last!
            var touched: [ObjectKey: Touch] = [:]
            let schema = newSchema ?? schemas.last!
            if let newSchema {
                for (key, values) in state {
                    var v = values
                    for a in newSchema.entities[key.entity]!.attributes where v[a.name] == nil {
                        v[a.name] = a.defaultValue ?? .null
                        if let d = a.defaultValue, !d.isNull { touched[key, default: Touch()].attributes.insert(a.name) }
                    }
                    state[key] = v
                }
            }
            for request in requests {
                let key = request.key
                switch request {
                case let .insert(entity, _, values):
                    var full: ObjectValues = [:]
                    for a in schema.entities[entity]!.attributes { full[a.name] = values[a.name] ?? a.defaultValue ?? .null }
                    precondition(state[key] == nil)
                    state[key] = full
                    touched[key, default: Touch()].structural = true
                case let .update(_, _, values):
                    state[key]!.merge(values) { _, new in new }
                    touched[key, default: Touch()].attributes.formUnion(values.keys)
                case .delete:
                    precondition(state[key] != nil)
                    state[key] = nil
                    touched[key, default: Touch()].structural = true
                case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
                }
            }
            states.append(state)
            touches.append(touched)
            schemas.append(schema)
        }

        /// Everything that transactions after `position` did to each object.
        func touchedAfter(_ position: UInt64) -> [ObjectKey: Touch] {
            var out: [ObjectKey: Touch] = [:]
            for seq in Int(position + 1)..<touches.count {
                for (key, t) in touches[seq] {
                    out[key, default: Touch()].attributes.formUnion(t.attributes)
                    if t.structural { out[key]!.structural = true }
                }
            }
            return out
        }

        /// What a context at `position` saving `requests` under `policy` appends (`nil`: a conflict is thrown).
        func save(_ requests: [ChangeRequest], at position: UInt64, policy: MergePolicy) -> [ChangeRequest]? {
            let theirs = touchedAfter(position)
            let current = states.last!
            var out: [ChangeRequest] = []
            var conflict = false
            for request in requests {
                guard let their = theirs[request.key] else { out.append(request); continue }
                let mine: Set<String>
                let isUpdate: Bool
                switch request {
                case .insert(_, _, let v): mine = Set(v.keys); isUpdate = false
                case .update(_, _, let v): mine = Set(v.keys); isUpdate = true
                case .delete: mine = []; isUpdate = false
                case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
                }
                let structural = their.structural || mine.isEmpty || !isUpdate
                let exists = current[request.key] != nil
                switch policy {
                case .error: conflict = true
                case .rollback: continue
                case .mergeByPropertyStoreTrump:
                    guard !structural, case let .update(e, id, v) = request else { continue }
                    let kept = v.filter { !their.attributes.contains($0.key) }
                    if !kept.isEmpty { out.append(.update(entity: e, id: id, values: kept)) }
                case .mergeByPropertyObjectTrump:
                    switch request {
                    case let .insert(e, id, v): out.append(exists ? .update(entity: e, id: id, values: v) : request)
                    case let .update(e, id, v): out.append(exists ? request : .insert(entity: e, id: id, values: v))
                    case .delete: if exists { out.append(request) }
                    case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
                    }
                case .overwrite:
                    // The context's whole object: its state at `position` with the staged request applied.
                    let base = states[Int(position)][request.key]
                    let whole: ObjectValues?
                    switch request {
                    case .insert(_, _, let v): whole = v
                    case .update(_, _, let v): whole = base?.merging(v) { $1 }
                    case .delete: whole = nil
                    case .updateMembers, .updateMatching, .deleteMatching: preconditionFailure("this model makes no changes by predicate nor of sets")
                    }
                    let (e, id) = (request.key.entity, request.key.id)
                    switch (whole, exists) {
                    case (nil, true): out.append(.delete(entity: e, id: id))
                    case (nil, false): break
                    case (let w?, true): out.append(.update(entity: e, id: id, values: w))
                    case (let w?, false): out.append(.insert(entity: e, id: id, values: w))
                    }
                case .mergeDisjointProperties:
                    if structural || !mine.isDisjoint(with: their.attributes) { conflict = true } else { out.append(request) }
                }
            }
            return conflict ? nil : out
        }

        /// The delta from `from` to `to` as `LogStore.delta` must give it.
        func delta(from: UInt64, to: UInt64) -> [ObjectKey: ObjectDelta] {
            guard from != to else { return [:] }
            let lo = min(from, to), hi = max(from, to)
            var seqs: [ObjectKey: UInt64] = [:]
            for seq in lo + 1...hi {
                for key in touches[Int(seq)].keys where from < to || seqs[key] == nil { seqs[key] = seq }
            }
            var out: [ObjectKey: ObjectDelta] = [:]
            for (key, seq) in seqs {
                out[key] = ObjectDelta(key: key, before: states[Int(from)][key], after: states[Int(to)][key], seq: seq)
            }
            return out
        }
    }

    /// Random values of the schemas' attributes, from small sets so that equal values recur.
    static func value(_ attribute: Attribute, using g: inout SeededGenerator) -> Value {
        if attribute.isOptional, Int.random(in: 0..<4, using: &g) == 0 { return .null }
        switch attribute.type {
        case .bool: return .bool(Bool.random(using: &g))
        case .int: return .int(Int64.random(in: -4...4, using: &g))
        case .string: return .string(["a", "b", "", "cd"].randomElement(using: &g)!)
        case .double: return .double([1.5, -2.0, 3.25, 0.5].randomElement(using: &g)!)
        case .date: return .date(Timestamp(milliseconds: Int64.random(in: 0...1000, using: &g)))
        }
    }

    static let itemIDs: [ObjectID] = (0..<8).map { .int(Int64($0)) }
    static let noteIDs: [ObjectID] = ["n0", "n1", "n2", "n3", "n4", "n5"].map { .string($0) }

    /// A random request valid against `state` under `schema`, for an object not in `taken`.
    static func request(in state: [ObjectKey: ObjectValues], schema: Schema, taken: Set<ObjectKey>,
                        using g: inout SeededGenerator) -> ChangeRequest? {
        let entity = Bool.random(using: &g) ? "Item" : "Note"
        let ids = entity == "Item" ? itemIDs : noteIDs
        let id = ids.randomElement(using: &g)!
        let key = ObjectKey(entity: entity, id: id)
        guard !taken.contains(key) else { return nil }
        let attributes = schema.entities[entity]!.attributes
        var values: ObjectValues = [:]
        for a in attributes where Bool.random(using: &g) { values[a.name] = value(a, using: &g) }
        if state[key] == nil { return .insert(entity: entity, id: id, values: values) }
        if Int.random(in: 0..<4, using: &g) == 0 { return .delete(entity: entity, id: id) }
        if values.isEmpty, let a = attributes.randomElement(using: &g) { values[a.name] = value(a, using: &g) }
        return .update(entity: entity, id: id, values: values)
    }

    /// Appends a random transaction valid at the model's head, to `store` and to `model`; `nil` when none was drawn.
    static func appendRandom(to store: LogStore, _ model: inout Model, using g: inout SeededGenerator) throws -> Transaction? {
        let requests = requests(in: model.states.last!, schema: model.schemas.last!, using: &g)
        guard !requests.isEmpty else { return nil }
        let t = try store.append(requests, author: "w")
        model.append(requests)
        return t
    }

    static func requests(in state: [ObjectKey: ObjectValues], schema: Schema, using g: inout SeededGenerator) -> [ChangeRequest] {
        var out: [ChangeRequest] = [], taken: Set<ObjectKey> = []
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            if let r = request(in: state, schema: schema, taken: taken, using: &g) { out.append(r); taken.insert(r.key) }
        }
        return out
    }

    /// Objects of `entity` in `state`, in id order.
    static func objects(_ state: [ObjectKey: ObjectValues], _ entity: String) -> [ObjectID: ObjectValues] {
        var out: [ObjectID: ObjectValues] = [:]
        for (key, values) in state where key.entity == entity { out[key.id] = values }
        return out
    }

    /// Checkpoint policies the model runs under: the default (no checkpoint in a log this short); one that builds
    /// a checkpoint a row per change, so that most builds span several writes and copy rows before they change; one
    /// that starts a checkpoint at every write after the last one completes, so that nearly every position has one
    /// near it.
    static let checkpointPolicies: [CheckpointPolicy] = [
        .standard,
        CheckpointPolicy(minimumEntries: 4, entriesPerRow: 0, rowsCopiedPerChange: 1, rowsCopiedPerWrite: 0),
        CheckpointPolicy(minimumEntries: 1, entriesPerRow: 0, rowsCopiedPerChange: 0, rowsCopiedPerWrite: 3),
    ]

    @Test(arguments: checkpointPolicies)
    func storeAndContextsMatchAPlainModel(checkpoints: CheckpointPolicy) throws {
        var g = SeededGenerator(stream: 101)
        let hint = g.rerunHint
        let schema = try Schema(jsonText: Self.schemaText), schema2 = try Schema(jsonText: Self.schemaText2)
        let store = try LogStore.create(at: newStorePath(), schema: schema,
                                        options: StoreOptions(durable: false, checkpoints: checkpoints))
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        var model = Model(schema: schema)
        let contexts = try (0..<3).map { try Context(store: store, name: "c\($0)") }
        let traveler = try Context(store: store, name: "traveler")
        let request = FetchRequest(entity: "Item", predicate: try ViewPredicate("flag == YES"),
                                   sortDescriptors: try ViewSortDescriptor.parse("n"))
        let controller = try traveler.makeResultsController(request)
        let allKeys = Self.itemIDs.map { ObjectKey(entity: "Item", id: $0) } + Self.noteIDs.map { ObjectKey(entity: "Note", id: $0) }
            + [ObjectKey(entity: "Item", id: .int(99)), ObjectKey(entity: "Nope", id: .int(0))]
        var conflicts = 0, dropped = 0, saves = 0

        for step in 0..<160 {
            let roll = Int.random(in: 0..<10, using: &g)
            if step == 80 {
                // The additive schema change, as one transaction.
                let t = try #require(try store.updateSchema(schema2, author: "admin"), "\(hint)")
                model.append([], newSchema: schema2)
                #expect(t.seq == model.head, "\(hint)")
            } else if roll < 4 {
                // A store-level append at the head.
                guard let t = try Self.appendRandom(to: store, &model, using: &g) else { continue }
                #expect(t.seq == model.head, "step \(step), \(hint)")
            } else if roll < 5 {
                // An invalid append: nothing is appended.
                let key = allKeys[Int.random(in: 0..<14, using: &g)]
                let bad: ChangeRequest = model.states.last![key] == nil
                    ? .update(entity: key.entity, id: key.id, values: [:])
                    : .insert(entity: key.entity, id: key.id, values: [:])
                #expect(throws: StoreError.self, "step \(step), \(hint)") { try store.append([bad], author: "w") }
            } else if roll < 8 {
                // A context, somewhere behind the head, stages changes valid at its position and saves them.
                let context = contexts.randomElement(using: &g)!
                if Int.random(in: 0..<3, using: &g) == 0 {
                    try context.move(to: UInt64.random(in: 0...model.head, using: &g))
                }
                let position = context.position
                let requests = Self.requests(in: model.states[Int(position)], schema: model.schemas[Int(position)], using: &g)
                guard !requests.isEmpty else { continue }
                for r in requests { try context.stage(r) }
                // What the context will save: inserts completed with the defaults of its position's schema.
                let staged = requests.map { r -> ChangeRequest in
                    guard case let .insert(e, id, v) = r else { return r }
                    var full: ObjectValues = [:]
                    for a in model.schemas[Int(position)].entities[e]!.attributes { full[a.name] = v[a.name] ?? a.defaultValue ?? .null }
                    return .insert(entity: e, id: id, values: full)
                }
                let policy = MergePolicy.allCases.randomElement(using: &g)!
                context.mergePolicy = policy
                let expected = model.save(staged, at: position, policy: policy)
                let headBefore = model.head
                do {
                    let saved = try context.save()
                    let expected = try #require(expected, "step \(step): \(policy) saved where the model conflicts, \(hint)")
                    if expected.isEmpty {
                        #expect(saved == nil, "step \(step), \(hint)")
                        dropped += 1
                    } else {
                        model.append(expected)
                        #expect(saved?.seq == model.head, "step \(step), \(hint)")
                        saves += 1
                    }
                    #expect(context.position == model.head && !context.hasChanges, "step \(step), \(hint)")
                } catch StoreError.conflict {
                    #expect(expected == nil, "step \(step): \(policy) conflicts where the model saves, \(hint)")
                    #expect(try store.head == headBefore && context.hasChanges, "step \(step), \(hint)")
                    #expect(context.position == position, "step \(step), \(hint)")
                    try context.rollback()
                    conflicts += 1
                }
            } else {
                // Time travel: the traveler context (with its controller) moves anywhere.
                let target = UInt64.random(in: 0...model.head, using: &g)
                try traveler.move(to: target)
                let state = model.states[Int(target)]
                for entity in ["Item", "Note"] {
                    let got = try traveler.objects(of: entity)
                    #expect(Dictionary(uniqueKeysWithValues: got.map { ($0.id, $0.values) }) == Self.objects(state, entity),
                            "step \(step): context at \(target), \(entity), \(hint)")
                }
                let members = state.filter { $0.key.entity == "Item" && $0.value["flag"] == .bool(true) }
                    .sorted { a, b in
                        let x = a.value["n"]!, y = b.value["n"]!
                        return x != y ? Value.compare(x, y) < 0 : a.key.id < b.key.id
                    }
                #expect(controller.fetchedObjects == members.map(\.key.id), "step \(step): controller at \(target), \(hint)")
            }

            // After every step: the head, states at random positions, one object, one delta.
            #expect(try store.head == model.head, "step \(step), \(hint)")
            // Each time travel both ways — folded forwards from the empty store and undone from the head — and
            // the automatic choice between them.
            let p = UInt64.random(in: 0...model.head, using: &g)
            let key = allKeys.randomElement(using: &g)!
            let from = UInt64.random(in: 0...model.head, using: &g), to = UInt64.random(in: 0...model.head, using: &g)
            let schemaChange = model.schemas[Int(from)] != model.schemas[Int(to)] ? model.schemas[Int(to)] : nil
            for travel in [LogStore.TimeTravel.automatic, .foldFromStart, .undoFromHead] {
                let how = "\(travel), \(hint)"
                for entity in ["Item", "Note"] {
                    // By slot (the store's way) and by name (its fallback for a log that is not additive).
                    for bySlot in [true, false] {
                        let got = try store.objects(of: entity, at: p, via: travel, bySlot: bySlot)
                        #expect(zip(got, got.dropFirst()).allSatisfy { $0.id < $1.id }, "ids in order, \(how)")
                        #expect(Dictionary(uniqueKeysWithValues: got.map { ($0.id, $0.values) }) == Self.objects(model.states[Int(p)], entity),
                                "step \(step): objects of \(entity) at \(p), \(how), by slot \(bySlot)")
                        // Reading some attributes only (a results controller's fetch): the same objects, cut down.
                        let all = model.schemas[Int(p)].entities[entity]!.attributes
                        let some = all.filter { _ in Bool.random(using: &g) }
                        let cut = try store.objects(of: entity, at: p, via: travel, reading: some, bySlot: bySlot)
                        let expectedCut = Self.objects(model.states[Int(p)], entity).mapValues { v in
                            v.filter { pair in some.contains { $0.name == pair.key } }
                        }
                        #expect(Dictionary(uniqueKeysWithValues: cut.map { ($0.id, $0.values) }) == expectedCut,
                                "step \(step): objects of \(entity) at \(p) reading \(some.map(\.name)), \(how), by slot \(bySlot)")
                    }
                }
                #expect(try store.object(key, at: p, via: travel) == model.states[Int(p)][key], "step \(step): \(key) at \(p), \(how)")
                let delta = try store.delta(from: from, to: to, entities: nil, via: travel)
                #expect(zip(delta.objects, delta.objects.dropFirst()).allSatisfy { $0.key < $1.key }, "\(how)")
                let expected = model.delta(from: from, to: to)
                #expect(Dictionary(uniqueKeysWithValues: delta.objects.map { ($0.key, $0) }) == expected,
                        "step \(step): delta \(from) → \(to), \(how)")
                #expect(delta.schemaChange == schemaChange, "step \(step): delta \(from) → \(to), \(how)")
                let items = try store.delta(from: from, to: to, entities: ["Item"], via: travel)
                #expect(Dictionary(uniqueKeysWithValues: items.objects.map { ($0.key, $0) }) == expected.filter { $0.key.entity == "Item" },
                        "step \(step): delta of Item \(from) → \(to), \(how)")
                // A delta of a few entities is folded by slot, one at a time; by name it must be the same, both ways.
                for entities: Set<String> in [["Item"], ["Note"], ["Item", "Note"]] {
                    for (a, b) in [(from, to), (to, from)] {
                        let bySlot = try store.delta(from: a, to: b, entities: entities, via: travel)
                        #expect(bySlot == (try store.delta(from: a, to: b, entities: entities, via: travel, bySlot: false)),
                                "step \(step): delta of \(entities) \(a) → \(b), \(how)")
                    }
                }
                for entity in ["Item", "Note"] {
                    // A replay: from position 0.
                    let replay = try store.delta(from: 0, to: to, entities: [entity], via: travel)
                    #expect(zip(replay.objects, replay.objects.dropFirst()).allSatisfy { $0.key < $1.key }, "\(how)")
                    #expect(replay == (try store.delta(from: 0, to: to, entities: [entity], via: travel, bySlot: false)),
                            "step \(step): replay of \(entity) to \(to), \(how)")
                    #expect(Dictionary(uniqueKeysWithValues: replay.objects.map { ($0.key, $0) })
                                == model.delta(from: 0, to: to).filter { $0.key.entity == entity },
                            "step \(step): replay of \(entity) to \(to), \(how)")
                }
            }
        }
        #expect(saves > 5 && conflicts > 2 && model.head > 40, "the run exercised saves (\(saves)), conflicts (\(conflicts)), drops (\(dropped)): \(hint)")
        let report = try store.verify()
        #expect(report.isOK, "\(hint)")
        #expect(try store.verify(bySlot: false) == report, "\(hint)")
        if checkpoints != .standard {
            let directory = try store.perform(read: true) { txn in try store.checkpointDirectory(in: txn) }
            #expect(directory.complete.count >= 5, "checkpoints were made: \(directory.complete), \(hint)")
            #expect(report.checkpoints == directory.complete.count + (directory.building == nil ? 0 : 1), "\(hint)")
        }
    }
}
