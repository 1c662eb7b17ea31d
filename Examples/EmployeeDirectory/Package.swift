// swift-tools-version: 6.1
// An app-shaped user of ViewLog, written from the README and the DocC articles alone: a typed model, a
// main-actor screen fed by a results controller, a background writer, and Swift Testing tests that use
// ViewLogTesting beside the screen's own delegate. CI builds and tests it (`.ci/run`).
import PackageDescription

let package = Package(
    name: "EmployeeDirectory",
    products: [.library(name: "EmployeeDirectory", targets: ["EmployeeDirectory"])],
    dependencies: [
        // In your own package: .package(url: "https://github.com/<owner>/ViewLog", from: "<version>")
        .package(name: "ViewLog", path: "../.."),
    ],
    targets: [
        .target(name: "EmployeeDirectory", dependencies: [.product(name: "ViewLog", package: "ViewLog")]),
        .testTarget(name: "EmployeeDirectoryTests", dependencies: [
            "EmployeeDirectory",
            .product(name: "ViewLog", package: "ViewLog"),
            .product(name: "ViewLogTesting", package: "ViewLog"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
