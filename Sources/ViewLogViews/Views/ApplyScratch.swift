@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
#if canImport(FoundationEssentials)
import FoundationEssentials  // IndexPath
#else
import Foundation
#endif

/// A key copied into an ``ApplyScratch``'s byte arena: bytes `[start, end)`, the id from `start + idStart`, the
/// section value in `[start, start + sectionEnd)`.
package struct KeyRef: Equatable {
    package init(start: Int, end: Int, idStart: Int, sectionEnd: Int) {
        self.start = start
        self.end = end
        self.idStart = idStart
        self.sectionEnd = sectionEnd
    }

    package var start: Int
    package var end: Int
    package var idStart: Int
    package var sectionEnd: Int
}

/// A row a batch may report: an object the delta touched (a member before or after), or an untouched row
/// within reach of a window edge (it may have been shifted across it).
package struct TrackedRow {
    package init(id: ObjectID, seq: UInt64, object: Int, slot: UInt32?, oldKey: KeyRef?, newKey: KeyRef?,
                 oldRank: Int? = nil, newRank: Int? = nil, from: IndexPath? = nil, to: IndexPath? = nil,
                 candidateRankAfter: Int = 0) {
        self.id = id
        self.seq = seq
        self.object = object
        self.slot = slot
        self.oldKey = oldKey
        self.newKey = newKey
        self.oldRank = oldRank
        self.newRank = newRank
        self.from = from
        self.to = to
        self.candidateRankAfter = candidateRankAfter
    }

    package var id: ObjectID
    package var seq: UInt64
    /// The touched object's index in the delta (`-1` for an edge row).
    package var object: Int
    /// Its slot in the rows before the batch (`nil`: not a member before).
    package var slot: UInt32?
    /// Key before the batch (`nil`: not a member before). For an edge row, its unchanged key.
    package var oldKey: KeyRef?
    /// Key after the batch (`nil`: not a member after).
    package var newKey: KeyRef?
    /// Global ranks before and after.
    package var oldRank: Int?
    package var newRank: Int?
    /// Index paths in the window before and after (`nil`: not in the window).
    package var from: IndexPath?
    package var to: IndexPath?
    /// Move candidates: rank among the candidates after the batch.
    package var candidateRankAfter = 0
}

/// A section a batch may change: its key bytes in the arena, its value, and its index before and after.
package struct TrackedSection {
    package init(start: Int, end: Int, before: Int? = nil, after: Int? = nil) {
        self.start = start
        self.end = end
        self.before = before
        self.after = after
    }

    package var start: Int
    package var end: Int
    package var before: Int?
    package var after: Int?
}

/// The working memory of ``ResultsController/apply(_:)``, kept by the controller between batches so that a
/// batch allocates only what it returns: the keys it reads and makes (one byte arena), the rows and sections
/// it tracks, and the rank lists of its classification. Emptied (keeping capacity) after every batch; dropped
/// when a large batch left it large.
package struct ApplyScratch {
    package init() {}

    package var keys: [UInt8] = []
    package var tracked: [TrackedRow] = []
    /// Tracked rows by their slot before the batch.
    package var bySlot: [UInt32: Int] = [:]
    package var sections: [TrackedSection] = []
    package var leftRanks: [Int] = []
    package var enteredRanks: [Int] = []
    package var candidates: [Int] = []
    package var byNew: [Int] = []

    /// Empties every buffer, keeping capacity unless a batch made it large.
    package mutating func reset() {
        if tracked.count > 4096 || keys.count > 1 << 20 {
            self = ApplyScratch()
            return
        }
        // `removeAll(keepingCapacity:)` is a generic range replacement even on an empty array: skip those.
        if !keys.isEmpty { keys.removeAll(keepingCapacity: true) }
        if !tracked.isEmpty { tracked.removeAll(keepingCapacity: true) }
        if !bySlot.isEmpty { bySlot.removeAll(keepingCapacity: true) }
        if !sections.isEmpty { sections.removeAll(keepingCapacity: true) }
        if !leftRanks.isEmpty { leftRanks.removeAll(keepingCapacity: true) }
        if !enteredRanks.isEmpty { enteredRanks.removeAll(keepingCapacity: true) }
        if !candidates.isEmpty { candidates.removeAll(keepingCapacity: true) }
        if !byNew.isEmpty { byNew.removeAll(keepingCapacity: true) }
    }

    /// The bytes of `ref`.
    @inline(__always)
    package func withBytes<R>(_ ref: KeyRef, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        keys.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[ref.start..<ref.end])) }
    }

    /// Whether two keys in the arena have the same bytes (`false` when `b` is `nil`).
    package func same(_ a: KeyRef, _ b: KeyRef?) -> Bool {
        guard let b, a.end - a.start == b.end - b.start else { return false }
        return keys.withUnsafeBytes { p in
            compareBytes(UnsafeRawBufferPointer(rebasing: p[a.start..<a.end]),
                         UnsafeRawBufferPointer(rebasing: p[b.start..<b.end])) == 0
        }
    }

    /// Whether two keys in the arena have the same section bytes.
    package func sameSection(_ a: KeyRef, _ b: KeyRef) -> Bool {
        keys.withUnsafeBytes { p in
            compareBytes(UnsafeRawBufferPointer(rebasing: p[a.start..<(a.start + a.sectionEnd)]),
                         UnsafeRawBufferPointer(rebasing: p[b.start..<(b.start + b.sectionEnd)])) == 0
        }
    }
}
