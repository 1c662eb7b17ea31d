@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
@_spi(Engine) import ViewLogStore
extension RowSlot {
    /// Rows below this count are sorted by comparisons: a radix sort's fixed cost (its counts) is not worth it.
    static let radixSortMinimum = 512

    /// Sorts `slots` by `precedes`, the order of their whole keys (whose first 12 bytes are the rows' prefixes, so
    /// that the order of the prefixes agrees with it).
    ///
    /// An initial load of many rows sorts them by prefix with a least-significant-digit radix sort (a byte per
    /// pass, a pass skipped where every row has the same byte there), then sorts each run of equal prefixes by
    /// comparison: O(n) passes instead of O(n log n) comparisons through a closure.
    static func sort(_ slots: inout [RowSlot], precedes: (RowSlot, RowSlot) -> Bool) {
        @inline(__always) func byte(_ s: RowSlot, _ k: Int) -> Int {
            k < 4 ? Int((s.prefix1 >> (8 * UInt32(k))) & 0xFF) : Int((s.prefix0 >> (8 * UInt64(k - 4))) & 0xFF)
        }
        guard slots.count >= radixSortMinimum else {
            slots.sort(by: precedes)  // the whole keys' order is the prefixes' order, ties broken
            return
        }
        // Least significant byte first: prefix1's four bytes, then prefix0's eight. One pass counts every byte
        // position's values (12 × 256 counts, small enough to stay in cache at any row count); a position where
        // every row has the same byte needs no pass.
        // In unsafe buffers: every index below is a count's offset or a byte's, in range by construction, and an
        // array store per row per pass checked uniqueness and bounds each time (a third of the sort).
        var counts = [Int](repeating: 0, count: 12 * 256)
        var scratch = slots
        counts.withUnsafeMutableBufferPointer { counts in
            for s in slots {
                for k in 0..<4 { counts[k * 256 + Int((s.prefix1 >> (8 * UInt32(k))) & 0xFF)] += 1 }
                for k in 0..<8 { counts[(4 + k) * 256 + Int((s.prefix0 >> (8 * UInt64(k))) & 0xFF)] += 1 }
            }
            for k in 0..<12 {  // twelve stable counting passes at most
                let base = k * 256
                if counts[base + byte(slots[0], k)] == slots.count { continue }  // one value for all: in order by it
                var total = 0
                for d in 0..<256 {
                    let c = counts[base + d]
                    counts[base + d] = total
                    total += c
                }
                slots.withUnsafeBufferPointer { from in
                    scratch.withUnsafeMutableBufferPointer { to in
                        if k < 4 {
                            let shift = 8 * UInt32(k)
                            for s in from {
                                let d = base + Int((s.prefix1 >> shift) & 0xFF)
                                to[counts[d]] = s
                                counts[d] += 1
                            }
                        } else {
                            let shift = 8 * UInt64(k - 4)
                            for s in from {
                                let d = base + Int((s.prefix0 >> shift) & 0xFF)
                                to[counts[d]] = s
                                counts[d] += 1
                            }
                        }
                    }
                }
                swap(&slots, &scratch)
            }
        }
        // Runs of equal prefixes, by their whole keys.
        var start = 0
        while start < slots.count {  // bounded: each step moves past one run
            var end = start + 1
            while end < slots.count, slots[end].prefix0 == slots[start].prefix0, slots[end].prefix1 == slots[start].prefix1 {
                end += 1
            }
            if end - start > 1 { slots[start..<end].sort(by: precedes) }
            start = end
        }
    }
}
