import ViewLogDocuments

/// The query parameters of a request, decoded (`+` is a space, `%XX` a byte; the text must be UTF-8), checked
/// against the names the endpoint takes: an unknown name, a repeated one that is not repeatable, or a value of the
/// wrong form is a 400 that names it.
struct RequestParameters {
    private(set) var pairs: [(name: String, value: String)] = []

    init(query: String?) throws {
        guard let query, !query.isEmpty else { return }
        guard query.utf8.count <= ServerLimits.queryBytesMax else {
            throw ServerError(.uriTooLong, .uriTooLong,
                              "the query string is \(query.utf8.count) bytes, longer than \(ServerLimits.queryBytesMax)")
        }
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard pairs.count < ServerLimits.queryParametersMax else {
                throw ServerError.tooLarge("more than \(ServerLimits.queryParametersMax) query parameters")
            }
            let eq = part.firstIndex(of: "=")
            let name = try Self.decode(eq.map { part[..<$0] } ?? part[...])
            let value = try eq.map { try Self.decode(part[part.index(after: $0)...]) } ?? ""
            pairs.append((name, value))
        }
    }

    /// Refuses a parameter not in `known`, and a repeated one not in `repeatable`.
    func check(known: Set<String>, repeatable: Set<String> = []) throws {
        var seen: Set<String> = []
        for (name, _) in pairs {
            guard known.contains(name) else {
                throw ServerError.badParameter("unknown parameter '\(name)' (this endpoint takes: \(known.sorted().joined(separator: ", ")))")
            }
            if !seen.insert(name).inserted, !repeatable.contains(name) {
                throw ServerError.badParameter("parameter '\(name)' is given more than once")
            }
        }
    }

    func string(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    func uint64(_ name: String) throws -> UInt64? {
        guard let text = string(name) else { return nil }
        guard let v = UInt64(text) else { throw ServerError.badParameter("\(name) must be a position (0, 1, 2, …), got '\(text)'") }
        return v
    }

    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let v = Int(text) else { throw ServerError.badParameter("\(name) must be an integer, got '\(text)'") }
        return v
    }

    /// A flag: `NAME=true` or `NAME=false` (absent: false).
    func flag(_ name: String) throws -> Bool {
        guard let text = string(name) else { return false }
        switch text {
        case "true": return true
        case "false": return false
        default: throw ServerError.badParameter("\(name) must be true or false, got '\(text)'")
        }
    }

    /// The view parameters (`view` or `entity`/`where`/`sort`/`section`, `include`, `limit`, `offset`, `var`), checked as the
    /// CLI checks its options.
    func selection() throws -> ViewSelection {
        let selection = ViewSelection(view: string("view"), entity: string("entity"), predicate: string("where"),
                                      sort: string("sort"), section: string("section"), include: string("include"),
                                      limit: try int("limit"), offset: try int("offset"), variables: all("var"))
        if let problem = selection.problem(option: { $0 }) { throw ServerError.badParameter(problem) }
        return selection
    }

    static let viewNames: Set<String> = ["view", "entity", "where", "sort", "section", "include", "limit", "offset", "var"]

    /// Percent-decodes `text` (in a query, `+` is a space; in a path it is itself) into UTF-8 text.
    static func decode(_ text: Substring, plusIsSpace: Bool = true) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var i = text.utf8.startIndex
        let end = text.utf8.endIndex
        while i < end {  // bounded by the text
            let b = text.utf8[i]
            if b == UInt8(ascii: "%") {
                let h1 = text.utf8.index(after: i)
                guard h1 < end, text.utf8.index(after: h1) < end,
                      let hi = hexValue(text.utf8[h1]), let lo = hexValue(text.utf8[text.utf8.index(after: h1)]) else {
                    throw ServerError.badParameter("malformed percent-encoding in '\(text)'")
                }
                bytes.append(hi << 4 | lo)
                i = text.utf8.index(i, offsetBy: 3)
            } else {
                bytes.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i = text.utf8.index(after: i)
            }
        }
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw ServerError.badParameter("'\(text)' is not UTF-8 text once percent-decoded")
        }
        return s
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
