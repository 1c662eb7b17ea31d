// swift-tools-version: 6.1
// libFuzzer targets for ViewLog's parsers and decoder. A separate package so that the root build never sees
// them: build and run with tools/fuzz/run.sh (which passes -sanitize=fuzzer,address and -parse-as-library).
import PackageDescription

let package = Package(
    name: "ViewLogFuzz",
    dependencies: [.package(name: "ViewLog", path: "../..")],
    targets: [
        // The schema, objects and variables every target uses.
        .target(name: "FuzzShared", dependencies: [.product(name: "ViewLog", package: "ViewLog")]),
        // TransactionCodec.decode: any bytes give a transaction or a CodecError.
        .executableTarget(name: "FuzzDecode", dependencies: ["FuzzShared", .product(name: "ViewLog", package: "ViewLog")]),
        // ViewPredicate(_:) + compile against the schema + evaluate.
        .executableTarget(name: "FuzzPredicate", dependencies: ["FuzzShared", .product(name: "ViewLog", package: "ViewLog")]),
        // AppendInput.parseLine against the schema.
        .executableTarget(name: "FuzzAppendLine", dependencies: ["FuzzShared", .product(name: "ViewLog", package: "ViewLog")]),
    ],
    swiftLanguageModes: [.v6]
)
