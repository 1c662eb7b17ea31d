import ViewLog

/// A seeded generator (SplitMix64): every run of the benchmarks does the same work.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D4_9BB1_3311_49EB
        return z ^ (z >> 31)
    }
}

/// The data every benchmark uses: one entity `Item` (int id; `name`, `score`, `active`), and one view —
/// `score >= 0` sorted by `score` (ties by id) — that GRDB runs as
/// `SELECT … FROM item WHERE score >= 0 ORDER BY score, id` over a covering index on `score`.
public enum Workload {
    public static let entityName = "Item"
    public static let schemaJSON = """
    {"entities": {"Item": {"id": "int", "attributes": {
        "name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": true}}}}}
    """
    public static let predicate = "score >= 0"
    public static let sort = "score"
    /// Scores are drawn from 0..<scoreRange; a row leaves the view with score -1.
    public static let scoreRange: Int64 = 1_000_000_000
    public static let author = "bench"

    public static func schema() -> Schema {
        do { return try Schema(jsonText: schemaJSON) } catch { fatalError("bench schema: \(error)") }
    }

    public static func entity() -> EntityDescription {
        do { return try schema().entity(named: entityName) } catch { fatalError("bench entity: \(error)") }
    }

    public static func fetchRequest() -> FetchRequest {
        do {
            return FetchRequest(entity: entityName, predicate: try ViewPredicate(predicate),
                                sortDescriptors: try ViewSortDescriptor.parse(sort))
        } catch { fatalError("bench fetch request: \(error)") }
    }

    /// The name of item `i` (12–16 bytes: a small string for Swift, like a short title).
    public static func name(_ i: Int) -> String { "item-\(i)" }

    /// The full values of item `i` with `score`.
    public static func values(_ i: Int, score: Int64) -> ObjectValues {
        ["name": .string(name(i)), "score": .int(score), "active": .bool(true)]
    }

    /// Items 1…n with seeded scores.
    public static func items(_ n: Int, seed: UInt64 = 42) -> [(id: Int, score: Int64)] {
        var g = SeededGenerator(seed: seed)
        return (1...max(n, 1)).prefix(n).map { ($0, Int64.random(in: 0..<scoreRange, using: &g)) }
    }

    /// Items 1…n as the controller takes them.
    public static func objects(_ n: Int, seed: UInt64 = 42) -> [(ObjectID, ObjectValues)] {
        items(n, seed: seed).map { (ObjectID.int(Int64($0.id)), values($0.id, score: $0.score)) }
    }
}

/// One update of the benchmarks' view workload: the row and its new score.
public struct ScoreUpdate: Sendable {
    public var id: Int
    public var oldScore: Int64
    public var newScore: Int64
}

/// The two kinds of change a live view must handle.
public enum ViewChangeKind: String, Sendable, Codable, CaseIterable {
    /// A row leaves the view (score → -1) or comes back (score → a new value ≥ 0), alternately.
    case membership
    /// A row gets a new score ≥ 0: it moves.
    case sortPosition = "sort-position"
}

/// Generates a sequence of updates over items 1…n whose current scores it tracks.
public struct UpdateStream: Sendable {
    private var scores: [Int64]
    private var g: SeededGenerator
    private var leftRow: Int?
    public var kind: ViewChangeKind

    public init(items: [(id: Int, score: Int64)], kind: ViewChangeKind, seed: UInt64 = 7) {
        scores = [0] + items.map(\.score)
        g = SeededGenerator(seed: seed)
        self.kind = kind
    }

    public mutating func next() -> ScoreUpdate {
        let n = scores.count - 1
        switch kind {
        case .sortPosition:
            let id = Int.random(in: 1...n, using: &g)
            return take(id, Int64.random(in: 0..<Workload.scoreRange, using: &g))
        case .membership:
            if let id = leftRow {
                leftRow = nil
                return take(id, Int64.random(in: 0..<Workload.scoreRange, using: &g))
            }
            let id = Int.random(in: 1...n, using: &g)
            leftRow = id
            return take(id, -1)
        }
    }

    private mutating func take(_ id: Int, _ score: Int64) -> ScoreUpdate {
        let u = ScoreUpdate(id: id, oldScore: scores[id], newScore: score)
        scores[id] = score
        return u
    }
}
