@_spi(Engine) import ViewLogModel
/// A parsed `MATCHES` pattern: the regular part of the Swift `Regex` / ICU syntax, by Unicode scalar.
indirect enum RegexNode: Sendable, Equatable {
    /// Matches the empty string.
    case empty
    /// One scalar; `caseless` also matches the scalars that differ from it only in case.
    case scalar(Unicode.Scalar, caseless: Bool)
    /// One scalar of the class.
    case set(RegexScalarClass, caseless: Bool)
    /// A zero-width test of the position.
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `min` to `max` (unbounded when `nil`) repetitions.
    case repetition(RegexNode, min: Int, max: Int?)
}

/// A zero-width test of a position in the subject.
enum RegexAssertion: Sendable, Equatable {
    /// `\A`, and `^` without the `m` option: the start of the subject.
    case subjectStart
    /// `\z`: the end of the subject.
    case subjectEnd
    /// `\Z`, and `$` without the `m` option: the end, or before a line terminator (or `\r\n`) that ends the subject.
    case subjectEndOrFinalTerminator
    /// `^` with the `m` option: the start, or after a line terminator.
    case lineStart
    /// `$` with the `m` option: the end, or before a line terminator.
    case lineEnd
    /// `\b`: between a word scalar (`\w`) and a non-word scalar or an end.
    case wordBoundary
    /// `\B`: not a word boundary.
    case notWordBoundary
    /// Not before `\n`: `\R` takes `\r\n` as one line break, never `\r` alone before `\n`.
    case notBeforeLineFeed
}

/// The parser of `MATCHES` patterns (see ``RegexMatcher``). A syntax error throws ``RegexMatcher/Failure/invalid(_:)``,
/// a construct no linear-time matcher can run throws ``RegexMatcher/Failure/refused(_:)``.
struct RegexParser {
    private let p: [Unicode.Scalar]
    private var i = 0

    /// The options in effect: `i` (`[c]`), `s`, `m`, `x`.
    struct Options {
        var caseless = false
        var dotMatchesLineTerminators = false
        var multiline = false
        var extended = false
    }

    package init(_ pattern: String) {
        p = Array(pattern.unicodeScalars)
    }

    /// Parses the whole pattern.
    static func parse(_ pattern: String, caseless: Bool) throws(RegexMatcher.Failure) -> RegexNode {
        var parser = RegexParser(pattern)
        var options = Options()
        options.caseless = caseless
        let node = try parser.alternation(&options)
        if parser.i < parser.p.count {  // only a `)` stops the top level early
            throw .invalid("unbalanced ')'")
        }
        return node
    }

    // MARK: Structure

    /// Branches separated by `|`, up to a `)` (not consumed) or the end. An option setting `(?i)` lasts to the end
    /// of the enclosing group, across its branches.
    private mutating func alternation(_ options: inout Options) throws(RegexMatcher.Failure) -> RegexNode {
        var branches = [try concatenation(&options)]
        while i < p.count, p[i] == "|" {
            i += 1
            branches.append(try concatenation(&options))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation(_ options: inout Options) throws(RegexMatcher.Failure) -> RegexNode {
        var items: [RegexNode] = []
        while true {
            skipExtendedSpace(options)
            guard i < p.count, p[i] != "|", p[i] != ")" else { break }
            guard let atom = try atom(&options) else { continue }  // an option setting or a comment
            items.append(try quantified(atom, options))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// `atom` with the quantifier that follows it, if any.
    private mutating func quantified(_ atom: RegexNode, _ options: Options) throws(RegexMatcher.Failure) -> RegexNode {
        skipExtendedSpace(options)
        guard i < p.count else { return atom }
        var low = 0, high: Int? = nil
        switch p[i] {
        case "*": i += 1
        case "+": low = 1; i += 1
        case "?": high = 1; i += 1
        case "{":
            guard let (l, h, end) = countedQuantifier(at: i) else { return atom }
            guard h.map({ $0 >= l }) ?? true else {
                throw .invalid("range lower bound '\(l)' must be less than or equal to upper bound '\(h!)'")
            }
            low = l
            high = h
            i = end
        default: return atom
        }
        if i < p.count, p[i] == "+" {
            throw .refused("possessive quantifiers (*+, ++, ?+, {…}+) are not supported; "
                           + "MATCHES runs a linear-time matcher, where the plain quantifier never backtracks either")
        }
        if i < p.count, p[i] == "?" { i += 1 }  // lazy: the same yes/no answer for a whole match
        skipExtendedSpace(options)
        if i < p.count, p[i] == "*" || p[i] == "+" || p[i] == "?" || (p[i] == "{" && countedQuantifier(at: i) != nil) {
            throw .invalid("a quantifier cannot follow a quantifier; put the repeated part in a group")
        }
        if case .assertion = atom { return low == 0 ? .empty : atom }  // a zero-width test repeated is itself
        return .repetition(atom, min: low, max: high)
    }

    /// A counted quantifier `{n}`, `{n,}`, `{n,m}` or `{,m}` (spaces allowed) at `k`: its counts (saturated at
    /// `Int.max`) and its end; `nil` when the brace is a literal.
    private func countedQuantifier(at k: Int) -> (Int, Int?, Int)? {
        var j = k + 1
        var low: Int?, high: Int?
        var sawComma = false
        while j < p.count, p[j] != "}" {
            let c = p[j]
            if c >= "0" && c <= "9" {
                let d = Int(c.value - 48)
                if sawComma {
                    high = (high ?? 0).multipliedSaturating(by: 10).addingSaturating(d)
                } else {
                    low = (low ?? 0).multipliedSaturating(by: 10).addingSaturating(d)
                }
            } else if c == ",", !sawComma {
                sawComma = true
            } else if c != " " {
                return nil
            }
            j += 1
        }
        guard j < p.count, low != nil || high != nil else { return nil }
        if !sawComma { return (low!, low!, j + 1) }
        return (low ?? 0, high, j + 1)
    }

    /// One atom; `nil` for an option setting `(?i)` or a comment `(?#…)`, which match nothing.
    private mutating func atom(_ options: inout Options) throws(RegexMatcher.Failure) -> RegexNode? {
        let c = p[i]
        switch c {
        case "(":
            return try group(&options)
        case "[":
            i += 1
            return .set(try characterClass(options), caseless: options.caseless)
        case ".":
            i += 1
            return .set(.dot(matchesLineTerminators: options.dotMatchesLineTerminators), caseless: false)
        case "^":
            i += 1
            return .assertion(options.multiline ? .lineStart : .subjectStart)
        case "$":
            i += 1
            return .assertion(options.multiline ? .lineEnd : .subjectEndOrFinalTerminator)
        case "\\":
            return try escape(options)
        case "*", "+", "?":
            throw .invalid("quantifier '\(c)' has nothing to repeat")
        case "{" where countedQuantifier(at: i) != nil:
            throw .invalid("quantifier has nothing to repeat")
        default:
            i += 1
            return .scalar(c, caseless: options.caseless)
        }
    }

    /// A group, from its `(`; `nil` for an option setting or a comment.
    private mutating func group(_ options: inout Options) throws(RegexMatcher.Failure) -> RegexNode? {
        i += 1
        var inner = options
        if i < p.count, p[i] == "*" {
            throw .invalid("backtracking control verbs (*…) are not supported")
        }
        if i < p.count, p[i] == "?" {
            i += 1
            guard i < p.count else { throw .invalid("expected group specifier") }
            switch p[i] {
            case ":":
                i += 1
            case "<" where i + 1 < p.count && (p[i + 1] == "=" || p[i + 1] == "!"),
                 "=", "!":
                throw .refused("lookaround ((?=…), (?!…), (?<=…), (?<!…)) is not supported by the linear-time matcher")
            case ">":
                throw .refused("atomic groups (?>…) are not supported by the linear-time matcher; a plain group (?:…) "
                               + "gives the same answer for most patterns and never backtracks")
            case "<", "P", "'":
                if p[i] == "P" {
                    i += 1
                    if i < p.count, p[i] == "=" || p[i] == ">" { throw .refused("backreferences are not allowed") }
                    guard i < p.count, p[i] == "<" else { throw .invalid("expected '<' after '(?P'") }
                }
                let close: Unicode.Scalar = p[i] == "'" ? "'" : ">"
                i += 1
                let start = i
                while i < p.count, p[i] != close {
                    guard p[i] == "_" || p[i].properties.isAlphabetic || (p[i] >= "0" && p[i] <= "9") else {
                        throw .invalid("invalid group name")
                    }
                    i += 1
                }
                guard i < p.count, i > start else { throw .invalid("expected group name") }
                i += 1
            case "#":
                while i < p.count, p[i] != ")" { i += 1 }
                guard i < p.count else { throw .invalid("expected ')'") }
                i += 1
                return nil
            case "|", "(", "R", "&", "+", "0"..."9":
                throw .invalid("branch resets, conditionals and recursion are not supported")
            default:
                if p[i] == "-", i + 1 < p.count, p[i + 1] >= "0" && p[i + 1] <= "9" {
                    throw .invalid("branch resets, conditionals and recursion are not supported")
                }
                let isSetting = try optionSetting(&inner)
                if isSetting {
                    options = inner  // `(?i)`: to the end of the enclosing group
                    return nil
                }
            }
        }
        let body = try alternation(&inner)
        guard i < p.count, p[i] == ")" else { throw .invalid("expected ')'") }
        i += 1
        return body
    }

    /// Parses option letters after `(?` up to `)` (a setting: returns `true`) or `:` (a group: returns `false`,
    /// with `options` for its body).
    private mutating func optionSetting(_ options: inout Options) throws(RegexMatcher.Failure) -> Bool {
        var on = true
        if p[i] == "^" {  // `(?^…)`: back to the defaults first
            options = Options()
            i += 1
        }
        while i < p.count {
            let c = p[i]
            i += 1
            switch c {
            case "i": options.caseless = on
            case "s": options.dotMatchesLineTerminators = on
            case "m": options.multiline = on
            case "x": options.extended = on
            case "-" where on: on = false
            case ")": return true
            case ":": return false
            default: throw .invalid("unsupported option '\(c)' (supported: i, s, m, x)")
            }
        }
        throw .invalid("expected ')'")
    }

    /// In the `x` option, white space and `#` comments between atoms are ignored.
    private mutating func skipExtendedSpace(_ options: Options) {
        guard options.extended else { return }
        while i < p.count {
            if p[i].properties.isWhitespace {
                i += 1
            } else if p[i] == "#" {
                while i < p.count, !RegexScalarClass.lineTerminators.contains(p[i].value) { i += 1 }
            } else {
                return
            }
        }
    }

    // MARK: Escapes

    /// An escape outside a class, from its `\`.
    private mutating func escape(_ options: Options) throws(RegexMatcher.Failure) -> RegexNode {
        i += 1
        guard i < p.count else { throw .invalid("expected escape sequence") }
        let e = p[i]
        switch e {
        case "b": i += 1; return .assertion(.wordBoundary)
        case "B": i += 1; return .assertion(.notWordBoundary)
        case "A": i += 1; return .assertion(.subjectStart)
        case "z": i += 1; return .assertion(.subjectEnd)
        case "Z": i += 1; return .assertion(.subjectEndOrFinalTerminator)
        case "R":  // a line break, `\r\n` as one
            i += 1
            return .alternation([.concatenation([.scalar("\r", caseless: false), .scalar("\n", caseless: false)]),
                                 .concatenation([.scalar("\r", caseless: false), .assertion(.notBeforeLineFeed)]),
                                 .set(.intersection([RegexScalarClass.lineTerminators, .not(.scalar("\r"))]),
                                      caseless: false)])
        case "Q":
            i += 1
            var items: [RegexNode] = []
            while i < p.count, !(p[i] == "\\" && i + 1 < p.count && p[i + 1] == "E") {
                items.append(.scalar(p[i], caseless: options.caseless))
                i += 1
            }
            if i < p.count { i += 2 }
            return items.isEmpty ? .empty : .concatenation(items)
        case "E":  // a stray end of quoting
            i += 1
            return .empty
        case "1"..."9", "k", "g":
            throw .refused("backreferences are not allowed")
        case "G", "K", "X", "C", "O", "y", "Y":
            throw .invalid("'\\\(e)' is not supported")
        default:
            if let set = try classEscape(inClass: false) { return .set(set, caseless: options.caseless) }
            return .scalar(try literalEscape(), caseless: options.caseless)
        }
    }

    /// A class escape (`\d \D \w \W \s \S \h \H \v \V \N \p{…} \P{…}`) at `i` (after the `\`), consumed; `nil` when
    /// the escape is not one.
    private mutating func classEscape(inClass: Bool) throws(RegexMatcher.Failure) -> RegexScalarClass? {
        let e = p[i]
        let simple: RegexScalarClass?
        switch e {
        case "d": simple = .property(.digit)
        case "D": simple = .not(.property(.digit))
        case "w": simple = .property(.word)
        case "W": simple = .not(.property(.word))
        case "s": simple = .property(.whitespace)
        case "S": simple = .not(.property(.whitespace))
        case "h": simple = .property(.horizontalWhitespace)
        case "H": simple = .not(.property(.horizontalWhitespace))
        case "v": simple = RegexScalarClass.lineTerminators
        case "V": simple = .not(RegexScalarClass.lineTerminators)
        case "N" where !(i + 1 < p.count && p[i + 1] == "{"): simple = .not(.scalar("\n"))
        case "p", "P":
            i += 1
            let name: String
            if i < p.count, p[i] == "{" {
                let start = i + 1
                while i < p.count, p[i] != "}" { i += 1 }
                guard i < p.count else { throw .invalid("expected '}'") }
                name = String(String.UnicodeScalarView(p[start..<i]))
                i += 1
            } else if i < p.count, p[i].properties.isAlphabetic {
                name = String(p[i])
                i += 1
            } else {
                throw .invalid("expected a property name after '\\\(e)'")
            }
            var negated = e == "P"
            var key = Substring(name)
            if key.hasPrefix("^") {
                negated.toggle()
                key = key.dropFirst()
            }
            guard let property = RegexScalarProperty.named(String(key)) else {
                throw .invalid("unknown Unicode property '\(name)' (general categories such as L, Lu, Nd, and "
                               + "Alphabetic, White_Space, Uppercase, Lowercase, Any, ASCII are supported)")
            }
            return negated ? .not(.property(property)) : .property(property)
        default: simple = nil
        }
        if simple != nil { i += 1 }
        return simple
    }

    /// A literal escape at `i` (after the `\`), consumed: `\t \n \r \f \a \e \0oo \cX \xhh \x{…} \uhhhh \u{…}
    /// \Uhhhhhhhh \o{…} \N{U+…}` or a quoted non-alphanumeric scalar.
    private mutating func literalEscape() throws(RegexMatcher.Failure) -> Unicode.Scalar {
        let e = p[i]
        i += 1
        switch e {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{C}"
        case "a": return "\u{7}"
        case "e": return "\u{1B}"
        case "0":
            var value: UInt32 = 0
            var n = 0
            while n < 3, i < p.count, p[i] >= "0" && p[i] <= "7" {
                value = value * 8 + (p[i].value - 48)
                i += 1
                n += 1
            }
            return Unicode.Scalar(value)!
        case "c":
            guard i < p.count, p[i].isASCII else { throw .invalid("expected a control letter after '\\c'") }
            i += 1
            return Unicode.Scalar(p[i - 1].value & 0x1F)!
        case "x": return try hexScalar(fixed: 2, braced: true, minimumDigits: 1)
        case "u": return try hexScalar(fixed: 4, braced: true, minimumDigits: 4)
        case "U": return try hexScalar(fixed: 8, braced: false, minimumDigits: 8)
        case "o":
            guard i < p.count, p[i] == "{" else { throw .invalid("expected '{' after '\\o'") }
            i += 1
            var value: UInt32 = 0
            let start = i
            while i < p.count, p[i] >= "0" && p[i] <= "7", value <= 0x10FFFF {
                value = value * 8 + (p[i].value - 48)
                i += 1
            }
            guard i > start, i < p.count, p[i] == "}", let u = Unicode.Scalar(value) else {
                throw .invalid("invalid octal escape")
            }
            i += 1
            return u
        case "N":  // `\N{U+hhhh}`
            guard i + 2 < p.count, p[i] == "{", p[i + 1] == "U", p[i + 2] == "+" else {
                throw .invalid("only '\\N{U+hhhh}' is supported, not named characters")
            }
            i += 3
            return try hexScalar(fixed: 0, braced: true, minimumDigits: 1, opened: true)
        default:
            if e.isASCII, e.properties.isAlphabetic || (e >= "0" && e <= "9") {
                throw .invalid("invalid escape sequence '\\\(e)'")
            }
            return e  // a quoted metacharacter, or any other scalar (a combining mark is a literal code point)
        }
    }

    /// Hex digits at `i`: `{h…}` when `braced` and a brace follows (or `h…}` when `opened`), else up to `fixed`
    /// digits (at least `minimumDigits`).
    private mutating func hexScalar(fixed: Int, braced: Bool, minimumDigits: Int,
                                    opened: Bool = false) throws(RegexMatcher.Failure) -> Unicode.Scalar {
        func digit(_ u: Unicode.Scalar) -> UInt32? {
            switch u {
            case "0"..."9": return u.value - 48
            case "a"..."f": return u.value - 87
            case "A"..."F": return u.value - 55
            default: return nil
            }
        }
        var value: UInt32 = 0
        var count = 0
        if opened || (braced && i < p.count && p[i] == "{") {
            if !opened { i += 1 }
            while i < p.count, p[i] == " " { i += 1 }
            while i < p.count, let d = digit(p[i]), count < 8 {
                value = value * 16 + d
                count += 1
                i += 1
            }
            while i < p.count, p[i] == " " { i += 1 }
            guard count > 0, i < p.count, p[i] == "}" else { throw .invalid("invalid hexadecimal escape") }
            i += 1
        } else {
            while count < fixed, i < p.count, let d = digit(p[i]) {
                value = value * 16 + d
                count += 1
                i += 1
            }
            guard count >= min(minimumDigits, fixed) else { throw .invalid("invalid hexadecimal escape") }
        }
        guard let u = Unicode.Scalar(value) else { throw .invalid("invalid scalar value \\u{\(String(value, radix: 16))}") }
        return u
    }

    // MARK: Classes

    /// A class `[…]` after its `[`, up to and including its `]`.
    private mutating func characterClass(_ options: Options) throws(RegexMatcher.Failure) -> RegexScalarClass {
        var negated = false
        if i < p.count, p[i] == "^" {
            negated = true
            i += 1
        }
        var result = try classMembers(first: true)
        while i + 1 < p.count, p[i] == p[i + 1], p[i] == "&" || p[i] == "-" || p[i] == "~" {
            let op = p[i]
            i += 2
            let rhs = try classMembers(first: false)
            switch op {
            case "&": result = .intersection([result, rhs])
            case "-": result = .intersection([result, .not(rhs)])
            default: result = .symmetricDifference(result, rhs)
            }
        }
        guard i < p.count, p[i] == "]" else { throw .invalid("expected ']'") }
        i += 1
        return negated ? .not(result) : result
    }

    /// Members of a class up to its `]` or a set operator (`&&`, `--`, `~~`), not consumed.
    private mutating func classMembers(first: Bool) throws(RegexMatcher.Failure) -> RegexScalarClass {
        var ranges: [ClosedRange<UInt32>] = []
        var others: [RegexScalarClass] = []
        var atStart = first
        while i < p.count {
            let c = p[i]
            if c == "]", !atStart { break }
            if i + 1 < p.count, c == p[i + 1], c == "&" || c == "-" || c == "~" { break }
            atStart = false
            if c == "[" {
                if i + 1 < p.count, p[i + 1] == ":" {
                    others.append(try posixClass())
                } else {
                    i += 1
                    others.append(try characterClass(Options()))
                }
                continue
            }
            var low: Unicode.Scalar
            if c == "\\" {
                i += 1
                guard i < p.count else { throw .invalid("expected escape sequence") }
                if p[i] == "Q" {  // `\Q…\E` in a class: literal members
                    i += 1
                    while i < p.count, !(p[i] == "\\" && i + 1 < p.count && p[i + 1] == "E") {
                        ranges.append(p[i].value...p[i].value)
                        i += 1
                    }
                    if i < p.count { i += 2 }
                    continue
                }
                if let set = try classEscape(inClass: true) {
                    others.append(set)
                    continue
                }
                if p[i] == "b" {
                    i += 1
                    low = "\u{8}"
                } else {
                    low = try literalEscape()
                }
            } else {
                i += 1
                low = c
            }
            // A range `a-z`, unless the `-` ends the class or starts a set operator.
            if i + 1 < p.count, p[i] == "-", p[i + 1] != "]", p[i + 1] != "-" {
                i += 1
                var high: Unicode.Scalar
                if p[i] == "\\" {
                    i += 1
                    guard i < p.count else { throw .invalid("expected escape sequence") }
                    high = try literalEscape()
                } else if p[i] == "[" {
                    throw .invalid("invalid range in a character class")
                } else {
                    high = p[i]
                    i += 1
                }
                guard low <= high else {
                    throw .invalid("invalid character class range '\(low)-\(high)'")
                }
                ranges.append(low.value...high.value)
            } else {
                ranges.append(low.value...low.value)
            }
        }
        guard i < p.count else { throw .invalid("expected ']'") }
        if !ranges.isEmpty { others.insert(.ranges(RegexScalarClass.normalized(ranges)), at: 0) }
        return others.count == 1 ? others[0] : .union(others)
    }

    /// `[:name:]` or `[:^name:]`, from its `[`.
    private mutating func posixClass() throws(RegexMatcher.Failure) -> RegexScalarClass {
        i += 2
        var negated = false
        if i < p.count, p[i] == "^" {
            negated = true
            i += 1
        }
        let start = i
        while i < p.count, p[i] != ":" { i += 1 }
        guard i + 1 < p.count, p[i + 1] == "]" else { throw .invalid("expected ':]'") }
        let name = String(String.UnicodeScalarView(p[start..<i])).lowercased()
        i += 2
        guard let set = RegexScalarProperty.posix(name) else { throw .invalid("unknown POSIX class '[:\(name):]'") }
        return negated ? .not(set) : set
    }
}

extension Int {
    func multipliedSaturating(by other: Int) -> Int {
        let (r, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? Int.max : r
    }
}
