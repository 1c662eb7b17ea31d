@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The rows of a view at one position, by section, like a diffable data source's snapshot: section values
/// (names) and row ids in view order.
public struct ViewSnapshot: Sendable, Hashable, CustomStringConvertible {
    /// One section of a snapshot.
    public struct Section: Sendable, Hashable {
        /// The section's value (`null` for the one section of a view without a section key).
        public var value: Value
        /// Row ids in order.
        public var rows: [ObjectID]

        /// Makes a section.
        public init(value: Value, rows: [ObjectID]) {
            self.value = value
            self.rows = rows
        }

        /// The section's name: its value as text, `nil` for null (``Value/sectionName``).
        public var name: String? { value.sectionName }
    }

    /// Sections in view order.
    public var sections: [Section]

    /// Makes a snapshot.
    public init(sections: [Section]) {
        self.sections = sections
    }

    /// Every row id in view order.
    public var rowIDs: [ObjectID] { sections.flatMap(\.rows) }

    /// Number of rows.
    public var numberOfRows: Int { sections.reduce(0) { $0 + $1.rows.count } }

    /// The row at `indexPath`, or `nil` when it is out of range.
    public func id(at indexPath: IndexPath) -> ObjectID? {
        guard sections.indices.contains(indexPath.section),
              sections[indexPath.section].rows.indices.contains(indexPath.row) else { return nil }
        return sections[indexPath.section].rows[indexPath.row]
    }

    /// `name: id id id | name: id …`.
    public var description: String {
        sections.map { "\($0.name ?? "(null)"): " + $0.rows.map(\.description).joined(separator: " ") }.joined(separator: " | ")
    }
}
