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
        var slots: [Value] = []
        return try completeInsert(values, into: &slots)
    }

    /// The complete, checked values of an insert of `values`, as ``completeInsert(_:)`` makes them, also written
    /// into `slots` in attribute order (``attributes``: the order the log encodes them in) — what an append
    /// encodes. The object returned is `values` itself when it already is complete (every attribute given, none
    /// converted): no dictionary is built for it.
    /// - Throws: as ``completeInsert(_:)``, with the same error for the same input.
    package func completeInsert(_ values: ObjectValues, into slots: inout [Value]) throws(ObjectValuesError) -> ObjectValues {
        // A refused insert is walked again in attribute order, which finds the error: which one is reported then
        // never depends on the dictionary's order.
        let unchanged: Bool
        if let valid = completeValidInsert(values, into: &slots) {
            unchanged = valid
        } else {
            unchanged = try completeInsertInAttributeOrder(values, into: &slots)
        }
        if unchanged { return values }
        var complete = ObjectValues(minimumCapacity: attributes.count)
        for (a, v) in zip(attributes, slots) { complete[a.name] = v }
        return complete
    }

    /// Fills `slots` for an insert the schema accepts and says whether `values` is complete already, or returns
    /// `nil` when the schema refuses it: one walk over
    /// `values` in the dictionary's own order, each name matched against the attribute names without hashing it
    /// (an entity's attributes are few; a long list is searched by its index).
    private func completeValidInsert(_ values: ObjectValues, into slots: inout [Value]) -> Bool? {
        let m = attributes.count
        // The attributes given, one bit each: entities of more than 64 attributes take the general walk.
        guard values.count <= m, m <= 64 else { return nil }
        // Every slot is written below (a given value, a default or `null`): the array is reused as it is.
        if slots.count != m { slots = Array(repeating: .null, count: m) }
        var given: UInt64 = 0
        var unchanged = values.count == m
        for (name, value) in values {
            // A dictionary's names are distinct, so each matches a different attribute.
            guard let i = slotIndex(ofAttribute: name) else { return nil }
            switch Self.acceptance(of: value, type: attributes[i].type, isOptional: attributes[i].isOptional,
                                   isToMany: attributes[i].isToMany) {
            case .refused: return nil
            case .asGiven: slots[i] = value
            case .asDouble(let d): slots[i] = .double(d); unchanged = false
            }
            given |= 1 << UInt64(i)
        }
        if !unchanged {
            for i in 0..<m where given & (1 << UInt64(i)) == 0 {
                let a = attributes[i]
                if let d = a.insertDefault {
                    slots[i] = d
                } else if a.isOptional {
                    slots[i] = .null
                } else {
                    return nil  // a required attribute without a default is missing
                }
            }
        }
        return unchanged
    }

    /// What an attribute stores for a value given to it.
    private enum Acceptance {
        /// The value is refused (``checked(_:for:)`` names why).
        case refused
        /// Stored as given.
        case asGiven
        /// An integer given for a `double` attribute, stored as this double (the one conversion `coerce` makes).
        case asDouble(Double)
    }

    /// Whether an attribute of `type` (optional or not) accepts `value`: its type, `null` only when optional, an
    /// integer for a double, finite doubles, dates in range, strings of at most ``Limits/stringBytesMax`` bytes. The
    /// one statement of these rules: ``checked(_:for:)`` and the insert's fast path (which reads the attribute's
    /// fields in place, no `Attribute` copied) both decide by it, in one switch on the value.
    @inline(__always)
    private static func acceptance(of value: Value, type: AttributeType, isOptional: Bool, isToMany: Bool) -> Acceptance {
        // A to-many's value is a set of ids of its target's type, never one id alone; nothing else holds a set.
        if isToMany {
            guard case .set(let ids) = value else { return .refused }
            return ids.count <= Limits.setMembersMax && ids.allSatisfy({ Self.isID($0, of: type) }) ? .asGiven : .refused
        }
        switch value {
        case .null: return isOptional ? .asGiven : .refused
        case .string(let s): return type == .string && s.utf8.count <= Limits.stringBytesMax ? .asGiven : .refused
        case .int(let n):
            if type == .int { return .asGiven }
            return type == .double ? .asDouble(Double(n)) : .refused
        case .double(let d): return type == .double && d.isFinite ? .asGiven : .refused
        case .bool: return type == .bool ? .asGiven : .refused
        case .date(let t): return type == .date && t.isInRange ? .asGiven : .refused
        case .set: return .refused
        }
    }

    /// Whether `id` is an id a relationship whose values are `type` (the target's id type) names: of that type, and a
    /// string id at most ``Limits/idBytesMax`` bytes.
    @inline(__always)
    private static func isID(_ id: ObjectID, of type: AttributeType) -> Bool {
        (try? checkID(id, entity: "", idType: type == .int ? .int : .string)) != nil
    }

    /// The position of the attribute named `name` in ``attributes``, found by comparing names for the few
    /// attributes most entities have (cheaper than hashing the name).
    @inline(__always)
    private func slotIndex(ofAttribute name: String) -> Int? {
        guard attributes.count <= 16 else { return index(ofAttribute: name) }
        let n = name.utf8.count
        for i in attributes.indices where attributes[i].name.utf8.count == n && attributes[i].name == name { return i }
        return nil
    }

    /// Fills `slots` as ``completeInsert(_:into:)`` does and says whether `values` is complete already, walking in
    /// attribute order (one lookup each in `values`) and throwing the first error in that order; a name of `values` that no attribute matched is unknown, found after the pass from the count.
    package func completeInsertInAttributeOrder(_ values: ObjectValues, into slots: inout [Value]) throws(ObjectValuesError) -> Bool {
        slots.removeAll(keepingCapacity: true)
        var matched = 0
        var unchanged = true
        var missing: [String] = []
        for a in attributes {
            if let value = values[a.name] {
                matched += 1
                let stored = try checked(value, for: a)
                if a.type == .double, case .int = value { unchanged = false }  // the one conversion `coerce` makes
                slots.append(stored)
            } else if let d = a.insertDefault {
                slots.append(d)
                unchanged = false
            } else if a.isOptional {
                slots.append(.null)
                unchanged = false
            } else {
                missing.append(a.name)
            }
        }
        if matched < values.count {
            // The first unknown name in code-point order, so that the error does not depend on hashing.
            let unknown = values.keys.filter { attribute(named: $0) == nil }.min { Value.compareUTF8($0, $1) < 0 }
            throw unknownAttributeError(unknown ?? "")
        }
        guard missing.isEmpty else { throw .missingRequired(entity: name, attributes: missing) }
        return unchanged
    }

    /// `values` checked against the attributes and converted to their stored types, as an update stores them.
    /// - Throws: ``ObjectValuesError`` for an unknown attribute, a value of the wrong type, `null` for a required
    ///   attribute, or a string over `Limits/stringBytesMax`.
    public func checkedValues(_ values: ObjectValues) throws(ObjectValuesError) -> ObjectValues {
        var checked = ObjectValues(minimumCapacity: values.count)
        for (key, value) in values {
            guard let a = attribute(named: key) else { throw unknownAttributeError(key) }
            checked[key] = try self.checked(value, for: a)
        }
        return checked
    }

    /// The error for a value given for `name`, which is not an attribute: a derived attribute's own error, or an
    /// unknown attribute.
    package func unknownAttributeError(_ name: String) -> ObjectValuesError {
        derived[name] != nil ? .derivedAttribute(entity: self.name, attribute: name)
            : .unknownAttribute(entity: self.name, attribute: name)
    }

    /// `value` converted to the stored type of `a` (an int for a double becomes a double), or the error that
    /// refuses it: the wrong type, `null` for a required attribute, a non-finite double, a date out of range, a
    /// string over `Limits/stringBytesMax`.
    @inline(__always)
    package func checked(_ value: Value, for a: Attribute) throws(ObjectValuesError) -> Value {
        switch Self.acceptance(of: value, type: a.type, isOptional: a.isOptional, isToMany: a.isToMany) {
        case .asGiven: return value
        case .asDouble(let d): return .double(d)
        case .refused: throw refusal(of: value, for: a)
        }
    }

    /// The error that says why `a` refuses `value` (``acceptance(of:type:isOptional:isToMany:)`` refused it).
    private func refusal(of value: Value, for a: Attribute) -> ObjectValuesError {
        guard let stored = a.coerce(value) else {
            if value.isNull { return .invalidValue(entity: name, .nullForRequired(attribute: a.name)) }
            let got: String
            if a.isToMany, case .set(let ids) = value, ids.count > Limits.setMembersMax {
                got = "a set of \(ids.count) members (at most \(Limits.setMembersMax))"
            } else if a.isToMany, case .set(let ids) = value {
                let wrong = ids.first { !Self.isID($0, of: a.type) }!
                got = (wrong.type == (a.type == .int ? .int : .string) ? "an id over \(Limits.idBytesMax) bytes"
                       : "\(wrong.type == .int ? "an integer" : "a string")") + " among its members"
            } else if a.isToMany {
                let given = ObjectID(value) != nil ? "one id" : value.type.map { ($0 == .int ? "an " : "a ") + $0.rawValue } ?? "null"
                got = "\(given), not a set of ids (the relationship is to-many)"
            } else if case .set = value {
                got = "a set"
            } else {
                got = value.type.map { ($0 == .int ? "an " : "a ") + $0.rawValue } ?? "null"
            }
            return .invalidValue(entity: name, a.typeMismatch(got: got))
        }
        switch stored {
        case .double(let d) where !d.isFinite:
            return .invalidValue(entity: name, a.typeMismatch(got: "\(d) (not a finite number)"))
        case .date(let t) where !t.isInRange:
            return .invalidValue(entity: name, a.typeMismatch(got: "\(t) (outside \(Timestamp.rangeText))"))
        case .string(let s) where s.utf8.count > Limits.stringBytesMax:
            return .stringTooLong(entity: name, attribute: a.name, bytes: s.utf8.count)
        default:
            preconditionFailure("\(name).\(a.name): a value refused that the attribute's checks accept")
        }
    }

    /// Checks that `id` can identify an object of this entity: of the entity's id type, and a string id at most
    /// `Limits/idBytesMax` bytes (object keys must fit LMDB's key size).
    public func checkID(_ id: ObjectID) throws(ObjectValuesError) {
        try Self.checkID(id, entity: name, idType: idType)
    }

    /// ``checkID(_:)`` from the two fields it reads: an append checks every change's id from another module, where
    /// calling the method on a description held by a class instance copies the whole description (its name and
    /// three collections) first.
    package static func checkID(_ id: ObjectID, entity name: String, idType: IDType) throws(ObjectValuesError) {
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
        for a in attributes where !a.isOptional && a.insertDefault == nil && values[a.name] == nil {
            missing.append(a.name)
        }
        return missing
    }
}
