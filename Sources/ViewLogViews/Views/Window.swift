/// The part of the rows shown through a view's window: global ranks `[start, end)` and the index (among all
/// sections) of the window's first section.
package struct Window {
    package var start: Int
    package var end: Int
    package var firstSection: Int
    package var isEmpty: Bool { start >= end }
    package func contains(_ rank: Int) -> Bool { rank >= start && rank < end }
}
