/// A point in time with millisecond precision, as the log stores it: milliseconds since 1970-01-01T00:00:00Z.
///
/// ViewLog keeps its own type rather than `Foundation.Date` so that values round-trip exactly through the log,
/// JSON and comparisons (a `Date` is a `Double` of seconds and cannot hold every millisecond exactly).
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Milliseconds since the Unix epoch, UTC.
    public var milliseconds: Int64

    /// Makes a timestamp from milliseconds since the Unix epoch.
    @inlinable
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    @inlinable
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// The one range of dates for input, storage and output, in milliseconds since the epoch: years 0001…9999
    /// in UTC, `0001-01-01T00:00:00.000Z` through `9999-12-31T23:59:59.999Z`. Input outside it is refused (after
    /// applying the offset: `9999-12-31T23:00:00-01:00` is year 10000), so everything `export` writes, `import` reads.
    public static let range: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// ``range`` as text, for error messages.
    public static let rangeText = "0001-01-01T00:00:00.000Z…9999-12-31T23:59:59.999Z"

    /// Whether this timestamp is in ``range``.
    @inlinable
    public var isInRange: Bool { Timestamp.range.contains(milliseconds) }

    /// The JSON form: ISO-8601, UTC, with milliseconds, e.g. `2026-11-22T10:00:00.000Z`.
    public var iso8601: String {
        // Floor division without negating `ms` (which overflows for Int64.min): every Int64 has a text, even
        // outside ``range`` (a damaged but resealed entry, shown by `viewlog log`, must not trap).
        let ms = milliseconds
        var days = ms / 86_400_000, msOfDay = ms % 86_400_000
        if msOfDay < 0 { days -= 1; msOfDay += 86_400_000 }
        let (y, m, d) = Timestamp.civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = (msOfDay / 60_000) % 60, s = (msOfDay / 1000) % 60, f = msOfDay % 1000
        func pad(_ v: Int64, _ width: Int) -> String {
            let t = String(v)
            return t.count >= width ? t : String(repeating: "0", count: width - t.count) + t
        }
        let year = y < 0 ? "-" + pad(-y, 4) : pad(y, 4)
        return "\(year)-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// Reads an ISO-8601 date-time: `YYYY-MM-DDTHH:MM:SS`, optional fraction (truncated to milliseconds),
    /// then `Z` or an offset `±HH:MM` / `±HHMM`. Returns `nil` for anything else and for a time outside
    /// ``range`` (total: never traps).
    public init?(iso8601 text: String) {
        self.init(iso8601: text, checkingRange: true)
    }

    /// Why `text` is not a timestamp, for an error message: `is not an ISO-8601 date`, or `is outside the date
    /// range …` for a well-formed date outside ``range``.
    public static func problem(iso8601 text: String) -> String {
        Timestamp(iso8601: text, checkingRange: false) == nil ? "is not an ISO-8601 date" : "is outside the date range \(rangeText)"
    }

    init?(iso8601 text: String, checkingRange: Bool) {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 64 else { return nil }
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                let c = b[k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), expect(45), let mo = digits(2), expect(45), let d = digits(2) else { return nil }
        guard i < b.count, b[i] == 84 || b[i] == 116 || b[i] == 32 else { return nil }  // T, t or space
        i += 1
        guard let h = digits(2), expect(58), let mi = digits(2), expect(58), let s = digits(2) else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= Timestamp.daysIn(month: mo, year: y),
              h <= 23, mi <= 59, s <= 59 else { return nil }
        var fractionMs: Int64 = 0
        if i < b.count, b[i] == 46 {  // '.'
            i += 1
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if count < 3 { fractionMs = fractionMs * 10 + Int64(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count >= 1, count <= 9 else { return nil }
            var scale = count
            while scale < 3 { fractionMs *= 10; scale += 1 }
        }
        var offsetMinutes: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {  // Z z
            i += 1
        } else if b[i] == 43 || b[i] == 45 {  // + -
            let sign: Int64 = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            if i < b.count, b[i] == 58 { i += 1 }
            guard let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Timestamp.days(fromCivil: y, mo, d)
        let seconds = days * 86_400 + h * 3600 + mi * 60 + s - offsetMinutes * 60
        self.milliseconds = seconds * 1000 + fractionMs
        guard isInRange || !checkingRange else { return nil }
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Timestamp: CustomStringConvertible {
    public var description: String { iso8601 }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Timestamp {
    /// The current time of the system clock.
    public static var now: Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}
