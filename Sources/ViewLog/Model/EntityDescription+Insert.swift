extension EntityDescription {
    /// The full object an insert stores: `values` checked, then every absent attribute filled with
    /// its default, or `null` when it is optional without a default.
    ///
    /// - Returns: a value for every attribute of the entity, in the stored types (an integer given for a
    ///   `double` attribute becomes a double).
    /// - Throws: ``ObjectValuesError`` for an unknown attribute, a value of the wrong type, `null` for a required
    ///   attribute, a string over `Limits/stringBytesMax`, or required attributes without a default that are
    ///   absent (all of them named).
    public func completeInsert(_ values: ObjectValues) throws(ObjectValuesError) -> ObjectValues {
        var complete = try checkedValues(values)
        let missing = missingRequired(in: complete)
        guard missing.isEmpty else { throw .missingRequired(entity: name, attributes: missing) }
        for a in attributes where complete[a.name] == nil {
            complete[a.name] = a.defaultValue ?? .null
        }
        return complete
    }

    /// `values` checked against the attributes and converted to their stored types, as an update stores them.
    /// - Throws: ``ObjectValuesError`` for an unknown attribute, a value of the wrong type, `null` for a required
    ///   attribute, or a string over `Limits/stringBytesMax`.
    public func checkedValues(_ values: ObjectValues) throws(ObjectValuesError) -> ObjectValues {
        var checked = ObjectValues(minimumCapacity: values.count)
        for (key, value) in values {
            guard let a = attribute(named: key) else { throw .unknownAttribute(entity: name, attribute: key) }
            guard let stored = a.coerce(value) else {
                if value.isNull { throw .invalidValue(entity: name, .nullForRequired(attribute: key)) }
                let got = value.type.map { "a \($0.rawValue)" } ?? "null"
                throw .invalidValue(entity: name, .typeMismatch(attribute: key, expected: a.type, got: got))
            }
            if case .double(let d) = stored, !d.isFinite {
                throw .invalidValue(entity: name, .typeMismatch(attribute: key, expected: a.type, got: "\(d) (not a finite number)"))
            }
            if case .date(let t) = stored, !t.isInRange {
                throw .invalidValue(entity: name, .typeMismatch(attribute: key, expected: a.type,
                                                                 got: "\(t) (outside \(Timestamp.rangeText))"))
            }
            if case .string(let s) = stored, s.utf8.count > Limits.stringBytesMax {
                throw .stringTooLong(entity: name, attribute: key, bytes: s.utf8.count)
            }
            checked[key] = stored
        }
        return checked
    }

    /// Checks that `id` can identify an object of this entity: of the entity's id type, and a string id at most
    /// `Limits/idBytesMax` bytes (object keys must fit LMDB's key size).
    public func checkID(_ id: ObjectID) throws(ObjectValuesError) {
        guard id.type == idType else {
            throw .invalidID(entity: name, id: id, reason: "\(name) ids are \(idType == .string ? "strings" : "integers"), got \(id.type == .string ? "a string" : "an integer")")
        }
        if case .string(let s) = id, s.utf8.count > Limits.idBytesMax {
            throw .invalidID(entity: name, id: id, reason: "id is longer than \(Limits.idBytesMax) bytes")
        }
    }

    /// Names of required attributes without a default that `values` lacks, in attribute order.
    public func missingRequired(in values: ObjectValues) -> [String] {
        var missing: [String] = []
        for a in attributes where !a.isOptional && a.defaultValue == nil && values[a.name] == nil {
            missing.append(a.name)
        }
        return missing
    }
}
