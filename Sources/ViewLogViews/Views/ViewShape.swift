@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials  // IndexPath
#else
import Foundation
#endif

/// What of a view's ordered rows a table shows: the window `offset`/`limit` over them, and whether its index
/// paths have sections.
package struct ViewShape: Equatable {
    package var offset: Int
    package var limit: Int?
    package var isSectioned: Bool

    package init(offset: Int, limit: Int?, isSectioned: Bool) {
        precondition(offset >= 0 && (limit ?? 0) >= 0, "a view's offset and limit are not negative")
        self.offset = offset
        self.limit = limit
        self.isSectioned = isSectioned
    }

    /// Whether the shape shows every row (no window).
    package var isWhole: Bool { offset == 0 && limit == nil }
}

extension OrderedRows {
    /// The window of `shape` over the current rows.
    package func window(_ shape: ViewShape) -> Window {
        let n = count
        let start = min(shape.offset, n)
        let end = shape.limit.map { min(n, shape.offset.addingSaturating($0)) } ?? n
        let first = start < end && shape.isSectioned ? sections.section(containingRank: start).index : 0
        return Window(start: start, end: max(start, end), firstSection: first)
    }

    /// The index path of the row at global rank `rank`, which must be in `window`.
    package func indexPath(forRank rank: Int, in window: Window, isSectioned: Bool) -> IndexPath {
        guard isSectioned else { return IndexPath(row: rank - window.start, section: 0) }
        let s = sections.section(containingRank: rank)
        return IndexPath(row: rank - max(s.start, window.start), section: s.index - window.firstSection)
    }
}
