@_spi(Engine) import ViewLogModel
/// The compiled regular expression of a `MATCHES` comparison, matched against the **whole** string, by Unicode
/// scalar (not by grapheme cluster), case-insensitively under `[c]`, after folding diacritics under `[d]`.
///
/// The answer is always right, on every string, and cannot take long: the pattern is compiled into a Thompson NFA
/// (``RegexProgram``) and run by a Pike VM that keeps the set of states the subject so far can be in, one step per
/// scalar: time O(pattern × subject), memory O(pattern), whatever the pattern (`(a+)+`, `.*a.*a.*b` and
/// `(a|a)*b` are all linear). Only whether the whole string matches is computed, so greedy and lazy quantifiers
/// are the same.
///
/// Syntax (Swift `Regex` / ICU, the regular part): literals and escapes (`\t \n \r \f \a \e \0oo \cX \xhh
/// \x{…} \uhhhh \u{…} \Uhhhhhhhh \o{…} \N{U+…}`, `\` before any other non-alphanumeric scalar, `\Q…\E`), `.`,
/// classes `[…]` with ranges, negation, nested classes, `&&` `--` `~~`, POSIX classes `[[:alpha:]]`, `\d \w \s \h
/// \v \N` and their negations, `\R`, `\p{…}` / `\P{…}` (general categories and a few binary properties), groups
/// `( )` `(?: )` `(?<name> )` `(?P<name> )` `(?' ')`, comments `(?#…)`, options `(?ismx-ismx)` and `(?i: …)`,
/// alternation `|`, quantifiers `* + ? {n} {n,} {n,m} {,m}` and their lazy forms, anchors `^ $ \A \z \Z \b \B`
/// (`\b` is the simple boundary between `\w` and non-`\w`). The escapes mean what they mean in Swift's `Regex` by
/// Unicode scalar (see ``RegexScalarClass``).
///
/// Refused when the view is made (a ``QueryError`` naming the pattern), because no linear-time matcher can run
/// them: backreferences (`\1`, `\k<name>`), lookaround (`(?=…)`, `(?<!…)`), atomic groups `(?>…)`, possessive
/// quantifiers (`a*+`). Also refused: a pattern over ``Limits/regexPatternBytesMax`` bytes, or one whose program
/// would exceed ``Limits/regexProgramSizeMax`` instructions (counted repetitions are copied: `(a{100}){100}`).
///
/// Combining marks are literal code points, as in ICU (which NSPredicate's `MATCHES` uses): `.́x` is `.` then
/// U+0301 then `x`, and `[é]` with a decomposed é is a class of two code points.
final class RegexMatcher: Sendable {
    /// Why a pattern cannot be compiled.
    enum Failure: Error, Equatable {
        /// Not valid syntax.
        case invalid(String)
        /// Valid, but a construct this matcher does not run.
        case refused(String)
    }

    private let program: RegexProgram
    private let folding: StringFolding
    /// The pattern as written.
    let pattern: String

    /// Compiles `pattern`. `options`: `[c]` matches case-insensitively; `[d]` strips diacritics from pattern
    /// and subject first.
    package init(_ pattern: String, options: ComparisonOptions) throws(QueryError) {
        self.pattern = pattern
        folding = StringFolding(options.intersection(.diacriticInsensitive))
        do throws(Failure) {
            program = try RegexMatcher.compile(folding.fold(pattern), caseless: options.contains(.caseInsensitive))
        } catch {
            switch error {
            case .invalid(let reason):
                throw QueryError(.invalidRegex, "invalid regular expression \(PredicateOperand.quoted(pattern)): \(reason)")
            case .refused(let reason):
                throw QueryError(.refusedRegex, "regular expression \(PredicateOperand.quoted(pattern)) is refused: \(reason)")
            }
        }
    }

    /// Parses and compiles `pattern` (already folded), checking the limits.
    static func compile(_ pattern: String, caseless: Bool) throws(Failure) -> RegexProgram {
        guard pattern.utf8.count <= Limits.regexPatternBytesMax else {
            throw .refused("longer than \(Limits.regexPatternBytesMax) bytes")
        }
        let node = try RegexParser.parse(pattern, caseless: caseless)
        let size = RegexProgram.size(of: node)
        guard size < Limits.regexProgramSizeMax else {
            throw .refused("it repeats too much: its counted repetitions make more than \(Limits.regexProgramSizeMax) "
                           + "matcher states (each {n,m} copies what it repeats m times)")
        }
        return RegexProgram(node)
    }

    /// Why `pattern` is refused or invalid, or `nil` when it compiles.
    static func refusal(of pattern: String) -> Failure? {
        do throws(Failure) {
            _ = try compile(pattern, caseless: false)
            return nil
        } catch {
            return error
        }
    }

    /// Whether the whole of `subject` matches.
    func matches(_ subject: String) -> Bool {
        var steps = 0
        return matches(subject, steps: &steps)
    }

    /// Whether the whole of `subject` matches; adds to `steps` one per state tried on a scalar, at most the
    /// program's size per scalar of the subject.
    func matches(_ subject: String, steps: inout Int) -> Bool {
        if folding.isIdentity { return run(subject, steps: &steps) }
        return run(folding.fold(subject), steps: &steps)
    }

    /// `UInt32` beyond any scalar: no scalar (before the start, after the end).
    private static let none = UInt32.max

    /// The Pike VM: `current` holds the states the subject up to `index` can be in, each once.
    private func run(_ subject: String, steps: inout Int) -> Bool {
        let n = program.count
        let view = subject.unicodeScalars
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 4 * n) { buffer -> Bool in
            let base = buffer.baseAddress!
            var current = base, next = base + n
            let marks = base + 2 * n, stack = base + 3 * n
            marks.initialize(repeating: 0, count: n)
            var generation = 1
            var currentCount = 0, nextCount = 0

            /// Adds `start` and every state reachable from it without consuming to `list`, once each (`marks`
            /// holds the generation of the list a state is already in). `prev`/`index`: the position.
            func addClosure(_ start: Int, to list: UnsafeMutablePointer<Int>, count: inout Int,
                            prev: UInt32, at index: String.UnicodeScalarView.Index) {
                var top = 0
                if marks[start] == generation { return }
                marks[start] = generation
                stack[0] = start
                top = 1
                @inline(__always) func push(_ pc: Int) {
                    if marks[pc] != generation {
                        marks[pc] = generation
                        stack[top] = pc
                        top += 1
                    }
                }
                while top > 0 {  // each state is pushed at most once per generation: at most n iterations
                    top -= 1
                    let pc = stack[top]
                    switch program.ops[pc] {
                    case .jump: push(Int(program.a[pc]))
                    case .split:
                        push(Int(program.b[pc]))
                        push(Int(program.a[pc]))
                    case .assert:
                        if holds(program.assertions[Int(program.a[pc])], view: view, prev: prev, at: index) {
                            push(pc + 1)
                        }
                    default:
                        list[count] = pc
                        count += 1
                    }
                }
            }

            var index = view.startIndex
            addClosure(0, to: current, count: &currentCount, prev: RegexMatcher.none, at: index)
            while index < view.endIndex {  // one pass over the subject, one scalar per iteration
                let u = view[index].value
                let folded = program.foldsCase ? StringFolding.caseFold(view[index]).value : u
                index = view.index(after: index)
                generation += 1
                nextCount = 0
                for k in 0..<currentCount {  // at most n states
                    let pc = current[k]
                    steps += 1
                    let consumes: Bool
                    switch program.ops[pc] {
                    case .scalar: consumes = program.a[pc] == u
                    case .caselessScalar: consumes = program.a[pc] == folded
                    case .set: consumes = program.sets[Int(program.a[pc])].contains(u)
                    default: consumes = false  // `match` before the end
                    }
                    if consumes { addClosure(pc + 1, to: next, count: &nextCount, prev: u, at: index) }
                }
                if nextCount == 0 { return false }
                swap(&current, &next)
                currentCount = nextCount
            }
            return marks[n - 1] == generation  // `match` is the last instruction
        }
    }

    /// Whether `assertion` holds between `prev` and the scalar at `index` of `view`.
    private func holds(_ assertion: RegexAssertion, view: String.UnicodeScalarView, prev: UInt32,
                       at index: String.UnicodeScalarView.Index) -> Bool {
        let atEnd = index == view.endIndex
        let next = atEnd ? RegexMatcher.none : view[index].value
        let terminators = RegexScalarClass.lineTerminators
        switch assertion {
        case .subjectStart: return prev == RegexMatcher.none
        case .subjectEnd: return atEnd
        case .subjectEndOrFinalTerminator:
            if atEnd { return true }
            guard terminators.contains(next) else { return false }
            var after = view.index(after: index)
            if next == 0x0D, after < view.endIndex, view[after] == "\n" { after = view.index(after: after) }
            return after == view.endIndex
        case .lineStart: return prev == RegexMatcher.none || (terminators.contains(prev) && !(prev == 0x0D && next == 0x0A))
        case .lineEnd: return atEnd || (terminators.contains(next) && !(prev == 0x0D && next == 0x0A))
        case .notBeforeLineFeed: return next != 0x0A
        case .wordBoundary, .notWordBoundary:
            let word = RegexScalarProperty.word
            let boundary = (prev != RegexMatcher.none && word.contains(prev)) != (!atEnd && word.contains(next))
            return boundary == (assertion == .wordBoundary)
        }
    }
}
