@_spi(Engine) import ViewLogModel
/// A `MATCHES` pattern compiled into a Thompson NFA: a program of instructions that consume one scalar
/// (`scalar`, `set`), branch without consuming (`split`, `jump`, `assert`), or accept (`match`, the last one).
struct RegexProgram: Sendable {
    enum Op: UInt8, Sendable {
        /// Consumes the scalar `a`.
        case scalar
        /// Consumes a scalar whose simple case folding is `a`.
        case caselessScalar
        /// Consumes a scalar of `sets[a]`.
        case set
        /// Goes on at `a` and at `b`.
        case split
        /// Goes on at `a`.
        case jump
        /// Goes on at the next instruction when `assertions[a]` holds.
        case assert
        /// Accepts, at the end of the subject.
        case match
    }

    /// A class with its ASCII members precomputed.
    struct CompiledSet: Sendable {
        var asciiLow: UInt64 = 0
        var asciiHigh: UInt64 = 0
        let set: RegexScalarClass
        let caseless: Bool

        package init(_ set: RegexScalarClass, caseless: Bool) {
            self.set = set
            self.caseless = caseless
            for v in UInt32(0)..<128 where caseless ? set.containsIgnoringCase(v) : set.contains(v) {
                if v < 64 { asciiLow |= 1 << UInt64(v) } else { asciiHigh |= 1 << UInt64(v - 64) }
            }
        }

        @inline(__always)
        package func contains(_ u: UInt32) -> Bool {
            if u < 64 { return asciiLow & (1 << UInt64(u)) != 0 }
            if u < 128 { return asciiHigh & (1 << UInt64(u - 64)) != 0 }
            return caseless ? set.containsIgnoringCase(u) : set.contains(u)
        }
    }

    private(set) var ops: [Op] = []
    private(set) var a: [UInt32] = []
    private(set) var b: [Int32] = []
    private(set) var sets: [CompiledSet] = []
    private(set) var assertions: [RegexAssertion] = []
    /// Whether a `caselessScalar` needs the subject's scalars folded.
    private(set) var foldsCase = false

    package var count: Int { ops.count }

    /// The number of instructions `node` compiles to (saturating), known before any is emitted so that a pattern
    /// over ``Limits/regexProgramSizeMax`` is refused without building it.
    static func size(of node: RegexNode) -> Int {
        switch node {
        case .empty: return 0
        case .scalar, .set, .assertion: return 1
        case .concatenation(let items):
            return items.reduce(0) { $0.addingSaturating(size(of: $1)) }
        case .alternation(let branches):
            return branches.reduce(2 * (branches.count - 1)) { $0.addingSaturating(size(of: $1)) }
        case let .repetition(body, low, high):
            let s = size(of: body)
            let required = s.multipliedSaturating(by: low)
            guard let high else { return required.addingSaturating(s.addingSaturating(2)) }
            return required.addingSaturating(s.addingSaturating(1).multipliedSaturating(by: high - low))
        }
    }

    /// Compiles `node`, whose ``size(of:)`` the caller has checked.
    package init(_ node: RegexNode) {
        emit(node)
        append(.match)
    }

    private mutating func append(_ op: Op, _ x: UInt32 = 0, _ y: Int32 = 0) {
        ops.append(op)
        a.append(x)
        b.append(y)
    }

    private mutating func emit(_ node: RegexNode) {
        switch node {
        case .empty:
            break
        case let .scalar(u, caseless):
            let folded = StringFolding.caseFold(u)
            if caseless, folded != u || !RegexScalarClass.caseVariants(of: u).isEmpty {
                foldsCase = true
                append(.caselessScalar, folded.value)
            } else {
                append(.scalar, u.value)
            }
        case let .set(set, caseless):
            sets.append(CompiledSet(set, caseless: caseless))
            append(.set, UInt32(sets.count - 1))
        case .assertion(let kind):
            assertions.append(kind)
            append(.assert, UInt32(assertions.count - 1))
        case .concatenation(let items):
            for item in items { emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (k, branch) in branches.enumerated() {
                if k < branches.count - 1 {
                    let split = count
                    append(.split, UInt32(split + 1))
                    emit(branch)
                    jumps.append(count)
                    append(.jump)
                    b[split] = Int32(count)
                } else {
                    emit(branch)
                }
            }
            for j in jumps { a[j] = UInt32(count) }
        case let .repetition(body, low, high):
            for _ in 0..<low { emit(body) }
            if let high {
                // (body (body …)?)? written as body? body? …: the same language, the same size.
                var splits: [Int] = []
                for _ in low..<high {
                    splits.append(count)
                    append(.split, UInt32(count + 1))
                    emit(body)
                }
                for s in splits { b[s] = Int32(count) }
            } else {
                let loop = count
                append(.split, UInt32(loop + 1))
                emit(body)
                append(.jump, UInt32(loop))
                b[loop] = Int32(count)
            }
        }
    }
}
