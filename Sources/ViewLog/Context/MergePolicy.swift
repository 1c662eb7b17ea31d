/// What a save does when an object it changes was changed by another transaction after the context's
/// position (DESIGN §6). Decided per object, inside the write, so the outcome is atomic.
public enum MergePolicy: Sendable, Hashable {
    /// Throw ``StoreError/conflict(_:)`` naming the objects and attributes; nothing is appended.
    case error
    /// The store's version wins: the context's changes of a conflicting object are dropped.
    case storeWins
    /// The context's version wins: its changes are written over the store's (an object the store deleted
    /// is inserted again with the context's values).
    case contextWins
    /// Changes to different attributes of one object both survive; a conflict on the same attribute
    /// (or between a delete and a change) throws as `.error` does.
    case mergeByProperty
}
