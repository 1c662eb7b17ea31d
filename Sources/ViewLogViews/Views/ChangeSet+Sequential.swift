@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// One step of a batch in sequential form: its index is valid in the view as the steps before it left it
/// (AppKit's NSTableView, array replays).
public enum SequentialStep: Sendable, Hashable, CustomStringConvertible {
    /// Remove the row at the index path; `isMove` when it is the first half of a move.
    case deleteRow(ObjectID, at: IndexPath, isMove: Bool)
    /// Remove the (now empty) section at the index.
    case deleteSection(at: Int, value: Value)
    /// Insert an empty section with the value at the index.
    case insertSection(at: Int, value: Value)
    /// Insert the row at the index path; `isMove` when it is the second half of a move.
    case insertRow(ObjectID, at: IndexPath, isMove: Bool)
    /// Redraw the row at the index path (its values changed, it did not move).
    case updateRow(ObjectID, at: IndexPath, changed: [String])

    public var description: String {
        switch self {
        case let .deleteRow(id, p, m): return "delete \(id) \(p)\(m ? " (move)" : "")"
        case let .deleteSection(i, v): return "delete section \(i) \"\(v)\""
        case let .insertSection(i, v): return "insert section \(i) \"\(v)\""
        case let .insertRow(id, p, m): return "insert \(id) \(p)\(m ? " (move)" : "")"
        case let .updateRow(id, p, _): return "update \(id) \(p)"
        }
    }
}

extension ChangeSet {
    /// The batch as steps to perform one after the other: row removals (deletes and the first half of moves)
    /// by `from` descending, section deletes descending, section inserts ascending, row insertions (inserts
    /// and the second half of moves) by `to` ascending, then updates at `to`. In that order every batch index
    /// is already the sequential one, so no index is rewritten.
    public var sequentialSteps: [SequentialStep] {
        var steps: [SequentialStep] = []
        let removals = rowChanges.filter { $0.kind == .delete || $0.kind == .move }.sorted { $0.from! > $1.from! }
        steps += removals.map { .deleteRow($0.id, at: $0.from!, isMove: $0.kind == .move) }
        steps += sectionChanges.filter { $0.kind == .delete }.sorted { $0.index > $1.index }
            .map { .deleteSection(at: $0.index, value: $0.value) }
        steps += sectionChanges.filter { $0.kind == .insert }.sorted { $0.index < $1.index }
            .map { .insertSection(at: $0.index, value: $0.value) }
        let insertions = rowChanges.filter { $0.kind == .insert || $0.kind == .move }.sorted { $0.to! < $1.to! }
        steps += insertions.map { .insertRow($0.id, at: $0.to!, isMove: $0.kind == .move) }
        steps += rowChanges.filter { $0.kind == .update }.sorted { $0.to! < $1.to! }
            .map { .updateRow($0.id, at: $0.to!, changed: $0.changed) }
        return steps
    }

    /// The batch as a `CollectionDifference` of row ids (removal offsets before, insertion offsets after,
    /// moves associated), for a view without sections; `nil` for a sectioned view. Updates are not part of a
    /// collection difference: read them from ``rowChanges``.
    public var difference: CollectionDifference<ObjectID>? {
        guard !isSectioned else { return nil }
        var changes: [CollectionDifference<ObjectID>.Change] = []
        for r in rowChanges {
            switch r.kind {
            case .delete: changes.append(.remove(offset: r.from!.row, element: r.id, associatedWith: nil))
            case .insert: changes.append(.insert(offset: r.to!.row, element: r.id, associatedWith: nil))
            case .move:
                changes.append(.remove(offset: r.from!.row, element: r.id, associatedWith: r.to!.row))
                changes.append(.insert(offset: r.to!.row, element: r.id, associatedWith: r.from!.row))
            case .update: break
            }
        }
        guard let diff = CollectionDifference(changes) else {
            preconditionFailure("ChangeSet rows do not form a collection difference")
        }
        return diff
    }
}
