@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
@_spi(Engine) import ViewLogViews
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// A section of a controller's view, as a table needs it.
public struct SectionInfo: Sendable, Hashable {
    /// The section's value (`null` for the one section of a view without a section key).
    public var value: Value
    /// Rows of the section (in the window).
    public var numberOfObjects: Int
    /// The section's name (the query language, ``Value/sectionName``): its value as text, `nil` for the section of null
    /// values and for the one section of a view without a section key. A section of the string `"null"` is named
    /// `"null"`, a different section.
    public var name: String? { value.sectionName }
    /// The first character of the name, uppercased, for a section index; `nil` without a section key, for
    /// the section of null values or for an empty name.
    public var indexTitle: String?

    /// Makes a section description.
    public init(value: Value, numberOfObjects: Int, indexTitle: String?) {
        self.value = value
        self.numberOfObjects = numberOfObjects
        self.indexTitle = indexTitle
    }
}

extension ResultsController {
    /// Whether the view has a section key.
    public var isSectioned: Bool { fetchRequest.sectionKey != nil }

    /// The window over the current rows.
    var window: Window { rows.window(shape) }

    /// The index path of the row at global rank `rank`, which must be in `window`.
    func indexPath(forRank rank: Int, in window: Window) -> IndexPath {
        rows.indexPath(forRank: rank, in: window, isSectioned: isSectioned)
    }

    /// Number of rows in the view (in the window).
    public var numberOfRows: Int {
        let w = window
        return w.end - w.start
    }

    /// Number of sections: 1 without a section key (possibly empty), else the non-empty sections.
    public var numberOfSections: Int {
        guard isSectioned else { return 1 }
        let w = window
        guard !w.isEmpty else { return 0 }
        return rows.sections.section(containingRank: w.end - 1).index - w.firstSection + 1
    }

    /// The sections in order.
    public var sections: [SectionInfo] {
        accessRows()
        let w = window
        guard isSectioned else { return [SectionInfo(value: .null, numberOfObjects: w.end - w.start, indexTitle: nil)] }
        var result: [SectionInfo] = []
        guard !w.isEmpty else { return result }
        var start = rows.sections.section(at: w.firstSection).start
        rows.sections.forEach(from: w.firstSection) { entry in
            let end = start + entry.rows
            let n = min(w.end, end) - max(w.start, start)
            result.append(SectionInfo(value: entry.value, numberOfObjects: n, indexTitle: Self.indexTitle(entry.value)))
            start = end
            return end < w.end
        }
        return result
    }

    /// The distinct index titles of the sections, in order (empty without a section key).
    public var sectionIndexTitles: [String] {
        var titles: [String] = []
        for s in sections {
            if let t = s.indexTitle, titles.last != t { titles.append(t) }
        }
        return titles
    }

    static func indexTitle(_ value: Value) -> String? {
        value.sectionName?.first.map { String($0).uppercased() }
    }

    /// The number of rows in section `section`.
    public func numberOfRows(inSection section: Int) -> Int {
        guard isSectioned else {
            precondition(section == 0, "section \(section) out of range")
            return numberOfRows
        }
        let w = window
        let s = rows.sections.section(at: w.firstSection + section)
        precondition(section >= 0 && section < numberOfSections, "section \(section) out of range")
        return min(w.end, s.end) - max(w.start, s.start)
    }

    /// The id of the row at `indexPath`.
    /// - Precondition: `indexPath` is in range.
    public func object(at indexPath: IndexPath) -> ObjectID {
        precondition(indexPath.section >= 0 && indexPath.section < numberOfSections && indexPath.row >= 0
                     && indexPath.row < numberOfRows(inSection: indexPath.section), "index path \(indexPath) out of range")
        let w = window
        guard isSectioned else { return rows.id(at: w.start + indexPath.row) }
        let s = rows.sections.section(at: w.firstSection + indexPath.section)
        return rows.id(at: max(s.start, w.start) + indexPath.row)
    }

    /// The index path of the row of `id`, or `nil` when it is not in the view (or not in the window).
    public func indexPath(for id: ObjectID) -> IndexPath? {
        guard let rank = rows.rank(of: id) else { return nil }
        let w = window
        return w.contains(rank) ? indexPath(forRank: rank, in: w) : nil
    }

    /// The ids of the rows in view order (O(rows)).
    public var fetchedObjects: [ObjectID] {
        accessRows()
        let w = window
        var ids: [ObjectID] = []
        ids.reserveCapacity(w.end - w.start)
        guard !w.isEmpty else { return ids }
        rows.forEachID(from: w.start) { id in
            ids.append(id)
            return ids.count < w.end - w.start
        }
        return ids
    }

    /// The view as section values and row ids (O(rows)).
    public var snapshot: ViewSnapshot {
        let ids = fetchedObjects
        guard isSectioned else { return ViewSnapshot(sections: [.init(value: .null, rows: ids)]) }
        var result: [ViewSnapshot.Section] = []
        var at = 0
        for s in sections {
            result.append(.init(value: s.value, rows: Array(ids[at..<(at + s.numberOfObjects)])))
            at += s.numberOfObjects
        }
        return ViewSnapshot(sections: result)
    }
}
