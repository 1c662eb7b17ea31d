// swift-tools-version: 6.1
// ViewLog's benchmarks and their side-by-side peers (DESIGN §8). A package of its own so that the main
// package stays light to build: the main package depends on neither ordo-one/benchmark nor GRDB.
//
//   swift build -c release                 # what CI does
//   swift package benchmark                # the ordo-one suite (Benchmarks/ViewLogBenchmarks)
//   ../tools/bench-report                  # every pair in one run → RESULTS.md and per-change-cost.svg
import PackageDescription

let package = Package(
    name: "ViewLogBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ViewLog", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The raw-LMDB peer: the same puts as ViewLog's append, in C, with nothing else.
        .target(
            name: "RawLMDB",
            linkerSettings: [.linkedLibrary("lmdb")]
        ),
        // Fixtures and workloads shared by the ordo-one suite and bench-report: each benchmark and its peer.
        .target(
            name: "BenchKit",
            dependencies: [
                "RawLMDB",
                .product(name: "ViewLog", package: "ViewLog"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Runs every pair in-process, several repetitions, and prints JSON (tools/bench-report reads it).
        .executableTarget(
            name: "bench-report",
            dependencies: ["BenchKit"]
        ),
        // The ordo-one suite: `swift package benchmark`.
        .executableTarget(
            name: "ViewLogBenchmarks",
            dependencies: [
                "BenchKit",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ViewLogBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
