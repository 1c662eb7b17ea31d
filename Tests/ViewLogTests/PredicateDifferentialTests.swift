import Testing
import TestSupport
@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// Random small predicates, built in code, evaluated by the compiled evaluator and by a tiny independent
/// reference evaluator written here from DESIGN §4. Rerun a failure with `VIEWLOG_SEED=<seed>`.
@Suite("Predicate differential")
struct PredicateDifferentialTests {
    static let names = ["", "a", "A", "Ann", "ann", "anna", "Bob", "b*b", "a?c", "abc"]
    static let heights: [Int64?] = [nil, -5, 0, 150, 170, 180]
    static let salaries: [Double] = [-1.5, 0, 150, 170.5, 1000]
    static let dates = ["2024-01-01T00:00:00.000Z", "2024-03-01T09:00:00.000Z", "2025-06-30T12:30:00.500Z"]

    struct Gen {
        var rng: SeededGenerator

        mutating func pick<T>(_ xs: [T]) -> T { xs[Int.random(in: 0..<xs.count, using: &rng)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

        mutating func object() -> ObjectValues {
            [
                "name": .string(pick(names)),
                "nick": chance(30) ? .null : .string(pick(names)),
                "height": pick(heights).map { .int($0) } ?? .null,
                "salary": .double(pick(salaries)),
                "active": .bool(chance(50)),
                "hired": chance(30) ? .null : Fixture.date(pick(dates)),
                "sectionName": .string(pick(["A", "B", ""])),
            ]
        }

        /// A literal for a key of `type` (sometimes nil, sometimes a number of the other numeric type).
        mutating func literal(for type: AttributeType) -> Value {
            if chance(10) { return .null }
            switch type {
            case .int, .double:
                if chance(50) { return .int(pick([-5, 0, 150, 170, 171, 180, 1000])) }
                return .double(pick([-1.5, 0, 149.5, 170, 170.5, 180.0, 1000]))
            case .string: return .string(pick(names + ["", "n", "AN", "B", "*", "a*", "?nn", "*n*", "b\\*b"]))
            case .bool: return .bool(chance(50))
            case .date: return chance(50) ? Fixture.date(pick(dates)) : .string(pick(dates))
            }
        }

        mutating func comparison() -> PredicateExpression {
            let keys: [(String, AttributeType)] = [("name", .string), ("nick", .string), ("height", .int),
                                                   ("salary", .double), ("active", .bool), ("hired", .date)]
            let (key, type) = pick(keys)
            var ops: [ComparisonOperator] = [.equal, .notEqual, .in]
            if type != .bool { ops += [.less, .lessOrEqual, .greater, .greaterOrEqual, .between] }
            if type == .string { ops += [.beginsWith, .endsWith, .contains, .like] }
            let op = pick(ops)
            let options: ComparisonOptions = type == .string && chance(30)
                ? pick([.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]) : []
            switch op {
            case .in:
                let n = Int.random(in: 0...4, using: &rng) + (chance(10) ? 30 : 0)  // long lists use a hash set
                return .comparison(.key(key), .in, .list((0..<n).map { _ in .value(literal(for: type)) }), options)
            case .between:
                return .comparison(.key(key), .between, .list([.value(literal(for: type)), .value(literal(for: type))]),
                                   options)
            default:
                let other: PredicateOperand
                if type == .int || type == .double, chance(15) {
                    other = .key(pick(["height", "salary"]))
                } else if type == .string, chance(15), op != .like {
                    other = .key(pick(["name", "nick", "sectionName"]))
                } else {
                    other = .value(literal(for: type))
                }
                if op.swapped != nil, chance(25) {  // key on the right
                    return .comparison(other, op, .key(key), options)
                }
                return .comparison(.key(key), op, other, options)
            }
        }

        mutating func expression(depth: Int) -> PredicateExpression {
            guard depth > 0, chance(60) else { return chance(3) ? .constant(chance(50)) : comparison() }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .not(expression(depth: depth - 1))
            case 1: return .and((0..<Int.random(in: 2...3, using: &rng)).map { _ in expression(depth: depth - 1) })
            default: return .or((0..<Int.random(in: 2...3, using: &rng)).map { _ in expression(depth: depth - 1) })
            }
        }
    }

    // MARK: - The reference evaluator

    static func value(_ o: PredicateOperand, _ object: ObjectValues) -> Value {
        switch o {
        case .key(let k): return object[k] ?? .null
        case .value(.string(let s)): return Timestamp(iso8601: s).map { .date($0) } ?? .string(s)  // dates as text
        case .value(let v): return v
        case .variable, .list: fatalError("not generated")
        }
    }

    /// Folds ASCII and the few accents the generator never makes: the generated strings are ASCII.
    static func fold(_ s: String, _ options: ComparisonOptions) -> [UInt32] {
        s.unicodeScalars.map { u in
            options.contains(.caseInsensitive) && u.value >= 65 && u.value <= 90 ? u.value + 32 : u.value
        }
    }

    /// Three-way order of two non-null values of comparable types.
    static func order(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> Int {
        func number(_ v: Value) -> Double? {
            switch v {
            case .int(let i): return Double(i)
            case .double(let d): return d
            default: return nil
            }
        }
        if let x = number(a), let y = number(b) { return x < y ? -1 : (x > y ? 1 : 0) }
        switch (a, b) {
        case let (.string(x), .string(y)):
            let fx = fold(x, options), fy = fold(y, options)
            return fx.lexicographicallyPrecedes(fy) ? -1 : (fx == fy ? 0 : 1)
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.date(x), .date(y)): return x.milliseconds < y.milliseconds ? -1 : (x == y ? 0 : 1)
        default: fatalError("incomparable \(a) \(b)")
        }
    }

    static func equal(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        return order(a, b, options) == 0
    }

    static func like(_ p: ArraySlice<UInt32>, _ s: ArraySlice<UInt32>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        switch c {
        case 42:  // *
            return like(p.dropFirst(), s) || (!s.isEmpty && like(p, s.dropFirst()))
        case 63:  // ?
            return !s.isEmpty && like(p.dropFirst(), s.dropFirst())
        case 92 where p.count > 1:  // backslash
            return s.first == p[p.startIndex + 1] && like(p.dropFirst(2), s.dropFirst())
        default:
            return s.first == c && like(p.dropFirst(), s.dropFirst())
        }
    }

    static func reference(_ e: PredicateExpression, _ object: ObjectValues) -> Bool {
        switch e {
        case .constant(let b): return b
        case .not(let inner): return !reference(inner, object)
        case .and(let es): return es.allSatisfy { reference($0, object) }
        case .or(let es): return es.contains { reference($0, object) }
        case let .comparison(l, op, r, options):
            let a = value(l, object)
            switch op {
            case .in:
                guard case .list(let es) = r else { fatalError() }
                if a.isNull { return false }  // only == and != see null
                return es.contains { equal(a, value($0, object), options) }
            case .between:
                guard case .list(let es) = r else { fatalError() }
                let lo = value(es[0], object), hi = value(es[1], object)
                if a.isNull || lo.isNull || hi.isNull { return false }
                return order(lo, a, options) <= 0 && order(a, hi, options) <= 0
            default: break
            }
            let b = value(r, object)
            switch op {
            case .equal: return equal(a, b, options)
            case .notEqual: return !equal(a, b, options)
            default: break
            }
            if a.isNull || b.isNull { return false }
            switch op {
            case .less: return order(a, b, options) < 0
            case .lessOrEqual: return order(a, b, options) <= 0
            case .greater: return order(a, b, options) > 0
            case .greaterOrEqual: return order(a, b, options) >= 0
            default: break
            }
            guard case .string(let x) = a, case .string(let y) = b else { return false }
            let fx = fold(x, options), fy = fold(y, options)
            switch op {
            case .beginsWith: return fx.starts(with: fy)
            case .endsWith: return fx.reversed().starts(with: fy.reversed())
            case .contains: return fy.isEmpty || (0...max(0, fx.count - fy.count)).contains { fx.dropFirst($0).starts(with: fy) }
            case .like: return like(fy[...], fx[...])
            default: fatalError("not generated")
            }
        }
    }

    static var seed: UInt64 {
        if let text = Environment.get("VIEWLOG_SEED"), let s = UInt64(text) { return s }
        return 0x5EED_0001
    }

    @Test func compiledAgreesWithTheReference() throws {
        let seed = Self.seed
        var gen = Gen(rng: SeededGenerator(seed: seed))
        let objects = (0..<25).map { _ in gen.object() }
        var checked = 0
        for round in 0..<400 {
            let e = gen.expression(depth: 3)
            let compiled = try ViewPredicate(e).compiled(for: Fixture.employee)
            let format = try ViewPredicate(e).format
            let reparsed = try ViewPredicate(format).compiled(for: Fixture.employee)
            for (i, object) in objects.enumerated() {
                let expected = Self.reference(e, object)
                let got = compiled.evaluate(object, id: .string("e\(i)"))
                #expect(got == expected, "seed \(seed) round \(round): \(e) on \(object)")
                #expect(reparsed.evaluate(object, id: .string("e\(i)")) == expected,
                        "seed \(seed) round \(round), reparsed: \(format)")
                if got != expected { return }
                checked += 1
            }
        }
        #expect(checked == 400 * 25)
    }

    @Test func referenceSanity() {
        // The reference itself, on cases written by hand.
        #expect(Self.like(Array("a*c".unicodeScalars.map(\.value))[...], Array("abbc".unicodeScalars.map(\.value))[...]))
        #expect(!Self.reference(.compare(.key("height"), .less, .value(.int(1))), ["height": .null]))
        #expect(Self.reference(.compare(.key("height"), .notEqual, .value(.int(1))), ["height": .null]))
    }
}

/// Reads the environment without Foundation.
enum Environment {
    static func get(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
