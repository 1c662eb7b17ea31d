extension EntityDescription {
    /// `values` in canonical form for this entity: exactly its attributes, each present, `null` where the
    /// object has no value.
    ///
    /// After a schema change, one state can be spelled two ways: an object inserted before an optional attribute
    /// existed has no value for it, one computed by undoing later changes has an explicit `null`, and values of
    /// attributes that a later schema added can appear at older positions. The store returns every object in
    /// this one form, for the schema of the position it is read at.
    @inlinable
    public func canonical(_ values: ObjectValues) -> ObjectValues {
        if values.count == attributes.count, attributes.allSatisfy({ values[$0.name] != nil }) { return values }
        var out = ObjectValues(minimumCapacity: attributes.count)
        for a in attributes { out[a.name] = values[a.name] ?? a.absentValue }
        return out
    }
}
