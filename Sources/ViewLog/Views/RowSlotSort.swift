extension RowSlot {
    /// Rows below this count are sorted by comparisons: a radix sort's fixed cost (its counts) is not worth it.
    static let radixSortMinimum = 2048

    /// Sorts `slots` as ``OrderedRows``' order sorts them: by their 12-byte key prefixes, then — where two rows
    /// share them — by `precedes` (their whole keys).
    ///
    /// An initial load of many rows sorts them by prefix with a least-significant-digit radix sort (16-bit digits,
    /// a pass skipped where every row has the same digit), then sorts each run of equal prefixes by comparison:
    /// O(n) passes instead of O(n log n) comparisons through a closure.
    static func sort(_ slots: inout [RowSlot], precedes: (RowSlot, RowSlot) -> Bool) {
        guard slots.count >= radixSortMinimum else {
            slots.sort { a, b in
                if a.prefix0 != b.prefix0 { return a.prefix0 < b.prefix0 }
                if a.prefix1 != b.prefix1 { return a.prefix1 < b.prefix1 }
                return precedes(a, b)
            }
            return
        }
        var scratch = slots
        var counts = [Int](repeating: 0, count: 1 << 16)
        // Least significant first: prefix1's two digits, then prefix0's four.
        let digits: [(RowSlot) -> Int] = [
            { Int($0.prefix1 & 0xFFFF) }, { Int($0.prefix1 >> 16) },
            { Int($0.prefix0 & 0xFFFF) }, { Int(($0.prefix0 >> 16) & 0xFFFF) },
            { Int(($0.prefix0 >> 32) & 0xFFFF) }, { Int($0.prefix0 >> 48) },
        ]
        for digit in digits {  // six stable counting passes
            for i in counts.indices { counts[i] = 0 }
            for s in slots { counts[digit(s)] += 1 }
            if counts[digit(slots[0])] == slots.count { continue }  // one digit for all: already in order by it
            var total = 0
            for i in counts.indices {
                let c = counts[i]
                counts[i] = total
                total += c
            }
            for s in slots {
                let d = digit(s)
                scratch[counts[d]] = s
                counts[d] += 1
            }
            swap(&slots, &scratch)
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
