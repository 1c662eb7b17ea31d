/// What a relationship refers to, and what deleting its target does (DESIGN §10).
///
/// A relationship is stored as an ``Attribute`` of its entity whose ``Attribute/relationship`` is set. A to-one's
/// value is the target's id (the attribute's ``Attribute/type`` is the target's id type) or `null` when it is
/// optional; a to-many's (``isToMany``) is a set of such ids, never `null`. So it is given, logged, stored and
/// printed among the object's values like any attribute, and the log alone replays it.
public struct Relationship: Sendable, Hashable {
    /// The entity its values name.
    public var target: String
    /// Whether its value is a set of ids of ``target`` (`"toMany": true`; Core Data's to-many, GRDB's
    /// `hasMany(through:)`) rather than one id: never null, and its ``inverse`` is to-many too (many-to-many).
    public var isToMany: Bool
    /// The name of the to-many relationship the target entity derives from this one (the objects that name it), or
    /// `nil`. Never stored: used in queries (`ANY employees.height > 190`, `employees.@count`).
    public var inverse: String?
    /// What deleting a target does to the objects that name it.
    public var deleteRule: DeleteRule

    /// Makes a relationship to `target`: to-one, or to-many with `isToMany`.
    public init(target: String, isToMany: Bool = false, inverse: String? = nil, deleteRule: DeleteRule) {
        self.target = target
        self.isToMany = isToMany
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// What deleting an object does to the objects whose relationship names it (`onDelete` in a schema file).
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Their relationship becomes `null`, or loses the deleted member when it is to-many (logged as updates):
        /// the default of an optional or to-many relationship, not allowed for a required to-one.
        case nullify
        /// They are deleted too (logged as deletes, each followed by its own consequences).
        case cascade
        /// The transaction is refused when, at its end, an object that exists still names the deleted one: the
        /// default of a required relationship.
        case deny
    }
}

extension Attribute {
    /// Makes the attribute that stores the relationship `name` to `target`, whose ids are `targetIDType`: to-one, or
    /// to-many with `isToMany` (which ``Schema/validate()`` refuses as optional: an empty set is its "none").
    /// `deleteRule` defaults to `nullify` when optional or to-many, `deny` otherwise.
    public init(relationship name: String, to target: String, targetIDType: IDType, isOptional: Bool = false,
                isToMany: Bool = false, inverse: String? = nil, deleteRule: Relationship.DeleteRule? = nil) {
        self.init(name: name, type: targetIDType == .int ? .int : .string, isOptional: isOptional)
        relationship = Relationship(target: target, isToMany: isToMany, inverse: inverse,
                                    deleteRule: deleteRule ?? (isOptional || isToMany ? .nullify : .deny))
    }

    /// Whether the attribute stores a to-many relationship (its value is a set of ids).
    public var isToMany: Bool { relationship?.isToMany ?? false }
}

extension EntityDescription {
    /// The attributes that store relationships, to-one and to-many, in name order.
    public var relationships: [Attribute] { attributes.filter { $0.relationship != nil } }
}

/// A to-many relationship derived from another (`inverse`): the objects of `source` whose `relationship` names an
/// object of the target entity (a to-one), or holds it among its members (a to-many: many-to-many).
public struct InverseRelationship: Sendable, Hashable {
    /// The inverse's name, an attribute-like name of the target entity.
    public var name: String
    /// The entity whose objects are its members.
    public var source: String
    /// The to-one relationship of `source` it inverts.
    public var relationship: String
    /// The entity the inverse belongs to: the target of ``relationship``.
    public var target: String
    /// Whether ``relationship`` is to-many (the pair is many-to-many): a member holds the target in its set.
    public var invertsToMany: Bool

    package init(name: String, source: String, relationship: String, target: String, invertsToMany: Bool = false) {
        self.name = name
        self.source = source
        self.relationship = relationship
        self.target = target
        self.invertsToMany = invertsToMany
    }
}
