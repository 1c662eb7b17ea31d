/// Where the engine reads an object's values by attribute name: the predicate evaluator and the row-key encoder
/// are generic over it, so that they run on an ``ObjectValues`` dictionary and, without making one, on the
/// values a fetch decoded into ``FetchedValues``.
@usableFromInline package protocol AttributeValues {
    /// The value of the attribute `name`, `nil` when absent (read as `null`).
    func value(of name: String) -> Value?
}

extension Dictionary: AttributeValues where Key == String, Value == ViewLogModel.Value {
    @inlinable
    package func value(of name: String) -> ViewLogModel.Value? { self[name] }
}

/// The values of a few attributes of one object, in slots: a fetch decodes each stored row into the same
/// `FetchedValues` (no dictionary, no allocation per row) and hands it to the controller, which keeps none of it.
///
/// A class: a scan's closures hand the one instance on by reference. A struct captured by those closures would be
/// retained and released twice per row (its two arrays), about 7 % of a small view's initial fetch.
///
/// A lookup compares `name` with the attributes' names in turn: a view reads a handful of attributes, for which
/// that is cheaper than hashing.
@usableFromInline package final class FetchedValues: AttributeValues {
    /// The attributes, sorted by name as an entity's (the order of the stored record's names).
    @usableFromInline package let attributes: [Attribute]
    /// The values, one per attribute, `null` when the record lacks it: storage the instance owns, written in place.
    /// Not an array property: the other modules' writes to a class's array check exclusivity at run time and its
    /// uniqueness on every write (`@exclusivity(unchecked)` holds only in the declaring module), about 5 % of an
    /// append that maintains three stored views. One scan owns the instance and no access to it spans a call that
    /// could reach it. The storage lives as long as the instance, which Swift may release after its last use: read the
    /// slots through an instance the code still holds (a parameter, or one used after), never through a pointer kept
    /// past that.
    @usableFromInline package let slots: UnsafeMutableBufferPointer<Value>

    package init(attributes: [Attribute]) {
        self.attributes = attributes
        slots = .allocate(capacity: attributes.count)
        slots.initialize(repeating: .null)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// The values as a dictionary, by attribute name (`null` for those the record lacks).
    package var objectValues: ObjectValues {
        var out = ObjectValues(minimumCapacity: attributes.count)
        for (a, v) in zip(attributes, slots) { out[a.name] = v }
        return out
    }

    /// Inlinable: the predicate evaluator and the key encoder, specialized for this type in other modules, call it
    /// per attribute per row (a call through the witness was ~3 % of an initial fetch).
    @inlinable
    package func value(of name: String) -> Value? {
        var i = 0
        while i < attributes.count {  // bounded by the attribute count
            if attributes[i].name == name { return slots[i] }
            i += 1
        }
        return nil
    }
}
