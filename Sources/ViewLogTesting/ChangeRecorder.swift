import ViewLog

/// Records what a `ResultsController` reports — every batch and reload, in order, as the delegate calls they
/// make — with the snapshot after each, so a test can validate every batch in sequence.
///
/// ``attach(to:)`` observes the controller (`ResultsController/observe(_:)`) and leaves its `delegate` to
/// the app, so a test records the very controller that drives the app's own delegate. To test a controller's
/// delegate call order itself, make the recorder the delegate instead (``attachAsDelegate(to:)``).
/// A recorder records **one** controller: attaching it to a second one (or to the same one again) traps, naming
/// the first, because two controllers' batches and snapshots in one recording would not follow each other. Make one
/// recorder per controller.
/// Not `Sendable`: use it on the controller's isolation.
public final class ChangeRecorder: ResultsControllerDelegate {
    /// One delegate call.
    public enum Event: Sendable, Hashable {
        case willChangeContent
        case section(SectionChange)
        case row(RowChange)
        case didChangeContent
        case reload(ViewSnapshot)
    }

    /// Every delegate call, in order.
    public private(set) var events: [Event] = []
    /// Every batch, rebuilt from the calls between `willChangeContent` and `didChangeContent`.
    public private(set) var batches: [ChangeSet] = []
    /// The snapshot at attachment, then after every batch and reload (`snapshots.count == batches.count + 1`
    /// plus one per reload).
    public private(set) var snapshots: [ViewSnapshot] = []
    private var position: UInt64 = 0
    private var sections: [SectionChange] = []
    private var rows: [RowChange] = []
    private var isInBatch = false
    private var observations: [ViewObservation] = []
    /// What the recorder was attached to, for the message of a second attach.
    private var recorded: (controller: ObjectIdentifier, name: String)?

    /// Makes an empty recorder.
    public init() {}

    /// Records `controller`'s current snapshot, then every batch and reload it reports, as an observer: the
    /// controller's delegate is left alone. The recording lasts as long as the recorder.
    ///
    /// - Precondition: the recorder is not attached yet (one recorder records one controller).
    public func attach(to controller: ResultsController) {
        claim(controller)
        position = controller.position
        snapshots.append(controller.snapshot)
        observations.append(controller.observe { [unowned self, unowned controller] event in
            switch event {
            case .reload(let snapshot):
                controllerDidReload(controller, snapshot: snapshot)
            case .changes(let changeSet):
                controllerWillChangeContent(controller)
                for s in changeSet.sectionChanges { self.controller(controller, didChange: s) }
                for r in changeSet.rowChanges { self.controller(controller, didChange: r) }
                controllerDidChangeContent(controller)
            }
        })
    }

    /// Becomes `controller`'s delegate (replacing the app's) and records its current snapshot: for tests of the
    /// delegate's call order. The controller holds its delegate weakly: keep the recorder alive.
    ///
    /// - Precondition: the recorder is not attached yet (one recorder records one controller).
    public func attachAsDelegate(to controller: ResultsController) {
        claim(controller)
        controller.delegate = self
        position = controller.position
        snapshots.append(controller.snapshot)
    }

    /// Refuses a second controller: its snapshots would interleave with the first's, and ``validate()`` would report
    /// every batch of either as taking the other's snapshot to the next.
    private func claim(_ controller: ResultsController) {
        let name = Self.name(of: controller)
        if let recorded {
            let again = recorded.controller == ObjectIdentifier(controller)
            preconditionFailure("this ChangeRecorder already records \(again ? "this controller" : "another controller"), \(recorded.name); "
                                + "attaching it \(again ? "again" : "to \(name)") would mix "
                                + "\(again ? "every batch twice into its recording" : "two controllers' batches in one recording"): "
                                + "make one ChangeRecorder per controller")
        }
        recorded = (ObjectIdentifier(controller), name)
    }

    /// `the controller of Employee where height > 170 sorted by name`.
    static func name(of controller: ResultsController) -> String {
        let request = controller.fetchRequest
        var name = "the controller of \(request.entity)"
        if request.predicate.description != "TRUEPREDICATE" && !request.predicate.description.isEmpty {
            name += " where \(request.predicate)"
        }
        if !request.sortDescriptors.isEmpty { name += " sorted by \(request.sortDescriptors.map(\.description).joined(separator: ", "))" }
        if let key = request.sectionKey { name += " in sections of \(key)" }
        return name
    }

    /// Problems of every recorded batch, validated between the snapshots before and after it (batch and
    /// sequential forms), and of the delegate call order.
    public func validate() -> [ChangeSetProblem] {
        var problems: [ChangeSetProblem] = []
        var depth = 0
        for e in events {
            switch e {
            case .willChangeContent: depth += 1
            case .didChangeContent: depth -= 1
            case .section, .row: if depth != 1 { problems.append(.init(rule: "delegate order", message: "\(e) outside a batch")) }
            case .reload: if depth != 0 { problems.append(.init(rule: "delegate order", message: "reload inside a batch")) }
            }
            if depth < 0 || depth > 1 { problems.append(.init(rule: "delegate order", message: "unbalanced will/did")) }
        }
        var s = 0
        var b = 0
        for e in events {
            switch e {
            case .didChangeContent:
                problems += ChangeSetValidator.validate(batches[b], from: snapshots[s], to: snapshots[s + 1])
                problems += ChangeSetValidator.validateSequential(batches[b], from: snapshots[s], to: snapshots[s + 1])
                b += 1
                s += 1
            case .reload: s += 1
            default: break
            }
        }
        return problems
    }

    public func controllerWillChangeContent(_ controller: ResultsController) {
        events.append(.willChangeContent)
        isInBatch = true
        sections = []
        rows = []
    }

    public func controller(_ controller: ResultsController, didChange section: SectionChange) {
        events.append(.section(section))
        sections.append(section)
    }

    public func controller(_ controller: ResultsController, didChange row: RowChange) {
        events.append(.row(row))
        rows.append(row)
    }

    public func controllerDidChangeContent(_ controller: ResultsController) {
        events.append(.didChangeContent)
        isInBatch = false
        batches.append(ChangeSet(from: position, to: controller.position, isSectioned: controller.isSectioned,
                                 sectionChanges: sections, rowChanges: rows))
        position = controller.position
        snapshots.append(controller.snapshot)
    }

    public func controllerDidReload(_ controller: ResultsController, snapshot: ViewSnapshot) {
        events.append(.reload(snapshot))
        position = controller.position
        snapshots.append(snapshot)
    }
}
