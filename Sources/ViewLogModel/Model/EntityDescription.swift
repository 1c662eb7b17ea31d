/// An entity of the schema: its id type and its attributes.
public struct EntityDescription: Sendable, Hashable {
    /// The entity's name.
    public var name: String
    /// The type of its ids.
    public var idType: IDType
    /// Attributes, sorted by name (the order of JSON output and of the binary encoding).
    public private(set) var attributes: [Attribute]
    private var indexByName: [String: Int]
    /// Derived attributes (DESIGN §10): name → the key path each one is (`"headcount": "employees.@count"`). Never
    /// stored, given or logged, so not among ``attributes``: a view reads each as the key path it names.
    public var derived: [String: String]

    /// Makes an entity. Attribute names must be unique (checked by ``Schema/validate()``).
    public init(name: String, idType: IDType, attributes: [Attribute], derived: [String: String] = [:]) {
        self.name = name
        self.idType = idType
        self.derived = derived
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

    /// The names of the derived attributes in code-point order.
    public var derivedNames: [String] { derived.keys.sorted { Value.compareUTF8($0, $1) < 0 } }

    /// The names printed among an object's `values`: its attributes and relationships, and its derived attributes,
    /// in code-point order.
    public var valueNames: [String] {
        derived.isEmpty ? attributes.map(\.name) : (attributes.map(\.name) + derived.keys).sorted { Value.compareUTF8($0, $1) < 0 }
    }

    /// The position of the attribute named `name` in ``attributes``.
    public func index(ofAttribute name: String) -> Int? { indexByName[name] }
}
