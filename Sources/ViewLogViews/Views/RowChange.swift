@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// One row change of a batch.
public struct RowChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the row.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The row left the view: `from` is its index path before the batch.
        case delete
        /// The row entered the view: `to` is its index path after the batch.
        case insert
        /// The row stayed, its section or sort values changed, and it changed section or its place relative
        /// to another row that stayed: `from` before, `to` after.
        case move
        /// The row stayed, its values changed, and it is not a move: `from` before, `to` after.
        case update
    }

    /// What happened.
    public let kind: Kind
    /// The row's object.
    public let id: ObjectID
    /// Index path before the batch: deletes, moves and updates.
    public let from: IndexPath?
    /// Index path after the batch: inserts, moves and updates.
    public let to: IndexPath?
    /// The last transaction of the batch that touched the row (in the direction of the move). A row that
    /// only crossed a `limit`/`offset` edge because of other rows gets the batch's latest such transaction.
    public var seq: UInt64
    /// Moves and updates: every attribute whose value differs between before and after, sorted by name.
    /// Empty for inserts and deletes.
    public var changed: [String]

    /// Makes a row change; `from`/`to` must be given exactly as ``Kind`` requires.
    public init(kind: Kind, id: ObjectID, from: IndexPath?, to: IndexPath?, seq: UInt64, changed: [String] = []) {
        switch kind {
        case .delete: precondition(from != nil && to == nil, "a delete has only `from`")
        case .insert: precondition(from == nil && to != nil, "an insert has only `to`")
        case .move, .update: precondition(from != nil && to != nil, "a move or update has `from` and `to`")
        }
        self.kind = kind
        self.id = id
        self.from = from
        self.to = to
        self.seq = seq
        self.changed = changed
    }

    /// A delete at `from`.
    public static func delete(_ id: ObjectID, from: IndexPath, seq: UInt64) -> RowChange {
        RowChange(kind: .delete, id: id, from: from, to: nil, seq: seq)
    }

    /// An insert at `to`.
    public static func insert(_ id: ObjectID, to: IndexPath, seq: UInt64) -> RowChange {
        RowChange(kind: .insert, id: id, from: nil, to: to, seq: seq)
    }

    /// A move from `from` to `to`.
    public static func move(_ id: ObjectID, from: IndexPath, to: IndexPath, seq: UInt64, changed: [String]) -> RowChange {
        RowChange(kind: .move, id: id, from: from, to: to, seq: seq, changed: changed)
    }

    /// An update at `from` (before) / `to` (after).
    public static func update(_ id: ObjectID, from: IndexPath, to: IndexPath, seq: UInt64, changed: [String]) -> RowChange {
        RowChange(kind: .update, id: id, from: from, to: to, seq: seq, changed: changed)
    }

    public var description: String {
        var s = "\(kind.rawValue) \(id)"
        if let from { s += " from \(from)" }
        if let to { s += " to \(to)" }
        if !changed.isEmpty { s += " changed \(changed.joined(separator: ","))" }
        return s + " seq \(seq)"
    }
}
