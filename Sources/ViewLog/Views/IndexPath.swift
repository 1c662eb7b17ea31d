/// The place of a row in a view: `[section, row]` (DESIGN §5). Ordered by section, then row.
///
/// ViewLog does not import Foundation; in a file that imports both, write `ViewLog.IndexPath`.
public struct IndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The row's index within its section.
    public var row: Int

    /// Makes an index path.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Makes an index path `[section, row]` from a two-element array literal order.
    public init(_ section: Int, _ row: Int) {
        self.init(section: section, row: row)
    }

    public static func < (a: IndexPath, b: IndexPath) -> Bool {
        a.section != b.section ? a.section < b.section : a.row < b.row
    }

    /// `[section,row]`.
    public var description: String { "[\(section),\(row)]" }
}
