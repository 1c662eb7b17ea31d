// swift-tools-version: 6.1
// An app-shaped user of ViewLog, written from the README and the DocC articles alone: a typed model, a
// main-actor screen fed by a results controller, a background writer, Swift Testing tests that use
// ViewLogTesting beside the screen's own delegate (with golden files), an XCTest target that validates batches
// without Swift Testing, and a command-line check that does the same from an executable. CI builds, tests and runs
// it (`.ci/run`).
import PackageDescription

let package = Package(
    name: "EmployeeDirectory",
    products: [.library(name: "EmployeeDirectory", targets: ["EmployeeDirectory"])],
    dependencies: [
        // In your own package: .package(url: "https://github.com/<owner>/ViewLog", from: "<version>", traits: [])
        // `traits: []` turns off ViewLog's default trait `CLI` (the `viewlog` tool and `viewlog serve`): SwiftPM then
        // does not even fetch their dependencies (swift-argument-parser, Hummingbird, SwiftNIO, …).
        .package(name: "ViewLog", path: "../..", traits: []),
    ],
    targets: [
        .target(name: "EmployeeDirectory", dependencies: [.product(name: "ViewLog", package: "ViewLog")]),
        // Goldens/ holds the golden files of GoldenFile, read from the source tree: not sources, not resources.
        .testTarget(name: "EmployeeDirectoryTests", dependencies: [
            "EmployeeDirectory",
            .product(name: "ViewLog", package: "ViewLog"),
            .product(name: "ViewLogTesting", package: "ViewLog"),
        ], exclude: ["Goldens"]),
        // XCTest, without `import Testing`: ChangeSetValidator.check throws there.
        .testTarget(name: "EmployeeDirectoryXCTests", dependencies: [
            "EmployeeDirectory",
            .product(name: "ViewLog", package: "ViewLog"),
            .product(name: "ViewLogTesting", package: "ViewLog"),
        ]),
        // `swift run directory-check`: validates a screen's batches from an executable.
        .executableTarget(name: "directory-check", dependencies: [
            "EmployeeDirectory",
            .product(name: "ViewLog", package: "ViewLog"),
            .product(name: "ViewLogTesting", package: "ViewLog"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
