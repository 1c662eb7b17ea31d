#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Timestamp {
    /// The timestamp of a `Date`, truncated toward the past to whole milliseconds (the log's precision), so
    /// `Timestamp(date:).date` never lies in the future of the original date.
    public init(date: Date) {
        let ms = (date.timeIntervalSince1970 * 1000).rounded(.down)
        self.init(milliseconds: Int64(exactly: ms) ?? (ms < 0 ? Int64.min : Int64.max))
    }

    /// The timestamp as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
