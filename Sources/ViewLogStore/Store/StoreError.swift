@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Why a store operation failed, naming the input at fault. Nothing is appended when an append throws.
public enum StoreError: ViewLogError, Hashable {
    /// The directory holds no ViewLog store.
    case notAStore(path: String, reason: String)
    /// `create` found a store (or other files) already there.
    case alreadyExists(path: String)
    /// The store was written by a newer ViewLog.
    case unsupportedFormat(path: String, found: Int, supported: Int)
    /// The store uses `features` (their names, in code-point order) that this ViewLog does not know: it was written
    /// by a newer ViewLog (``LogStore/featuresKnown``).
    case unsupportedFeatures(path: String, features: [String])
    /// A change of an append was refused: `transaction` and `change` are 0-based indexes into the input.
    case invalidChange(transaction: Int, change: Int, reason: String)
    /// A context refused to stage a change (`operation`: `insert`, `update` or `delete`) of an object;
    /// nothing was staged by that call and nothing was appended.
    case invalidStagedChange(ObjectKey, operation: String, reason: String)
    /// A context refused to stage a change by predicate (`operation`: `update` or `delete` of the objects of
    /// `entity` that `predicate` matches); nothing was staged by that call and nothing was appended.
    case invalidStagedChangeByPredicate(entity: String, operation: String, predicate: String, reason: String)
    /// A transaction with no changes.
    case emptyTransaction(transaction: Int)
    /// An append with no transactions.
    case emptyInput
    /// A position past the head.
    case positionPastHead(position: UInt64, head: UInt64)
    /// A position below the store's horizon: the log up to the horizon was compacted (``LogStore/compact(_:now:)``), so
    /// no state before it can be computed.
    case compacted(position: UInt64, horizon: UInt64)
    /// The named view followed was removed by the migration at `seq` (DESIGN §13): the follow ends.
    case viewRemoved(String, seq: UInt64)
    /// A context's move from `position` over the migration at `seq` with unsaved changes, which name the schema before
    /// it: save or roll them back first (nothing moved).
    case acrossMigration(position: UInt64, seq: UInt64)
    /// A compaction refused because another process is compacting the store at `path`; nothing was changed by it.
    case compactionUnderWay(path: String)
    /// The object does not exist at the position.
    case objectNotFound(ObjectKey, position: UInt64)
    /// A log entry or object record whose bytes are damaged.
    case corrupt(seq: UInt64?, reason: String)
    /// A save from a context conflicted with later transactions (merge policy `.error`).
    case conflict([Conflict])
    /// A schema update that is not additive, or a schema that is not valid.
    case schema(SchemaError)
    /// The storage engine failed (disk full, permissions, I/O).
    case storage(String)
    /// A local-only append to a replica of a stream: it would fork the log. Append through the
    /// stream (`ViewLogReplication`) instead.
    case replica(path: String, stream: String)
    /// A revert (or undo, redo) refused because transaction `seq`, later than a reverted one and not listed, changed
    /// `attribute` of the object `key` that it would set back (`nil`: it inserted, deleted or changed the object that
    /// the revert would insert or delete).
    case revertConflict(ObjectKey, attribute: String?, seq: UInt64)
    /// A revert (or undo, redo) that cannot be made: `seq` not in the log, a schema change, nothing to undo or redo,
    /// or a result that would break integrity.
    case cannotRevert(seq: UInt64?, reason: String)

    public var description: String {
        switch self {
        case let .notAStore(path, reason): return "\(path) is not a ViewLog store: \(reason)"
        case .alreadyExists(let path): return "\(path) already exists"
        case let .unsupportedFormat(path, found, supported):
            return "\(path) has log format version \(found); this viewlog reads up to version \(supported)"
        case let .unsupportedFeatures(path, features):
            return "\(path) uses \(features.count == 1 ? "a feature" : "features") this viewlog does not support: "
                + features.joined(separator: ", ") + " (written by a newer viewlog)"
        case let .invalidChange(t, c, reason):
            return "transaction \(t + 1), change \(c + 1): \(reason)"
        case let .invalidStagedChange(key, operation, reason):
            return "cannot stage the \(operation) of \(key.entity) \(key.id.json.text): \(reason) (nothing staged, nothing saved)"
        case let .invalidStagedChangeByPredicate(entity, operation, predicate, reason):
            return "cannot stage the \(operation) of \(entity) where \(predicate): \(reason) (nothing staged, nothing saved)"
        case .emptyTransaction(let t): return "transaction \(t + 1) has no changes"
        case .emptyInput: return "no transactions to append"
        case let .positionPastHead(p, head): return "position \(p) is past the head (\(head))"
        case let .compacted(p, horizon):
            return "position \(p) is below the horizon (\(horizon)): the log up to \(horizon) was compacted"
        case let .viewRemoved(name, seq): return "view '\(name)' was removed by the migration at seq \(seq)"
        case let .acrossMigration(position, seq):
            return "cannot move the context from position \(position) over the migration at seq \(seq): its unsaved changes name the schema before it"
        case .compactionUnderWay(let path): return "another process is compacting \(path): try again when it is done"
        case let .objectNotFound(key, p): return "no \(key.entity) with id \(key.id.json.text) at position \(p)"
        case let .corrupt(seq, reason):
            if let seq { return "corrupt log entry at seq \(seq): \(reason)" }
            return "corrupt store: \(reason)"
        case .conflict(let conflicts):
            return "conflict: " + conflicts.map(\.description).joined(separator: "; ")
        case .schema(let e): return e.description
        case .storage(let m): return m
        case let .replica(path, stream):
            return "\(path) is a replica of stream \(stream): it takes appends only through the stream, never local-only ones"
        case let .revertConflict(key, attribute, seq):
            if let attribute {
                return "cannot revert: \(key.entity) \(key.id.json.text): its attribute '\(attribute)' was changed later, at seq \(seq)"
            }
            return "cannot revert: \(key.entity) \(key.id.json.text) was changed later, at seq \(seq)"
        case let .cannotRevert(seq, reason):
            return "cannot revert\(seq.map { " \($0)" } ?? ""): \(reason)"
        }
    }
}

/// One object a context saved that another transaction changed after the context's position.
public struct Conflict: Sendable, Hashable, CustomStringConvertible {
    /// The object.
    public var key: ObjectKey
    /// The attributes both sides changed (empty when one side inserted or deleted the object).
    public var attributes: [String]
    /// The latest transaction that changed it after the context's position.
    public var seq: UInt64

    /// Makes a conflict.
    public init(key: ObjectKey, attributes: [String], seq: UInt64) {
        self.key = key
        self.attributes = attributes
        self.seq = seq
    }

    public var description: String {
        let what = attributes.isEmpty ? "" : " (attributes \(attributes.joined(separator: ", ")))"
        return "\(key.entity) \(key.id.json.text) was changed by transaction \(seq)\(what)"
    }
}

extension StoreError {
    /// What kind of error, as a stable code; a ``schema(_:)`` error has its schema error's code.
    public var code: ErrorCode {
        switch self {
        case .notAStore: return .notAStore
        case .alreadyExists: return .alreadyExists
        case .unsupportedFormat: return .unsupportedFormat
        case .unsupportedFeatures: return .unsupportedFeature
        case .invalidChange: return .invalidChange
        case .invalidStagedChange, .invalidStagedChangeByPredicate: return .invalidStagedChange
        case .revertConflict: return .revertConflict
        case .cannotRevert: return .cannotRevert
        case .emptyTransaction: return .emptyTransaction
        case .emptyInput: return .emptyInput
        case .positionPastHead: return .positionPastHead
        case .compacted: return .compacted
        case .viewRemoved: return .viewRemoved
        case .acrossMigration: return .acrossMigration
        case .compactionUnderWay: return .compactionUnderWay
        case .objectNotFound: return .objectNotFound
        case .corrupt: return .corrupt
        case .conflict: return .conflict
        case .schema(let error): return error.code
        case .storage: return .storage
        case .replica: return .replicaAppend
        }
    }
}

extension StoreError {
    /// The error with its transaction index counted from `first`: an error of one batch of a write that appends
    /// several, named by its place in the whole write.
    func countingTransactions(from first: Int) -> StoreError {
        switch self {
        case let .invalidChange(t, c, reason): return .invalidChange(transaction: first + t, change: c, reason: reason)
        case let .emptyTransaction(t): return .emptyTransaction(transaction: first + t)
        default: return self
        }
    }
}
