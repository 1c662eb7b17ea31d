import Foundation

/// A deterministic random number generator for tests (SplitMix64), so that every random test can be rerun
/// exactly: print ``seed`` in failure messages, rerun with `VIEWLOG_SEED=<seed> swift test --filter …`.
///
/// Never seeded from the clock: without `VIEWLOG_SEED` every run uses ``defaultSeed``.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed of runs without `VIEWLOG_SEED`.
    public static let defaultSeed: UInt64 = 0x5EED_2026_0000_0001

    /// `VIEWLOG_SEED` from the environment (decimal, or hex with `0x`), else ``defaultSeed``.
    public static var environmentSeed: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["VIEWLOG_SEED"]?.trimmingCharacters(in: .whitespaces),
              !text.isEmpty else { return defaultSeed }
        if text.hasPrefix("0x") || text.hasPrefix("0X"), let v = UInt64(text.dropFirst(2), radix: 16) { return v }
        return UInt64(text) ?? defaultSeed
    }

    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// A generator seeded from the environment (see ``environmentSeed``), optionally offset by `stream` so that
    /// several tests of one run draw independent sequences from one `VIEWLOG_SEED`.
    public init(stream: UInt64 = 0) {
        self.init(seed: SeededGenerator.environmentSeed &+ stream &* 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits (SplitMix64).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// How to rerun: `seed 0x… (rerun with VIEWLOG_SEED=…)`, for `#expect` messages.
    public var rerunHint: String {
        "seed \(seed) (rerun with VIEWLOG_SEED=\(SeededGenerator.environmentSeed))"
    }
}
