import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// `append` reads a one-change line straight from its bytes when it can (`AppendInput.directEntry`) and the general
/// way otherwise. The direct reader may decline any line, but a line it reads must be one the general reader
/// accepts, read to the same entry — checked on random lines near the valid shape, and on every truncation of
/// valid ones.
@Suite("Direct line reader")
struct DirectLineReaderTests {
    static let schema = try! employeesSchema()

    /// A JSON text for a scalar, often of an attribute's type, sometimes not.
    static func scalar(using g: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<16, using: &g) {
        case 0: return "null"
        case 1: return "true"
        case 2: return "false"
        case 3: return "1.5"
        case 4: return "-0"
        case 5: return "12345678901234567890"  // past Int64: a double
        case 6: return "1e3"
        case 7: return #""2026-01-02T03:04:05Z""#
        case 8: return #""tab\tand \u00e9 \ud83d\ude00""#
        case 9: return #""é""#
        case 10: return "[1]"
        case 11: return "{}"
        case 12: return "01"
        default: return String(Int.random(in: -1_000_000...1_000_000, using: &g))
        }
    }

    static func ws(using g: inout SeededGenerator) -> String {
        ["", "", " ", "  ", "\t"].randomElement(using: &g)!
    }

    /// A line near the valid shape: half of them valid but for their spacing, key order and escapes, the others
    /// with one or more faults drawn from all the ways a line can be wrong.
    static func randomLine(using g: inout SeededGenerator) -> String {
        let wellFormed = Bool.random(using: &g)
        func fault(_ oneIn: Int) -> Bool { !wellFormed && Int.random(in: 0..<oneIn, using: &g) == 0 }
        var members: [String] = []
        let op = fault(3) ? ["upsert", "changes"].randomElement(using: &g)! : ["insert", "insert", "update", "delete"].randomElement(using: &g)!
        let entity = fault(5) ? [#""Nobody""#, "3"].randomElement(using: &g)! : [#""Employee""#, #""\u0045mployee""#].randomElement(using: &g)!
        if !fault(10) { members.append("\"\(op)\":\(ws(using: &g))\(entity)") }
        if !fault(10) {
            let id = fault(3) ? ["7", "null", "xxx"].randomElement(using: &g)! : [#""e1""#, #""e2""#, #""\u0065\u0031""#].randomElement(using: &g)!
            members.append("\"id\": \(id == "xxx" ? "\"" + String(repeating: "x", count: 600) + "\"" : id)")
        }
        if op != "delete" || fault(3) {
            var values: [String] = []
            var names = ["name", "height", "salary", "active", "hired", "sectionName", "\\u006eame"].shuffled(using: &g)
            if op == "insert", !fault(4) { names.removeAll { $0 == "\\u006eame" }; names.insert("name", at: 0) }
            if fault(4) { names.insert(["wings", "name"].randomElement(using: &g)!, at: 0) }
            for name in names.prefix(Int.random(in: op == "insert" ? 1...4 : 1...3, using: &g)) {
                let valid = [
                    "name": #""Bo""#, "sectionName": #""A \"q\"""#, "height": "170", "salary": "2.5",
                    "active": "true", "hired": #""2026-01-02T03:04:05.250Z""#,
                ][name]
                let value = fault(4) ? scalar(using: &g) : valid ?? scalar(using: &g)
                values.append("\"\(name)\"\(ws(using: &g)):\(ws(using: &g))\(value)")
            }
            members.append("\"values\": {\(values.joined(separator: ",\(ws(using: &g))"))}")
        }
        if fault(8) { members.append(#""author": "x""#) }
        if fault(8), let first = members.first { members.append(first) }  // a duplicate key
        members.shuffle(using: &g)
        var line = "\(ws(using: &g)){\(ws(using: &g))\(members.joined(separator: ",\(ws(using: &g))"))\(ws(using: &g))}\(ws(using: &g))"
        if Int.random(in: 0..<6, using: &g) == 0 { line += "\r" }
        if fault(6) { line += "x" }
        if fault(6) { line = String(line.dropLast(Int.random(in: 1...3, using: &g))) }
        return line
    }

    /// The general reader's verdict on `line`.
    static func general(_ line: String) -> Result<AppendInput.Entry?, InputError> {
        Result { () throws(InputError) in
            guard let json = try InputLines.json(Substring(line), lineNumber: 1) else { return nil }
            return try AppendInput.entry(json, line: 1, schema: schema)
        }
    }

    static func check(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let direct = AppendInput.directEntry(Substring(line), line: 1, schema: schema) else { return false }
        switch general(line) {
        case .success(let entry?): #expect(entry == direct, "\(line)", sourceLocation: sourceLocation)
        case .success(nil): Issue.record("the direct reader read a blank line: \(line)", sourceLocation: sourceLocation)
        case .failure(let error): Issue.record("the direct reader read \(line), which is refused: \(error)", sourceLocation: sourceLocation)
        }
        return true
    }

    @Test func aLineReadDirectlyIsReadTheSameByTheGeneralReader() {
        var g = SeededGenerator(seed: 0xD1_EC7)
        var direct = 0, refused = 0
        for _ in 0..<20_000 {
            let line = Self.randomLine(using: &g)
            if Self.check(line) { direct += 1 }
            if case .failure = Self.general(line) { refused += 1 }
        }
        // Both readers see plenty of lines: read directly, and refused (by the general reader, after the direct
        // one declined).
        #expect(direct > 2000 && refused > 5000, "\(direct) read directly, \(refused) refused")
    }

    @Test func everyTruncationOfAValidLineIsDeclinedOrReadTheSame() {
        let lines = [
            #"{"insert": "Employee", "id": "e1", "values": {"name": "Ann \u00e9", "height": 180, "salary": 2, "hired": "2026-01-02T03:04:05Z"}}"#,
            #"{"update": "Employee", "id": "e1", "values": {"height": null, "active": false}}"#,
            #"{"id": "e1", "delete": "Employee"}"#,
        ]
        for line in lines {
            #expect(Self.check(line), "\(line) is read directly")
            for n in 0..<line.utf8.count {
                _ = Self.check(String(decoding: line.utf8.prefix(n), as: UTF8.self))
            }
        }
    }
}
