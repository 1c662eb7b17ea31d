@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
/// Reading an entry for a fold by slot (``SlotRows``): the changes of one entity, each value decoded straight into
/// its attribute's slot.
///
/// The same checks as ``TransactionCodec/forEachChange(_:expectedSeq:entity:updates:_:)`` (header, checksum, every
/// length, the order of the wanted changes' names), so a damaged entry is the same ``CodecError``; but no name is
/// made into a `String`, no dictionary is built, and the values a fold does not need are stepped over: a fold
/// forwards never decodes a delete's values, an undo never decodes an insert's, and neither decodes an attribute
/// the layout does not keep.
extension TransactionCodec {
    /// Decodes the insert, update and delete changes of `entity` in one entry and appends them to `out`, in the
    /// entry's order; with `undo`, each change's inverse, with the values it takes the object back to, last change
    /// first (the order an undo applies them in).
    /// - Returns: `false` when a change names an attribute `layout` does not resolve (a log written under a
    ///   schema that is not additive): the caller folds by name instead. `out` is then incomplete.
    /// - Throws: ``CodecError`` naming what is wrong and at which byte offset.
    static func slotChanges(_ bytes: UnsafeRawBufferPointer, expectedSeq: UInt64, entity: [UInt8],
                            layout: SlotLayout, undo: Bool, into out: inout SlotChanges) throws(CodecError) -> Bool {
        let first = out.changes.count
        let resolved = try walkChanges(bytes, expectedSeq: expectedSeq, entity: entity) { kind, _, _, r throws(CodecError) in
            let id = try r.id()
            switch (kind, undo) {
            case (Kind.insert, false), (Kind.delete, true):
                guard try r.slotValues(layout, pairs: false, take: .values, into: &out) else { return false }
                out.end(.set, id: id, seq: expectedSeq)
            case (Kind.insert, true), (Kind.delete, false):
                try r.skipObjectValues()
                out.end(.remove, id: id, seq: expectedSeq)
            default:
                guard try r.slotValues(layout, pairs: true, take: undo ? .previousAsValues : .values, into: &out) else { return false }
                out.end(.merge, id: id, seq: expectedSeq)
            }
            return true
        }
        if resolved, undo { out.reverseChanges(from: first) }
        return resolved
    }
}

/// Which values ``ByteReader/slotValues(_:pairs:take:into:)`` keeps, and where.
enum SlotTake {
    /// Object values, or an update's new values, into ``SlotChanges/values``.
    case values
    /// An update's previous values into ``SlotChanges/values`` (an undo takes the object back to them).
    case previousAsValues
    /// An update's new values into ``SlotChanges/values`` and its previous ones into ``SlotChanges/previous``
    /// (a checked fold compares them with the state).
    case valuesAndPrevious
    /// Object values into ``SlotChanges/previous`` (a delete's removed object, for a checked fold).
    case previous
}

extension ByteReader {
    /// Reads object values (or, with `pairs`, an update's (name, new value, previous value) triples) into `out` by
    /// slot, keeping the side `take` says; values of attributes the layout does not keep are stepped over. Names
    /// must be strictly increasing, as ``objectValues()`` checks.
    /// - Returns: `false` at a name the layout's attributes lack.
    mutating func slotValues(_ layout: SlotLayout, pairs: Bool, take: SlotTake,
                             into out: inout SlotChanges) throws(CodecError) -> Bool {
        let n = try count("attribute count", limit: Limits.attributesMax,
                          bytesEach: pairs ? EncodedSize.updatePairMin : EncodedSize.namedValueMin)
        var j = 0
        for _ in 0..<n {
            let at = offset
            let (raw, _) = try rawName("attribute name")
            let word = ByteReader.leadingWord(raw, available: remaining + raw.count)
            // A merge walk: the logged names and the layout's are both in byte order, so j only grows, and a
            // name at or before the previous one (out of order, or repeated) cannot match at j.
            var order = 1
            while j < layout.names.count {  // bounded: j only grows
                order = layout.compare(raw, word: word, toName: j)
                if order <= 0 { break }
                j += 1
            }
            guard j < layout.names.count, order == 0 else {
                if j > 0, layout.compare(raw, word: word, toName: j - 1) <= 0 {
                    throw .invalid(field: "attribute name", offset: at, reason: "names not in strictly increasing order")
                }
                return false
            }
            let slot = layout.slotOf[j]
            j += 1
            guard slot >= 0 else {
                try skipValue()
                if pairs { try skipValue() }
                continue
            }
            if pairs, case let (added, removed)? = try setPair() {
                // A set's change, applied either way (an undo adds what it removed and removes what it added), and
                // for a checked fold also the overwritten members to compare (the same change).
                let place = out.addString(take == .previousAsValues ? CellKind.setChangeText(added: removed, removed: added)
                                                                    : CellKind.setChangeText(added: added, removed: removed))
                let change = SlotValue(slot: slot, tag: CellKind.setChange, payload: UInt64(place))
                out.append(change)
                if take == .valuesAndPrevious { out.appendPrevious(change) }
                continue
            }
            switch (pairs, take) {
            case (false, .previous): out.appendPrevious(try slotValue(slot, &out))
            case (false, _): out.append(try slotValue(slot, &out))
            case (true, .values):
                out.append(try slotValue(slot, &out))
                try skipValue()
            case (true, .previousAsValues):
                try skipValue()
                out.append(try slotValue(slot, &out))
            case (true, _):
                out.append(try slotValue(slot, &out))
                out.appendPrevious(try slotValue(slot, &out))
            }
        }
        return true
    }

    /// A tagged value for `slot`, as a cell holds it, a string kept in `out` (the same checks as ``value()``).
    @inline(__always)
    mutating func slotValue(_ slot: Int, _ out: inout SlotChanges) throws(CodecError) -> SlotValue {
        let at = offset
        let tag = try u8("value tag")
        switch tag {
        case ValueTag.null: return SlotValue(slot: slot, tag: CellKind.null, payload: 0)
        case ValueTag.string:
            let place = out.addString(try string("string value", limit: Limits.stringBytesMax))
            return SlotValue(slot: slot, tag: CellKind.string, payload: UInt64(place))
        case ValueTag.int: return SlotValue(slot: slot, tag: CellKind.int, payload: try u64("int value"))
        case ValueTag.double: return SlotValue(slot: slot, tag: CellKind.double, payload: try u64("double value"))
        case ValueTag.boolFalse: return SlotValue(slot: slot, tag: CellKind.falseBool, payload: 0)
        case ValueTag.boolTrue: return SlotValue(slot: slot, tag: CellKind.trueBool, payload: 0)
        case ValueTag.date: return SlotValue(slot: slot, tag: CellKind.date, payload: try u64("date value"))
        case ValueTag.set:
            let place = out.addString(CellKind.setText(try setMembers()))
            return SlotValue(slot: slot, tag: CellKind.set, payload: UInt64(place))
        default: throw .invalid(field: "value tag", offset: at, reason: "unknown tag \(tag)")
        }
    }
}
