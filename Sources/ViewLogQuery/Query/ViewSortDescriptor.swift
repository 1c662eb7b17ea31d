@_spi(Engine) import ViewLogModel
/// One key of a view's order: an attribute (or `id`) ascending or descending.
/// `null` sorts first in ascending order; ties of all descriptors are broken by id ascending.
public struct ViewSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name, or `id`.
    public var key: String
    /// Ascending (the default) or descending.
    public var ascending: Bool

    /// Makes a sort descriptor.
    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses `"sectionName, height desc, name"`: comma-separated `KEY [ASC|DESC]` (also `ASCENDING`,
    /// `DESCENDING`), keywords in any case, keys are identifiers. An empty (or blank) text is no descriptors
    /// (id order). Errors carry the 1-based column (in Unicode scalars) and say what was expected and found.
    public static func parse(_ text: String) throws(QueryError) -> [ViewSortDescriptor] {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func skipSpaces() {
            while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" || scalars[i] == "\n" || scalars[i] == "\r" {
                i += 1
            }
        }
        func word() -> String? {
            func isStart(_ u: Unicode.Scalar) -> Bool { (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || u == "_" }
            guard i < scalars.count, isStart(scalars[i]) else { return nil }
            let start = i
            while i < scalars.count {  // a name, or names joined by '.' (a key path)
                if isStart(scalars[i]) || (scalars[i] >= "0" && scalars[i] <= "9") {
                    i += 1
                } else if scalars[i] == ".", i + 1 < scalars.count, isStart(scalars[i + 1]) {
                    i += 1
                } else if scalars[i] == ".", i + 2 < scalars.count, scalars[i + 1] == "@", isStart(scalars[i + 2]) {
                    i += 2  // an aggregate: `.@count`, `.@sum.salary`
                } else {
                    break
                }
            }
            return String(String.UnicodeScalarView(scalars[start..<i]))
        }
        func found() -> String {
            guard i < scalars.count else { return "end of input" }
            let start = i
            var end = i
            while end < scalars.count, end - start < 24, scalars[end] != " ", scalars[end] != "," { end += 1 }
            if end == start { end += 1 }
            return "'" + String(String.UnicodeScalarView(scalars[start..<end])) + "'"
        }
        skipSpaces()
        if i == scalars.count { return [] }
        var result: [ViewSortDescriptor] = []
        while true {
            skipSpaces()
            let keyColumn = i + 1
            guard let key = word() else {
                throw QueryError(.querySyntax, result.isEmpty ? "expected a sort key, found \(found())"
                                                : "expected a sort key after ',', found \(found())", column: keyColumn)
            }
            skipSpaces()
            var ascending = true
            let directionColumn = i + 1
            if let direction = word() {
                switch direction.lowercased() {
                case "asc", "ascending": ascending = true
                case "desc", "descending": ascending = false
                default:
                    throw QueryError(.querySyntax, "expected ASC, DESC, ',' or end of input after '\(key)', found '\(direction)'",
                                     column: directionColumn)
                }
                skipSpaces()
            }
            result.append(ViewSortDescriptor(key: key, ascending: ascending))
            if i == scalars.count { return result }
            guard scalars[i] == "," else {
                throw QueryError(.querySyntax, "expected ',' or end of input after '\(result.last!)', found \(found())", column: i + 1)
            }
            i += 1
        }
    }

    public var description: String { ascending ? key : "\(key) desc" }
}
