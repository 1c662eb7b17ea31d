/// A span of time as a whole number and a unit — `90s`, `15m`, `12h`, `30d`, `2w` — as `compact --keep-for` takes it
/// (DESIGN §13).
public struct RetentionPeriod: Sendable, Hashable, CustomStringConvertible {
    /// Its length in milliseconds (at least 1 s).
    public let milliseconds: Int64
    /// The text it was read from.
    public let description: String

    /// The units, each with its length in milliseconds.
    static let units: [Character: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000]

    /// The period `text` names, or `nil` when it is not digits followed by one of `s m h d w`, is zero, or is longer
    /// than the range of timestamps.
    public init?(_ text: String) {
        guard let unit = text.last, let scale = Self.units[unit] else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let n = Int64(digits), n > 0 else { return nil }
        let (ms, overflow) = n.multipliedReportingOverflow(by: scale)
        guard !overflow, ms <= Timestamp.range.upperBound - Timestamp.range.lowerBound else { return nil }
        milliseconds = ms
        description = text
    }

    /// The time `now` minus this period: a transaction committed before it is older than the period (`nil` when
    /// that is before the range of timestamps).
    public func cutoff(from now: Timestamp) -> Timestamp? {
        let (ms, overflow) = now.milliseconds.subtractingReportingOverflow(milliseconds)
        return overflow || ms < Timestamp.range.lowerBound ? nil : Timestamp(milliseconds: ms)
    }

    /// What a period looks like, for an error about one that is not.
    public static let syntax = "a positive whole number and a unit: s, m, h, d or w (e.g. 30d, 12h)"
}
