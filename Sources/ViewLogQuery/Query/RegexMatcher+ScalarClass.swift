@_spi(Engine) import ViewLogModel
/// A set of Unicode scalars that one step of a `MATCHES` pattern accepts: a literal class `[a-z]`, an escape
/// such as `\d`, a Unicode property `\p{Lu}`, a POSIX class `[[:alpha:]]`, or `.`; classes combine by union,
/// intersection (`&&`), difference (`--`), symmetric difference (`~~`) and negation (`[^…]`).
///
/// The escapes mean what they mean in Swift's `Regex` matching by Unicode scalar (checked over every scalar by
/// the differential test): `\d` a scalar with a numeric value, `\w` alphabetic, an ASCII digit or `_`, `\s`
/// white space, `\h` tab or a space separator, `\v` a line terminator, `.` anything but a line terminator.
indirect enum RegexScalarClass: Sendable, Equatable {
    /// Scalars in these ranges (sorted, not overlapping).
    case ranges([ClosedRange<UInt32>])
    /// Scalars with this property.
    case property(RegexScalarProperty)
    /// Scalars not in the class.
    case not(RegexScalarClass)
    /// Scalars in any of the classes.
    case union([RegexScalarClass])
    /// Scalars in all of the classes.
    case intersection([RegexScalarClass])
    /// Scalars in exactly one of the two classes (`~~`). Its own case, each side evaluated once: spelled as
    /// `(a && !b) || (!a && b)`, a chain of n `~~` evaluated its left side 2ⁿ times (a fuzzer's pattern of 35 took
    /// longer than the fuzzer's timeout).
    case symmetricDifference(RegexScalarClass, RegexScalarClass)

    /// Whether `u` is in the class.
    package func contains(_ u: UInt32) -> Bool {
        switch self {
        case .ranges(let ranges):
            var low = 0, high = ranges.count  // binary search over sorted ranges
            while low < high {
                let mid = (low + high) / 2
                if ranges[mid].upperBound < u { low = mid + 1 } else { high = mid }
            }
            return low < ranges.count && ranges[low].contains(u)
        case .property(let p): return p.contains(u)
        case .not(let c): return !c.contains(u)
        case .union(let cs): return cs.contains { $0.contains(u) }
        case .intersection(let cs): return cs.allSatisfy { $0.contains(u) }
        case let .symmetricDifference(a, b): return a.contains(u) != b.contains(u)
        }
    }

    /// Whether `u`, or a scalar that differs from it only in case, is in the class; negation applies after that
    /// closure, so `[^a]` matches neither `a` nor `A` (as ICU closes a class over case before complementing it).
    func containsIgnoringCase(_ u: UInt32) -> Bool {
        switch self {
        case .ranges, .property:
            if contains(u) { return true }
            guard let scalar = Unicode.Scalar(u) else { return false }
            return RegexScalarClass.caseVariants(of: scalar).contains { contains($0) }
        case .not(let c): return !c.containsIgnoringCase(u)
        case .union(let cs): return cs.contains { $0.containsIgnoringCase(u) }
        case .intersection(let cs): return cs.allSatisfy { $0.containsIgnoringCase(u) }
        case let .symmetricDifference(a, b): return a.containsIgnoringCase(u) != b.containsIgnoringCase(u)
        }
    }

    /// The scalars that differ from `u` only in case: its one-scalar lower, upper and title case mappings and
    /// its simple case folding.
    static func caseVariants(of u: Unicode.Scalar) -> [UInt32] {
        if u.isASCII {
            let v = u.value
            if v >= 65 && v <= 90 { return [v + 32] }
            if v >= 97 && v <= 122 { return [v - 32] }
            return []
        }
        let p = u.properties
        guard p.changesWhenCaseMapped || p.changesWhenCaseFolded else { return [] }
        var out: [UInt32] = []
        for mapping in [p.lowercaseMapping, p.uppercaseMapping, p.titlecaseMapping] {
            var it = mapping.unicodeScalars.makeIterator()
            if let first = it.next(), it.next() == nil, first != u { out.append(first.value) }
        }
        let folded = StringFolding.caseFold(u)
        if folded != u { out.append(folded.value) }
        return out
    }

    /// The class of a single scalar.
    static func scalar(_ u: Unicode.Scalar) -> RegexScalarClass { .ranges([u.value...u.value]) }

    /// `ranges` sorted and merged, so that ``contains(_:)`` can search them.
    static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound &+ 1 {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// Line terminators: `\n`, vertical tab, form feed, `\r`, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.
    static let lineTerminators: RegexScalarClass = .ranges([0x0A...0x0D, 0x85...0x85, 0x2028...0x2029])

    /// `.`: anything but a line terminator; with the `s` option, anything.
    static func dot(matchesLineTerminators: Bool) -> RegexScalarClass {
        matchesLineTerminators ? .property(.any) : .not(lineTerminators)
    }
}

/// A property a scalar can have, for the escapes `\d \w \s \h`, `\p{…}` and POSIX classes.
enum RegexScalarProperty: Sendable, Equatable {
    case any, assigned, ascii
    /// `\d`: a scalar with a numeric value.
    case digit
    /// `\w`: alphabetic, an ASCII digit or `_`.
    case word
    /// `\s`: White_Space.
    case whitespace
    /// `\h`: tab or a space separator.
    case horizontalWhitespace
    case alphabetic, uppercase, lowercase, ideographic, math, hexDigit, emoji
    /// One of these general categories.
    case categories(Set<Unicode.GeneralCategory>)

    package func contains(_ u: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(u) else { return false }
        if scalar.isASCII {  // the common case, without the property tables
            switch self {
            case .digit: return u >= 48 && u <= 57
            case .word: return (u >= 48 && u <= 57) || (u >= 65 && u <= 90) || (u >= 97 && u <= 122) || u == 95
            case .whitespace: return u == 32 || (u >= 9 && u <= 13)
            case .horizontalWhitespace: return u == 32 || u == 9
            default: break
            }
        }
        let p = scalar.properties
        switch self {
        case .any: return true
        case .assigned: return p.generalCategory != .unassigned
        case .ascii: return scalar.isASCII
        case .digit: return p.numericType != nil
        case .word: return p.isAlphabetic || u == 95 || (u >= 48 && u <= 57)
        case .whitespace: return p.isWhitespace
        case .horizontalWhitespace: return u == 9 || p.generalCategory == .spaceSeparator
        case .alphabetic: return p.isAlphabetic
        case .uppercase: return p.isUppercase
        case .lowercase: return p.isLowercase
        case .ideographic: return p.isIdeographic
        case .math: return p.isMath
        case .hexDigit: return p.isHexDigit
        case .emoji: return p.isEmoji
        case .categories(let set): return set.contains(p.generalCategory)
        }
    }

    /// The property named in `\p{name}` (or `\p{gc=name}`), case, spaces, `_` and `-` ignored; `nil` when the name
    /// is not one of the general categories or properties this matcher knows.
    static func named(_ name: String) -> RegexScalarProperty? {
        var key = String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" })
        for prefix in ["generalcategory=", "gc="] where key.hasPrefix(prefix) { key.removeFirst(prefix.count) }
        switch key {
        case "any": return .any
        case "assigned": return .assigned
        case "ascii": return .ascii
        case "alphabetic", "alpha": return .alphabetic
        case "whitespace", "space", "wspace": return .whitespace
        case "uppercase", "upper": return .uppercase
        case "lowercase", "lower": return .lowercase
        case "ideographic", "ideo": return .ideographic
        case "math": return .math
        case "hexdigit", "hex", "xdigit": return .hexDigit
        case "emoji": return .emoji
        default: break
        }
        return generalCategories[key].map { .categories($0) }
    }

    /// General categories by short and long name (lowercased, without separators), and their groups.
    private static let generalCategories: [String: Set<Unicode.GeneralCategory>] = {
        let single: [(String, String, Unicode.GeneralCategory)] = [
            ("lu", "uppercaseletter", .uppercaseLetter), ("ll", "lowercaseletter", .lowercaseLetter),
            ("lt", "titlecaseletter", .titlecaseLetter), ("lm", "modifierletter", .modifierLetter),
            ("lo", "otherletter", .otherLetter), ("mn", "nonspacingmark", .nonspacingMark),
            ("mc", "spacingmark", .spacingMark), ("me", "enclosingmark", .enclosingMark),
            ("nd", "decimalnumber", .decimalNumber), ("nl", "letternumber", .letterNumber),
            ("no", "othernumber", .otherNumber), ("pc", "connectorpunctuation", .connectorPunctuation),
            ("pd", "dashpunctuation", .dashPunctuation), ("ps", "openpunctuation", .openPunctuation),
            ("pe", "closepunctuation", .closePunctuation), ("pi", "initialpunctuation", .initialPunctuation),
            ("pf", "finalpunctuation", .finalPunctuation), ("po", "otherpunctuation", .otherPunctuation),
            ("sm", "mathsymbol", .mathSymbol), ("sc", "currencysymbol", .currencySymbol),
            ("sk", "modifiersymbol", .modifierSymbol), ("so", "othersymbol", .otherSymbol),
            ("zs", "spaceseparator", .spaceSeparator), ("zl", "lineseparator", .lineSeparator),
            ("zp", "paragraphseparator", .paragraphSeparator), ("cc", "control", .control),
            ("cf", "format", .format), ("cs", "surrogate", .surrogate), ("co", "privateuse", .privateUse),
            ("cn", "unassigned", .unassigned),
        ]
        var table: [String: Set<Unicode.GeneralCategory>] = [:]
        for (short, long, c) in single {
            table[short] = [c]
            table[long] = [c]
        }
        let groups: [(String, String, [String])] = [
            ("l", "letter", ["lu", "ll", "lt", "lm", "lo"]), ("lc", "casedletter", ["lu", "ll", "lt"]),
            ("m", "mark", ["mn", "mc", "me"]), ("n", "number", ["nd", "nl", "no"]),
            ("p", "punctuation", ["pc", "pd", "ps", "pe", "pi", "pf", "po"]), ("s", "symbol", ["sm", "sc", "sk", "so"]),
            ("z", "separator", ["zs", "zl", "zp"]), ("c", "other", ["cc", "cf", "cs", "co", "cn"]),
        ]
        for (short, long, members) in groups {
            let set = members.reduce(into: Set<Unicode.GeneralCategory>()) { $0.formUnion(table[$1]!) }
            table[short] = set
            table[long] = set
        }
        table["l&"] = table["lc"]
        return table
    }()

    /// The POSIX class `[:name:]`, or `nil`.
    static func posix(_ name: String) -> RegexScalarClass? {
        let categories = { (names: [String]) in RegexScalarClass.property(named(names.joined(separator: ""))!) }
        switch name {
        case "alpha": return .property(.alphabetic)
        case "digit": return .property(.digit)
        case "alnum": return .union([.property(.alphabetic), .property(.digit)])
        case "upper": return .property(.uppercase)
        case "lower": return .property(.lowercase)
        case "space": return .property(.whitespace)
        case "blank": return .property(.horizontalWhitespace)
        case "punct": return categories(["p"])
        case "cntrl": return categories(["cc"])
        case "xdigit": return .ranges([48...57, 65...70, 97...102])
        case "word": return .property(.word)
        case "ascii": return .property(.ascii)
        case "graph": return .not(.union([.property(.whitespace), categories(["c"])]))
        case "print": return .union([.not(.union([.property(.whitespace), categories(["c"])])),
                                     .property(.horizontalWhitespace)])
        default: return nil
        }
    }
}
