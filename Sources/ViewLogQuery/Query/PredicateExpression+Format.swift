@_spi(Engine) import ViewLogModel
extension PredicateExpression: CustomStringConvertible {
    /// The expression in the format-string language. Parsing the text gives back the same tree, except that a
    /// date value comes back as its ISO-8601 string and an empty `AND`/`OR` as a constant.
    public var description: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .constant(let b):
            out += b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let e):
            out += "NOT "
            e.writeOperand(to: &out)
        case .and(let es):
            writeJoined(es, keyword: "AND", empty: "TRUEPREDICATE", to: &out)
        case .or(let es):
            writeJoined(es, keyword: "OR", empty: "FALSEPREDICATE", to: &out)
        case .comparison(.key(let k), .equal, .value(.bool(true)), []) where QuantifiedPath.isQuantified(k):
            out += k  // a quantified comparison, as written
        case let .comparison(lhs, op, rhs, options):
            out += lhs.description
            out += " "
            out += op.rawValue
            if !options.isEmpty {
                out += "["
                if options.contains(.caseInsensitive) { out += "c" }
                if options.contains(.diacriticInsensitive) { out += "d" }
                out += "]"
            }
            out += " "
            out += rhs.description
        }
    }

    private func writeJoined(_ es: [PredicateExpression], keyword: String, empty: String, to out: inout String) {
        if es.isEmpty { out += empty; return }
        if es.count == 1 { es[0].write(to: &out); return }
        for (i, e) in es.enumerated() {
            if i > 0 { out += " \(keyword) " }
            e.writeOperand(to: &out)
        }
    }

    /// Writes the expression as an operand of `NOT`, `AND` or `OR`: compound expressions in parentheses.
    private func writeOperand(to out: inout String) {
        switch self {
        case .and(let es) where es.count > 1, .or(let es) where es.count > 1:
            out += "("
            write(to: &out)
            out += ")"
        default:
            write(to: &out)
        }
    }
}

extension PredicateOperand: CustomStringConvertible {
    /// The operand in the format-string language: keys that are keywords get a `#` prefix, strings are quoted
    /// with `"` and escaped, dates become quoted ISO-8601 strings.
    public var description: String {
        switch self {
        case .key(let k):
            return PredicateKeyword(rawValue: k.uppercased()) != nil ? "#" + k : k
        case .variable(let v):
            return "$" + v
        case .list(let elements):
            return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .value(let v):
            switch v {
            case .null: return "NIL"
            case .bool(let b): return b ? "TRUE" : "FALSE"
            case .int(let i): return String(i)
            case .double(let d): return d.shortestText
            case .string(let s): return PredicateOperand.quoted(s)
            case .date(let t): return "\"\(t.iso8601)\""
            case .set(let ids): return "{" + ids.map { PredicateOperand.value($0.value).description }.joined(separator: ", ") + "}"
            }
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
