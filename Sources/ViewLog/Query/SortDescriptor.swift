/// One key of a view's order: an attribute (or `id`) ascending or descending (DESIGN §4).
/// `null` sorts first in ascending order; ties of all descriptors are broken by id ascending.
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name, or `id`.
    public var key: String
    /// Ascending (the default) or descending.
    public var ascending: Bool

    /// Makes a sort descriptor.
    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses `"sectionName, height desc, name"`: comma-separated `KEY [ASC|DESC]`, keywords in any case.
    /// An empty text is no descriptors (id order).
    public static func parse(_ text: String) throws(QueryError) -> [SortDescriptor] {
        var result: [SortDescriptor] = []
        var column = 1
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { column += part.count + 1 }
            let words = part.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.isEmpty {
                if text.trimmingSpaces.isEmpty { return [] }
                throw QueryError("empty sort key", column: column)
            }
            guard words.count <= 2 else {
                throw QueryError("expected 'KEY [ASC|DESC]', got '\(String(part).trimmingSpaces)'", column: column)
            }
            var ascending = true
            if words.count == 2 {
                switch words[1].lowercased() {
                case "asc", "ascending": ascending = true
                case "desc", "descending": ascending = false
                default: throw QueryError("expected ASC or DESC after '\(words[0])', got '\(words[1])'", column: column)
                }
            }
            result.append(SortDescriptor(key: String(words[0]), ascending: ascending))
        }
        return result
    }

    public var description: String { ascending ? key : "\(key) desc" }
}
