@_spi(Engine) import ViewLogModel
/// What a results controller shows: entity, predicate, sort, section key, and an optional window
/// (`limit`/`offset`) over the view order.
public struct FetchRequest: Sendable, Hashable {
    /// The entity's name.
    public var entity: String
    /// Which objects are rows.
    public var predicate: ViewPredicate
    /// Row order before the implicit id tie-breaker.
    public var sortDescriptors: [ViewSortDescriptor]
    /// The attribute (or `id`) that groups rows into sections; `nil` for one section named `null`.
    public var sectionKey: String?
    /// At most this many rows of the view order, or `nil` for all.
    public var limit: Int?
    /// Rows of the view order skipped before the window.
    public var offset: Int
    /// Values of the predicate's `$variables`.
    public var variables: [String: Value]
    /// Key paths to show and follow without filtering or sorting by them (`include`, DESIGN §10): a row's path
    /// values and its updates cover them too.
    public var includes: [String] = []

    /// Makes a fetch request.
    public init(entity: String, predicate: ViewPredicate = .all, sortDescriptors: [ViewSortDescriptor] = [],
                sectionKey: String? = nil, limit: Int? = nil, offset: Int = 0, variables: [String: Value] = [:],
                includes: [String] = []) {
        precondition(offset >= 0, "FetchRequest offset must not be negative")
        precondition(limit.map { $0 >= 0 } ?? true, "FetchRequest limit must not be negative")
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.sectionKey = sectionKey
        self.limit = limit
        self.offset = offset
        self.variables = variables
        self.includes = includes
    }

    /// Makes a fetch request from a named view's definition, parsing its predicate and sort.
    public init(_ view: ViewDefinition, variables: [String: Value] = [:]) throws(QueryError) {
        self.init(entity: view.entity,
                  predicate: try view.predicate.map { (p) throws(QueryError) in try ViewPredicate(p) } ?? .all,
                  sortDescriptors: try ViewSortDescriptor.parse(view.sort ?? ""),
                  sectionKey: view.sectionKey, limit: view.limit, offset: view.offset ?? 0, variables: variables)
        includes = FetchRequest.includes(view.include)
    }

    /// The key paths of an `include` text: names or key paths separated by commas.
    public static func includes(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { part in
            String(part.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }.filter { !$0.isEmpty }
    }
}
