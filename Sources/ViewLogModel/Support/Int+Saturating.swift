extension Int {
    /// `self + other`, or `Int.max` when that overflows.
    package func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
