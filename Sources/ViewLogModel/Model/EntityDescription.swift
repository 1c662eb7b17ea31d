/// An entity of the schema: its id type and its attributes.
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name.
    public var name: String
    /// The type of its ids.
    public var idType: IDType
    /// Attributes, sorted by name (the order of JSON output and of the binary encoding).
    public private(set) var attributes: [Attribute]
    private var indexByName: [String: Int]

    /// Makes an entity. Attribute names must be unique (checked by ``Schema/validate()``).
    public init(name: String, idType: IDType, attributes: [Attribute]) {
        self.name = name
        self.idType = idType
        self.attributes = attributes.sorted { Value.compareUTF8($0.name, $1.name) < 0 }
        var index: [String: Int] = [:]
        for (i, a) in self.attributes.enumerated() where index[a.name] == nil { index[a.name] = i }
        self.indexByName = index
    }

    /// The attribute named `name`, if any.
    @inlinable
    public func attribute(named name: String) -> Attribute? {
        guard let i = index(ofAttribute: name) else { return nil }
        return attributes[i]
    }

    /// The position of the attribute named `name` in ``attributes``.
    public func index(ofAttribute name: String) -> Int? { indexByName[name] }
}
