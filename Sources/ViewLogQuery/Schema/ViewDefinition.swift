@_spi(Engine) import ViewLogModel
/// A named view of the schema (`"views"` in a schema file): the parts of a fetch request, as text.
public struct ViewDefinition: Sendable, Hashable {
    /// The entity the view shows.
    public var entity: String
    /// The predicate in the query language, or `nil` for every object.
    public var predicate: String?
    /// Sort descriptors, e.g. `"sectionName, height desc, name"`, or `nil` for id order.
    public var sort: String?
    /// The attribute that groups rows into sections, or `nil` for one section.
    public var sectionKey: String?
    /// At most this many rows, or `nil` for all.
    public var limit: Int?
    /// Skip this many rows of the view order first.
    public var offset: Int?
    /// Key paths to show and follow without filtering or sorting by them, separated by commas
    /// (`"department.name, manager.name"`), or `nil`.
    public var include: String?

    /// Makes a view definition.
    public init(entity: String, predicate: String? = nil, sort: String? = nil, sectionKey: String? = nil,
                limit: Int? = nil, offset: Int? = nil, include: String? = nil) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.sectionKey = sectionKey
        self.limit = limit
        self.offset = offset
        self.include = include
    }
}
