// swift-tools-version: 6.1
// Replication's benchmark (DESIGN §9, bench/RESULTS.md "Replication"): append latency and throughput through a
// durable JetStream stream, and replica lag (commit on A → change set on B). A package of its own, beside the
// main bench package, depending on ViewLog by path; tools/replication-bench starts the servers and runs it.
import PackageDescription

let package = Package(
    name: "ViewLogReplicationBench",
    dependencies: [.package(name: "ViewLog", path: "../..")],
    targets: [
        .executableTarget(
            name: "replication-bench",
            dependencies: [
                .product(name: "ViewLog", package: "ViewLog"),
                .product(name: "ViewLogReplication", package: "ViewLog"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
