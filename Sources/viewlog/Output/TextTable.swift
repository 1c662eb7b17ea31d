import ViewLog

/// Aligned columns of text for human output.
struct TextTable {
    var header: [String]?
    var rows: [[String]]
    var indent = ""

    init(header: [String]? = nil, rows: [[String]], indent: String = "") {
        self.header = header
        self.rows = rows
        self.indent = indent
    }

    var lines: [String] {
        let all = (header.map { [$0] } ?? []) + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return all.map { row in
            var line = indent
            for (i, cell) in row.enumerated() {
                line += cell
                if i < row.count - 1 { line += String(repeating: " ", count: widths[i] - cell.count + 2) }
            }
            return line
        }
    }
}

extension Value {
    /// A value for human output: strings quoted only when empty, null as `null`.
    var displayText: String {
        switch self {
        case .string(let s): return s.isEmpty ? "\"\"" : s
        default: return description
        }
    }
}
