import class Foundation.ProcessInfo
import ViewLog

/// The generator of the view tests: the shared SplitMix64 ``SeededGenerator``.
public typealias ViewTestRNG = SeededGenerator

extension SeededGenerator {
    /// `VIEWLOG_SEED` from the environment (see ``environmentSeed``) when set, otherwise `fallback`.
    public static func seed(default fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["VIEWLOG_SEED"] == nil ? fallback : environmentSeed
    }

    /// A random element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    /// A random integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random entities, objects, transactions and view definitions for the view engine's model tests.
/// Value domains are small so that ties, nulls and section changes are frequent.
public enum ViewsRandom {
    /// The test entity: every type, optional attributes, a section-like string.
    public static let employee = EntityDescription(name: "Employee", idType: .string, attributes: [
        Attribute(name: "name", type: .string),
        Attribute(name: "height", type: .int, isOptional: true),
        Attribute(name: "sectionName", type: .string, defaultValue: .string("")),
        Attribute(name: "salary", type: .double, defaultValue: .double(0)),
        Attribute(name: "active", type: .bool, defaultValue: .bool(true)),
        Attribute(name: "nick", type: .string, isOptional: true),
    ])

    /// Another entity, whose changes every Employee view must ignore.
    public static let other = EntityDescription(name: "Other", idType: .int, attributes: [
        Attribute(name: "name", type: .string),
    ])

    static let names: [Value] = ["Ann", "Bob", "Cy", "Dee", "", "Åsa"].map(Value.string)
    static let heights: [Value] = [.null, .int(150), .int(160), .int(170), .int(180)]
    static let sections: [Value] = ["A", "B", "C", "D"].map(Value.string)
    static let salaries: [Value] = [.double(0), .double(1.5), .double(2.5), .double(-1)]
    static let nicks: [Value] = [.null, .string("x"), .string("y")]

    /// A random value of `attribute`.
    public static func value(_ attribute: String, _ rng: inout ViewTestRNG) -> Value {
        switch attribute {
        case "name": return rng.pick(names)
        case "height": return rng.pick(heights)
        case "sectionName": return rng.pick(sections)
        case "salary": return rng.pick(salaries)
        case "active": return .bool(rng.chance(0.5))
        case "nick": return rng.pick(nicks)
        default: preconditionFailure("unknown attribute \(attribute)")
        }
    }

    /// A full random Employee.
    public static func object(_ rng: inout ViewTestRNG) -> ObjectValues {
        var v: ObjectValues = [:]
        for a in employee.attributes { v[a.name] = value(a.name, &rng) }
        return v
    }

    /// Ids `e0`…`e(n-1)`.
    public static func id(_ n: Int) -> ObjectID { .string("e\(n < 10 ? "0" : "")\(n)") }

    /// A random transaction of 1…`maxOps` changes on the objects of `state` (ids from a pool of `idPool`),
    /// sometimes touching `Other` too, sometimes setting a value and then setting it back.
    public static func transaction(_ state: [ObjectKey: ObjectValues], idPool: Int, maxOps: Int,
                                   _ rng: inout ViewTestRNG) -> [ModelOp] {
        var state = state
        var ops: [ModelOp] = []
        for _ in 0..<rng.int(1...maxOps) {
            if rng.chance(0.08) {
                let k = ObjectKey(entity: "Other", id: .int(Int64(rng.int(0...3))))
                if state[k] == nil { ops.append(.insert(k, ["name": .string("o")])); state[k] = ["name": .string("o")] }
                else { ops.append(.delete(k)); state[k] = nil }
                continue
            }
            let key = ObjectKey(entity: "Employee", id: id(rng.int(0...(idPool - 1))))
            if let old = state[key] {
                if rng.chance(0.2) {
                    ops.append(.delete(key))
                    state[key] = nil
                } else {
                    var set: ObjectValues = [:]
                    for _ in 0..<rng.int(1...3) {
                        let a = rng.pick(employee.attributes).name
                        set[a] = rng.chance(0.15) ? old[a]! : value(a, &rng)
                    }
                    ops.append(.update(key, set))
                    state[key]!.merge(set) { _, n in n }
                    if rng.chance(0.1), let a = set.keys.first {
                        ops.append(.update(key, [a: old[a]!]))  // changed and changed back
                        state[key]![a] = old[a]!
                    }
                }
            } else {
                let v = object(&rng)
                ops.append(.insert(key, v))
                state[key] = v
            }
        }
        return ops
    }

    /// A random predicate as text (NSPredicate syntax) and as a closure with the same meaning (DESIGN §4
    /// null rules).
    public static func predicate(_ rng: inout ViewTestRNG, depth: Int = 0) -> (String, @Sendable (ObjectValues, ObjectID) -> Bool) {
        if depth < 2 && rng.chance(0.3) {
            let (lt, lf) = predicate(&rng, depth: depth + 1)
            let (rt, rf) = predicate(&rng, depth: depth + 1)
            switch rng.int(0...2) {
            case 0: return ("(\(lt)) AND (\(rt))", { lf($0, $1) && rf($0, $1) })
            case 1: return ("(\(lt)) OR (\(rt))", { lf($0, $1) || rf($0, $1) })
            default: return ("NOT (\(lt))", { !lf($0, $1) })
            }
        }
        switch rng.int(0...7) {
        case 0: return ("TRUEPREDICATE", { _, _ in true })
        case 1:
            let h = Int64(rng.pick([150, 160, 170, 175]))
            return ("height > \(h)", { v, _ in if case .int(let x) = v["height"] ?? .null { return x > h } else { return false } })
        case 2:
            return ("height == nil", { v, _ in (v["height"] ?? .null).isNull })
        case 3:
            let s = rng.pick(["A", "B", "C"])
            return ("sectionName != '\(s)'", { v, _ in v["sectionName"] != .string(s) })
        case 4:
            return ("active == YES", { v, _ in v["active"] == .bool(true) })
        case 5:
            let p = rng.pick(["A", "B", "C", "D"])
            return ("name BEGINSWITH '\(p)'", { v, _ in if case .string(let n) = v["name"] ?? .null { return n.hasPrefix(p) } else { return false } })
        case 6:
            return ("salary >= 1.5", { v, _ in if case .double(let d) = v["salary"] ?? .null { return d >= 1.5 } else { return false } })
        default:
            return ("nick != nil", { v, _ in !(v["nick"] ?? .null).isNull })
        }
    }

    /// A random view of Employee: predicate, 0–3 sort keys (ties and nulls likely), maybe a section key
    /// (sometimes also the first sort key, descending), maybe a limit and an offset.
    public static func view(_ rng: inout ViewTestRNG) -> ViewSpec {
        let (text, closure) = predicate(&rng)
        let keys = ["name", "height", "sectionName", "salary", "active", "nick", "id"]
        var sort: [ViewSortDescriptor] = []
        for _ in 0..<rng.int(0...3) {
            let k = rng.pick(keys)
            if !sort.contains(where: { $0.key == k }) { sort.append(ViewSortDescriptor(key: k, ascending: rng.chance(0.6))) }
        }
        var section: String? = nil
        if rng.chance(0.5) {
            section = rng.pick(["sectionName", "active", "height", "nick"])
            if rng.chance(0.3) { sort.insert(ViewSortDescriptor(key: section!, ascending: rng.chance(0.4)), at: 0) }
        }
        let limit: Int? = rng.chance(0.35) ? rng.int(0...12) : nil
        let offset = rng.chance(0.35) ? rng.int(0...8) : 0
        let request = FetchRequest(entity: "Employee", sortDescriptors: sort, sectionKey: section, limit: limit, offset: offset)
        return ViewSpec(request: request, predicateText: text, isIncluded: closure)
    }

    /// `count` random Employees with ids from the pool.
    public static func initialObjects(count: Int, idPool: Int, _ rng: inout ViewTestRNG) -> [ObjectKey: ObjectValues] {
        var objects: [ObjectKey: ObjectValues] = [:]
        for _ in 0..<count { objects[ObjectKey(entity: "Employee", id: id(rng.int(0...(idPool - 1))))] = object(&rng) }
        return objects
    }
}
