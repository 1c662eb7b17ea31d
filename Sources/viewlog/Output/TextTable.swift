@_spi(Engine) import ViewLog

/// Aligned columns of text for human output. Widths count terminal columns (wide East Asian characters and
/// emoji take two); right-aligned columns (numbers) line up on their last digit.
struct TextTable {
    var header: [String]?
    var rows: [[String]]
    var indent = ""
    /// Indexes of the columns to align right.
    var rightAligned: Set<Int> = []

    init(header: [String]? = nil, rows: [[String]], indent: String = "", rightAligned: Set<Int> = []) {
        self.header = header
        self.rows = rows
        self.indent = indent
        self.rightAligned = rightAligned
    }

    /// The width of each column over the header and every row.
    var widths: [Int] {
        let all = (header.map { [$0] } ?? []) + rows
        var widths = [Int](repeating: 0, count: all.map(\.count).max() ?? 0)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.terminalWidth) } }
        return widths
    }

    /// All lines: the header (when there is one) and the rows.
    var lines: [String] { lines(widths: widths) }

    /// The header line alone, with `widths` (e.g. shared by several tables).
    func headerLine(widths: [Int]) -> String? { header.map { line($0, widths: widths, isHeader: true) } }

    /// The row lines alone, with `widths`.
    func rowLines(widths: [Int]) -> [String] { rows.map { line($0, widths: widths, isHeader: false) } }

    func lines(widths: [Int]) -> [String] {
        (headerLine(widths: widths).map { [$0] } ?? []) + rowLines(widths: widths)
    }

    private func line(_ row: [String], widths: [Int], isHeader: Bool) -> String {
        var line = indent
        for (i, cell) in row.enumerated() {
            let pad = String(repeating: " ", count: max(0, widths[i] - cell.terminalWidth))
            let last = i == row.count - 1
            if rightAligned.contains(i) {
                line += pad + cell
            } else {
                line += cell + (last ? "" : pad)
            }
            if !last { line += "  " }
        }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}

extension String {
    /// The number of terminal columns this text takes: two for wide East Asian characters and emoji, one for
    /// every other character (an estimate without the locale's tables, good for aligned output).
    var terminalWidth: Int {
        var width = 0
        for character in self {
            guard let scalar = character.unicodeScalars.first else { continue }
            width += scalar.isWide || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) ? 2 : 1
        }
        return width
    }
}

extension Unicode.Scalar {
    fileprivate var isWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension Value {
    /// A value for a table cell: as it is, except strings that could be misread (empty, `null`, with control
    /// characters or leading or trailing spaces), which are shown as JSON strings; null as `null`.
    var displayText: String {
        switch self {
        case .string(let s):
            let plain = !s.isEmpty && s != "null" && !s.hasPrefix("\"") && s.first?.isWhitespace != true
                && s.last?.isWhitespace != true && !s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                && !s.contains("\u{2028}") && !s.contains("\u{2029}")
            return plain ? s : JSONValue.string(s).text
        default: return description
        }
    }

    /// A value in `KEY=VALUE` or `old → new` text: like ``displayText``, and strings with spaces or `,` `=`
    /// are quoted too, so that every value reads as one token.
    var inlineText: String {
        if case .string(let s) = self, s.contains(where: { $0 == " " || $0 == "," || $0 == "=" || $0 == "→" }) {
            return JSONValue.string(s).text
        }
        return displayText
    }

    /// Whether a column of this type aligns right (numbers).
    static func alignsRight(_ type: AttributeType) -> Bool { type == .int || type == .double }
}

extension ObjectID {
    /// An id for human output: an int in decimal, a string as it is unless it could be misread (see
    /// ``Value/inlineText``).
    var displayText: String {
        switch self {
        case .int(let i): return String(i)
        case .string(let s): return Value.string(s).inlineText
        }
    }
}
