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

/// The part of the rows shown through a view's window: global ranks `[start, end)` and the index (among all
/// sections) of the window's first section.
package struct Window {
    package var start: Int
    package var end: Int
    package var firstSection: Int
    package var isEmpty: Bool { start >= end }
    package func contains(_ rank: Int) -> Bool { rank >= start && rank < end }
}

/// How a view decides which objects are its rows: a compiled predicate, or (for tests of the view engine) any
/// closure.
package enum RowMembership {
    case predicate(CompiledPredicate)
    case closure((ObjectValues, ObjectID) -> Bool)

    package func evaluate(_ values: ObjectValues, _ id: ObjectID) -> Bool {
        switch self {
        case .predicate(let p): return p.evaluate(values, id: id)
        case .closure(let f): return f(values, id)
        }
    }
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

    /// Stages the row of an object that belongs to the view, its key encoded by `order` (the rows' order, read
    /// once by the caller: reading it per row retained its arrays) in `key` (a buffer reused per row).
    /// - Returns: the row's slot in the slab.
    @discardableResult
    package func stage(_ id: ObjectID, _ values: ObjectValues, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        stageRow(id, values, order: order, key: &key)
    }

    /// ``stage(_:_:order:key:)`` of an object read with only the attributes the view reads (an initial fetch's).
    @discardableResult
    package func stage(_ id: ObjectID, _ values: FetchedValues, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        stageRow(id, values, order: order, key: &key)
    }

    /// The two ``stage(_:_:order:key:)``s, specialized here: a generic call from another module would run the key's
    /// encoding unspecialized (an initial fetch 10 % slower in `perf` when it did).
    @inline(__always)
    private func stageRow<V: AttributeValues>(_ id: ObjectID, _ values: V, order: RowOrder, key: inout ByteWriter) -> UInt32 {
        key.truncate(to: 0)
        let idStart = order.encode(id: id, values: values, into: &key)
        return key.withBytes(0..<key.count) { stage($0, idStart: idStart) }
    }
}
