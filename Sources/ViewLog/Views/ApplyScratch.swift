#if canImport(FoundationEssentials)
import FoundationEssentials  // IndexPath
#else
import Foundation
#endif

/// A key copied into an ``ApplyScratch``'s byte arena: bytes `[start, end)`, the id from `start + idStart`, the
/// section value in `[start, start + sectionEnd)`.
struct KeyRef: Equatable {
    var start: Int
    var end: Int
    var idStart: Int
    var sectionEnd: Int
}

/// A row a batch may report: an object the delta touched (a member before or after), or an untouched row
/// within reach of a window edge (it may have been shifted across it).
struct TrackedRow {
    var id: ObjectID
    var seq: UInt64
    /// The touched object's index in the delta (`-1` for an edge row).
    var object: Int
    /// Its slot in the rows before the batch (`nil`: not a member before).
    var slot: UInt32?
    /// Key before the batch (`nil`: not a member before). For an edge row, its unchanged key.
    var oldKey: KeyRef?
    /// Key after the batch (`nil`: not a member after).
    var newKey: KeyRef?
    /// Global ranks before and after.
    var oldRank: Int?
    var newRank: Int?
    /// Index paths in the window before and after (`nil`: not in the window).
    var from: IndexPath?
    var to: IndexPath?
    /// Move candidates: rank among the candidates after the batch.
    var candidateRankAfter = 0
}

/// A section a batch may change: its key bytes in the arena, its value, and its index before and after.
struct TrackedSection {
    var start: Int
    var end: Int
    var before: Int?
    var after: Int?
}

/// The working memory of ``ResultsController/apply(_:)``, kept by the controller between batches so that a
/// batch allocates only what it returns: the keys it reads and makes (one byte arena), the rows and sections
/// it tracks, and the rank lists of its classification. Emptied (keeping capacity) after every batch; dropped
/// when a large batch left it large.
struct ApplyScratch {
    var keys: [UInt8] = []
    var tracked: [TrackedRow] = []
    /// Tracked rows by their slot before the batch.
    var bySlot: [UInt32: Int] = [:]
    var sections: [TrackedSection] = []
    var leftRanks: [Int] = []
    var enteredRanks: [Int] = []
    var candidates: [Int] = []
    var byNew: [Int] = []

    /// Empties every buffer, keeping capacity unless a batch made it large.
    mutating func reset() {
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
    func withBytes<R>(_ ref: KeyRef, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        keys.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[ref.start..<ref.end])) }
    }

    /// Whether two keys in the arena have the same bytes (`false` when `b` is `nil`).
    func same(_ a: KeyRef, _ b: KeyRef?) -> Bool {
        guard let b, a.end - a.start == b.end - b.start else { return false }
        return keys.withUnsafeBytes { p in
            compareBytes(UnsafeRawBufferPointer(rebasing: p[a.start..<a.end]),
                         UnsafeRawBufferPointer(rebasing: p[b.start..<b.end])) == 0
        }
    }

    /// Whether two keys in the arena have the same section bytes.
    func sameSection(_ a: KeyRef, _ b: KeyRef) -> Bool {
        keys.withUnsafeBytes { p in
            compareBytes(UnsafeRawBufferPointer(rebasing: p[a.start..<(a.start + a.sectionEnd)]),
                         UnsafeRawBufferPointer(rebasing: p[b.start..<(b.start + b.sectionEnd)])) == 0
        }
    }
}
