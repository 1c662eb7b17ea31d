@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
// Where it exists (Linux), the engine imports FoundationEssentials, which holds `IndexPath` and `Date`, not all
// of Foundation: Foundation brings ICU, whose loading cost every CLI start about 4 ms (see StringFolding.swift).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// ViewLog reports row places as Foundation's `IndexPath` (`[section, row]`, the change-set rules), the type UIKit's and
// AppKit's table and collection views take, so a change set feeds them without conversion and a file that
// imports both Foundation and ViewLog sees one `IndexPath`. UIKit adds `row`/`section` to it, AppKit `item`/
// `section`; where neither is present (Linux, a macOS command-line tool), ViewLog adds the same accessors.

#if !canImport(UIKit)
extension IndexPath {
    /// Makes the index path `[section, row]`, as UIKit's `IndexPath(row:section:)` does.
    public init(row: Int, section: Int) {
        // Not `init(indexes: [section, row])`: that allocates an array for every index path of a change set.
        self.init(index: section)
        append(row)
    }

    /// The row's index within its section: the second index, as UIKit's `row`.
    public var row: Int {
        get {
            precondition(count == 2, "row is only defined for an index path of two indexes")
            return self[1]
        }
        set {
            precondition(count == 2, "row is only defined for an index path of two indexes")
            self[1] = newValue
        }
    }
}
#endif

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// The section's index: the first index, as UIKit's and AppKit's `section`.
    public var section: Int {
        get {
            precondition(count == 2, "section is only defined for an index path of two indexes")
            return self[0]
        }
        set {
            precondition(count == 2, "section is only defined for an index path of two indexes")
            self[0] = newValue
        }
    }
}
#endif
