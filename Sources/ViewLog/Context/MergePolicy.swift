@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
/// What a save does when an object it changes was changed by another transaction after the context's
/// position. Decided per object, inside the write, so the outcome is atomic.
///
/// The first five are Core Data's merge policies with Core Data's meanings:
///
/// | ViewLog | Core Data | a conflicting object ends up with |
/// | --- | --- | --- |
/// | ``error`` | `NSErrorMergePolicy` | nothing saved: the save throws ``StoreError/conflict(_:)`` |
/// | ``mergeByPropertyStoreTrump`` | `NSMergeByPropertyStoreTrumpMergePolicy` | the store's changes, plus the context's changes to other attributes |
/// | ``mergeByPropertyObjectTrump`` | `NSMergeByPropertyObjectTrumpMergePolicy` | the context's changes, plus the store's changes to other attributes |
/// | ``overwrite`` | `NSOverwriteMergePolicy` | the context's whole object, every attribute as the context sees it |
/// | ``rollback`` | `NSRollbackMergePolicy` | the store's object: the context's changes of it are dropped |
/// | ``mergeDisjointProperties`` | — | both sides' changes when they touch different attributes; else nothing saved (throws) |
///
/// Objects without a conflict are saved as staged under every policy. Whatever the policy, the decision is
/// logged like any change: the transaction holds what was actually written.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// Throw ``StoreError/conflict(_:)`` naming the objects and attributes; nothing is appended and the
    /// changes stay staged.
    case error
    /// Per attribute, the store wins: the context's change of an attribute that another transaction also
    /// changed is dropped; its changes to other attributes are saved. When the other side inserted or deleted
    /// the object, the store's version wins whole (the context's change of it is dropped).
    case mergeByPropertyStoreTrump
    /// Per attribute, the context wins: the context's changed attributes are written over the store's; the
    /// store's changes to other attributes survive. An object the store deleted is inserted again with the
    /// context's changes (and defaults); a context's delete deletes.
    case mergeByPropertyObjectTrump
    /// The context's whole object wins: every attribute is written as the context sees it (its position plus
    /// its changes), discarding the store's changes of that object; an object the store deleted is inserted
    /// again; a context's delete deletes.
    case overwrite
    /// The store wins whole: the context's changes of a conflicting object are dropped.
    case rollback
    /// Changes to different attributes of one object both survive; a conflict on the same attribute (or
    /// between an insert or delete and any change) throws as ``error`` does. No Core Data equivalent: the
    /// safest automatic merge, which never discards either side's change.
    case mergeDisjointProperties
}
