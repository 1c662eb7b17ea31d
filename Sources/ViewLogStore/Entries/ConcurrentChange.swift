@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// What transactions after a context's position did to one object: the attributes their updates set, whether
/// one of them inserted or deleted it, and the last seq that changed it. A save hands it, with the request and
/// the object's values at the head, to the caller's conflict function (``LogStore/save(_:author:basedOn:resolve:)``).
package struct ConcurrentChange: Equatable {
    /// Attributes set by updates after the position.
    package var attributes: Set<String>
    /// `true` when a transaction after the position inserted or deleted the object.
    package var structural: Bool
    /// The last transaction that changed the object.
    package var seq: UInt64
}

/// A conflict function's answer for one staged request: the requests to append in its place (none drops it),
/// or a conflict that refuses the whole save.
package enum MergeOutcome: Equatable {
    case requests([ChangeRequest])
    case conflict(Conflict)
}
