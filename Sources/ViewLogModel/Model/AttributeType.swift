/// The type of an attribute, as written in a schema file.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case string, int, double, bool, date
}

/// The type of an entity's id, as written in a schema file: `"string"` or `"int"`.
public enum IDType: String, Sendable, Hashable, CaseIterable {
    case string, int
}
