@_spi(Engine) import ViewLogModel
/// A compiled `LIKE` pattern: `*` matches any run of Unicode scalars (also none), `?` exactly one scalar,
/// `\` makes the next scalar literal (`\*` matches a star; in a quoted literal write it `'\\*'`). Everything else
/// matches itself, by code point. The pattern must match the whole string.
///
/// Matching is the classic greedy two-pointer algorithm: on a mismatch it returns to the last `*` and lets it
/// take one more scalar. That is O(pattern × subject) in the worst case and linear in common cases, never
/// exponential, and it does not allocate.
struct LikePattern: Sendable, Hashable {
    package enum Element: Sendable, Hashable {
        case scalar(Unicode.Scalar)
        case any
        case star
    }

    let elements: [Element]

    package init(_ pattern: String) {
        var elements: [Element] = []
        var escaped = false
        for u in pattern.unicodeScalars {
            if escaped {
                elements.append(.scalar(u))
                escaped = false
                continue
            }
            switch u {
            case "\\": escaped = true
            case "*": if elements.last != .star { elements.append(.star) }  // `**` is `*`
            case "?": elements.append(.any)
            default: elements.append(.scalar(u))
            }
        }
        if escaped { elements.append(.scalar("\\")) }  // a trailing backslash matches itself
        self.elements = elements
    }

    func matches(_ subject: String) -> Bool {
        let scalars = subject.unicodeScalars
        let end = scalars.endIndex
        var s = scalars.startIndex
        var p = 0
        var starP = -1
        var starS = s
        while s < end {
            if p < elements.count {
                switch elements[p] {
                case .star:
                    starP = p
                    starS = s
                    p += 1
                    continue
                case .any:
                    s = scalars.index(after: s)
                    p += 1
                    continue
                case .scalar(let u):
                    if u == scalars[s] {
                        s = scalars.index(after: s)
                        p += 1
                        continue
                    }
                }
            }
            // Mismatch (or pattern exhausted): let the last star take one more scalar, or fail.
            guard starP >= 0 else { return false }
            p = starP + 1
            starS = scalars.index(after: starS)
            s = starS
        }
        while p < elements.count, elements[p] == .star { p += 1 }
        return p == elements.count
    }
}
