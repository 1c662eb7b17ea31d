/// What a to-one relationship refers to, and what deleting its target does (DESIGN §10).
///
/// A relationship is stored as an ``Attribute`` of its entity whose ``Attribute/relationship`` is set: its value is
/// the target's id (the attribute's ``Attribute/type`` is the target's id type) or `null` when it is optional. So it is
/// given, logged, stored and printed among the object's values like any attribute, and the log alone replays it.
public struct Relationship: Sendable, Hashable {
    /// The entity its values name.
    public var target: String
    /// The name of the to-many relationship the target entity derives from this one (the objects that name it), or
    /// `nil`. Never stored: used in queries (`ANY employees.height > 190`, `employees.@count`).
    public var inverse: String?
    /// What deleting a target does to the objects that name it.
    public var deleteRule: DeleteRule

    /// Makes a relationship to `target`.
    public init(target: String, inverse: String? = nil, deleteRule: DeleteRule) {
        self.target = target
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// What deleting an object does to the objects whose relationship names it (`onDelete` in a schema file).
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Their relationship becomes `null` (logged as updates): the default of an optional relationship, not
        /// allowed for a required one.
        case nullify
        /// They are deleted too (logged as deletes, each followed by its own consequences).
        case cascade
        /// The transaction is refused when, at its end, an object that exists still names the deleted one: the
        /// default of a required relationship.
        case deny
    }
}

extension Attribute {
    /// Makes the attribute that stores the to-one relationship `name` to `target`, whose ids are `targetIDType`.
    /// `deleteRule` defaults to `nullify` when optional, `deny` otherwise.
    public init(relationship name: String, to target: String, targetIDType: IDType, isOptional: Bool = false,
                inverse: String? = nil, deleteRule: Relationship.DeleteRule? = nil) {
        self.init(name: name, type: targetIDType == .int ? .int : .string, isOptional: isOptional)
        relationship = Relationship(target: target, inverse: inverse, deleteRule: deleteRule ?? (isOptional ? .nullify : .deny))
    }
}

extension EntityDescription {
    /// The attributes that store to-one relationships, in name order.
    public var relationships: [Attribute] { attributes.filter { $0.relationship != nil } }
}

/// A to-many relationship derived from a to-one (`inverse`): the objects of `source` whose `relationship` names an
/// object of the target entity.
public struct InverseRelationship: Sendable, Hashable {
    /// The inverse's name, an attribute-like name of the target entity.
    public var name: String
    /// The entity whose objects are its members.
    public var source: String
    /// The to-one relationship of `source` it inverts.
    public var relationship: String
    /// The entity the inverse belongs to: the target of ``relationship``.
    public var target: String

    package init(name: String, source: String, relationship: String, target: String) {
        self.name = name
        self.source = source
        self.relationship = relationship
        self.target = target
    }
}
