/// A predicate in the NSPredicate format-string language (DESIGN §4), parsed but not yet bound to an entity.
///
/// INTERFACE STUB: the parser and evaluator are being written; only `TRUEPREDICATE` and `FALSEPREDICATE`
/// work until then.
public struct Predicate: Sendable, Hashable, CustomStringConvertible {
    /// The text it was parsed from.
    public let format: String
    let isTrue: Bool

    /// Every object.
    public static let all = Predicate(format: "TRUEPREDICATE", isTrue: true)

    private init(format: String, isTrue: Bool) {
        self.format = format
        self.isTrue = isTrue
    }

    /// Parses `format`. Throws a ``QueryError`` naming the column of a syntax error.
    public init(_ format: String) throws(QueryError) {
        let t = format.trimmingSpaces.uppercased()
        guard t == "TRUEPREDICATE" || t == "FALSEPREDICATE" || t.isEmpty else {
            throw QueryError("predicates are not implemented yet", column: 1)
        }
        self.init(format: format, isTrue: t != "FALSEPREDICATE")
    }

    /// Type-checks the predicate against `entity` and substitutes `variables`, giving a fast evaluator.
    /// Throws for an unknown attribute, a type mismatch or a missing variable, naming it.
    public func compiled(for entity: EntityDescription, variables: [String: Value] = [:]) throws(QueryError) -> CompiledPredicate {
        CompiledPredicate(predicate: self, isTrue: isTrue)
    }

    public var description: String { format }
}

/// A predicate bound to an entity, ready to evaluate objects.
public struct CompiledPredicate: Sendable {
    /// The predicate it was compiled from.
    public let predicate: Predicate
    let isTrue: Bool

    /// Attribute names the predicate reads (`id` included when it reads the id): an update that sets none of
    /// them cannot change membership.
    public var referencedKeys: Set<String> { [] }

    /// Whether the object with `id` and `values` matches.
    public func evaluate(_ values: ObjectValues, id: ObjectID) -> Bool { isTrue }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
