import Foundation
import Testing
@_spi(Testing) import ViewLog
import ViewLogTesting
import TestSupport

/// Model-based tests: random views against random transactions, each batch checked against a from-scratch
/// recomputation, the UITableView and sequential replays, and a brute-force reference of DESIGN §5.
@Suite struct ResultsControllerModelTests {
    static let seed = ViewTestRNG.seed(default: 0x5EED_0F_7E57)

    /// Checks one applied batch; returns problems as text (empty when all is well).
    static func check(_ controller: ResultsController, _ cs: ChangeSet, _ delta: Delta, spec: ViewSpec,
                      before: ViewSnapshot, model: ViewModel) -> [String] {
        var problems: [String] = []
        let after = spec.expectedSnapshot(model.objects(of: "Employee", at: delta.to))
        let actual = controller.snapshot
        if actual != after { problems.append("view differs from recomputation:\n got      \(actual)\n expected \(after)") }
        controller.checkInvariants(deep: true)
        problems += ChangeSetValidator.validate(cs, from: before, to: after).map { "batch: \($0)" }
        problems += ChangeSetValidator.validateSequential(cs, from: before, to: after).map { "sequential: \($0)" }
        let expected = spec.expectedChanges(delta, entity: "Employee", before: before, after: after)
        if Set(cs.rowChanges) != expected.rows {
            problems.append("rows differ from reference:\n got      \(cs.rowChanges.sorted { "\($0)" < "\($1)" })\n expected \(expected.rows.sorted { "\($0)" < "\($1)" })")
        }
        if Set(cs.sectionChanges) != expected.sections {
            problems.append("sections differ from reference: got \(cs.sectionChanges), expected \(expected.sections)")
        }
        if cs.rowChanges.count != Set(cs.rowChanges.map(\.id)).count { problems.append("a row is reported twice") }
        // Point queries agree with the snapshot.
        for (i, section) in after.sections.enumerated() {
            for (j, id) in section.rows.enumerated() where (i + j) % 3 == 0 {
                if controller.indexPath(for: id) != IndexPath(row: j, section: i) { problems.append("indexPath(for: \(id)) != [\(i),\(j)]") }
                if controller.object(at: IndexPath(row: j, section: i)) != id { problems.append("object(at: [\(i),\(j)]) != \(id)") }
            }
        }
        if controller.sections.map(\.numberOfObjects) != after.sections.map(\.rows.count) {
            problems.append("sections info \(controller.sections.map(\.numberOfObjects)) != \(after.sections.map(\.rows.count))")
        }
        if !cs.isSectioned, let diff = cs.difference, before.rowIDs.applying(diff) != after.rowIDs {
            problems.append("collection difference does not apply")
        }
        return problems
    }

    @Test func randomViewsAgainstModel() throws {
        var rng = ViewTestRNG(seed: Self.seed)
        var batches = 0
        for viewNumber in 0..<48 {
            let spec = ViewsRandom.view(&rng)
            var model = ViewModel(initial: ViewsRandom.initialObjects(count: rng.int(0...30), idPool: 40, &rng))
            let controller = try spec.controller(model, entity: ViewsRandom.employee, at: 0, nodeCapacity: rng.pick([4, 5, 8, 64]))
            var view = controller.snapshot
            try #require(view == spec.expectedSnapshot(model.objects(of: "Employee", at: 0)),
                         "seed \(Self.seed) view \(viewNumber) \(spec): initial view differs")
            for step in 0..<120 {
                let delta: Delta
                if step % 17 == 16 && model.head > 3 {
                    // One big transaction that restores an older state (many changes, many changed back).
                    let target = model.states[Int(model.head) - rng.int(1...3)]
                    let current = model.current
                    var back: [ModelOp] = []
                    for k in current.keys.sorted() where target[k] == nil { back.append(.delete(k)) }
                    for k in target.keys.sorted() { back.append(current[k] == nil ? .insert(k, target[k]!) : .update(k, target[k]!)) }
                    if back.isEmpty { continue }
                    model.commit(back)
                    delta = model.delta(from: model.head - 1, to: model.head)
                } else {
                    let txCount = rng.chance(0.2) ? rng.int(2...4) : 1
                    for _ in 0..<txCount {
                        model.commit(ViewsRandom.transaction(model.current, idPool: 40, maxOps: 6, &rng))
                    }
                    delta = model.delta(from: model.head - UInt64(txCount), to: model.head)
                }
                let cs = controller.apply(delta)
                let problems = Self.check(controller, cs, delta, spec: spec, before: view, model: model)
                batches += 1
                if !problems.isEmpty {
                    Issue.record("""
                        seed \(Self.seed) (rerun with VIEWLOG_SEED=\(Self.seed)) view \(viewNumber) [\(spec)] step \(step):
                        before \(view)
                        delta \(delta.objects.map { "\($0.key.id): \($0.before.map { "\($0)" } ?? "nil") -> \($0.after.map { "\($0)" } ?? "nil")" })
                        change set:
                        \(ChangeSetRenderer.render(cs, seq: true))
                        \(problems.joined(separator: "\n"))
                        """)
                    return
                }
                view = controller.snapshot
            }
        }
        #expect(batches > 5000)
    }

    @Test func backwardsDeltas() throws {
        // Going back to an older position is one batch whose seqs are the lowest undone.
        var rng = ViewTestRNG(seed: Self.seed &+ 1)
        for viewNumber in 0..<16 {
            let spec = ViewsRandom.view(&rng)
            var model = ViewModel()
            for _ in 0..<30 { model.commit(ViewsRandom.transaction(model.current, idPool: 30, maxOps: 5, &rng)) }
            let controller = try spec.controller(model, entity: ViewsRandom.employee, at: model.head)
            var position = model.head
            for _ in 0..<20 {
                let target = UInt64(rng.int(0...Int(model.head)))
                let before = controller.snapshot
                let delta = model.delta(from: position, to: target)
                let cs = controller.apply(delta)
                let problems = Self.check(controller, cs, delta, spec: spec, before: before, model: model)
                #expect(problems.isEmpty, "seed \(Self.seed &+ 1) view \(viewNumber) [\(spec)] \(position)->\(target):\n\(problems.joined(separator: "\n"))")
                if !problems.isEmpty { return }
                position = target
            }
        }
    }

    @Test func batchingGivesTheSameView() throws {
        // The same transactions fed one at a time, in one batch, and in random splits.
        var rng = ViewTestRNG(seed: Self.seed &+ 2)
        for viewNumber in 0..<24 {
            let spec = ViewsRandom.view(&rng)
            var model = ViewModel(initial: ViewsRandom.initialObjects(count: 20, idPool: 30, &rng))
            for _ in 0..<40 { model.commit(ViewsRandom.transaction(model.current, idPool: 30, maxOps: 4, &rng)) }
            var splits: [[UInt64]] = [Array(0...model.head), [0, model.head]]
            var random: [UInt64] = [0]
            while random.last! < model.head { random.append(min(model.head, random.last! + UInt64(rng.int(1...7)))) }
            splits.append(random)
            var finals: [ViewSnapshot] = []
            for positions in splits {
                let controller = try spec.controller(model, entity: ViewsRandom.employee, at: 0)
                let recorder = ChangeRecorder()
                recorder.attach(to: controller)
                for (a, b) in zip(positions, positions.dropFirst()) {
                    let before = controller.snapshot
                    let delta = model.delta(from: a, to: b)
                    let cs = controller.apply(delta)
                    let problems = Self.check(controller, cs, delta, spec: spec, before: before, model: model)
                    #expect(problems.isEmpty, "seed \(Self.seed &+ 2) view \(viewNumber) [\(spec)] \(a)->\(b):\n\(problems.joined(separator: "\n"))")
                }
                #expect(recorder.validate().isEmpty, "seed \(Self.seed &+ 2): \(recorder.validate())")
                finals.append(controller.snapshot)
            }
            let expected = spec.expectedSnapshot(model.objects(of: "Employee", at: model.head))
            #expect(finals.allSatisfy { $0 == expected }, "seed \(Self.seed &+ 2) view \(viewNumber) [\(spec)]")
        }
    }
}
