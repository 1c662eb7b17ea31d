// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ViewLog",
    products: [
        .library(name: "ViewLog", targets: ["ViewLog"]),
        .library(name: "ViewLogTesting", targets: ["ViewLogTesting"]),
        .library(name: "ViewLogReplication", targets: ["ViewLogReplication"]),
        .executable(name: "viewlog", targets: ["viewlog"]),
    ],
    // A library user fetches only what its build compiles: the CLI's and the server's dependencies are conditioned on
    // the trait `CLI`, on by default (this package's own builds and tests, `tools/demo.sh`), and a library user turns
    // it off with `.package(url: …, from: …, traits: [])`. SwiftPM then resolves none of them (measured with Swift
    // 6.3.1: Examples/EmployeeDirectory fetched 28 packages, 235 MB, without it; only ViewLog with it).
    traits: [
        .trait(name: "CLI", description: "The `viewlog` tool and `viewlog serve` (ViewLogServer): their dependencies, "
               + "swift-argument-parser and Hummingbird with SwiftNIO, are fetched only with this trait. On by default; "
               + "library users depend with `traits: []`."),
        .default(enabledTraits: ["CLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `viewlog serve` (DESIGN §12) only: ViewLogServer and the CLI use them, the library products never do.
        // No default traits: the server needs neither swift-configuration nor full Foundation's URL form coding.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Hummingbird's logging API: the server logs to stderr, so that stdout starts with `listening on …`.
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        // Hummingbird's service lifecycle: a watch stream ends when the server shuts down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // Hummingbird's SwiftNIO: the server's connection guards (Host, Origin, limits, timeouts) are channel handlers.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        // Debian's liblmdb-dev (tested); Homebrew's lmdb on macOS (its lmdb.pc). Only the LMDB target imports this module.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // LMDB calls under a SIGSEGV/SIGBUS guard: a damaged page becomes MDB_CORRUPTED, not a crash.
        .target(name: "CLMDBGuard", dependencies: ["CLMDB"]),
        // Safe Swift layer over LMDB. Knows nothing of events.
        .target(name: "LMDB", dependencies: ["CLMDB", "CLMDBGuard"]),
        // CRC-32C by the CPU's instruction (SSE 4.2, ARMv8 CRC) where it has one; the engine's checksums.
        .target(name: "CCRC32C"),
        // A cache prefetch hint (header only, inlined): folds and printed rows overlap their cache misses.
        .target(name: "CPrefetch"),
        // The engine, in layers that depend only downward (README, "Architecture"); `ViewLog` re-exports their public
        // API, so that a user imports one module. Between layers, `package` access.
        // Values, schemas, ids, timestamps, JSON, checksums: what every layer above speaks.
        .target(name: "ViewLogModel", dependencies: ["CCRC32C"]),
        // Predicates, key paths, sort keys and their byte encoding: pure functions of values.
        .target(name: "ViewLogQuery", dependencies: ["ViewLogModel"]),
        // The log on LMDB: codecs, append (with delete rules and the indexes it maintains in the same write, stored
        // views among them), time travel, checkpoints, observation of the head, verify.
        .target(name: "ViewLogStore", dependencies: ["ViewLogModel", "ViewLogQuery", "LMDB", "CPrefetch"]),
        // Views as values: ordered rows, sections, change sets and how a batch of changes moves them.
        .target(name: "ViewLogViews", dependencies: ["ViewLogModel", "ViewLogQuery", "ViewLogStore", "CPrefetch"]),
        // Contexts and results controllers: a view bound to a position of the log, and where its rows come from.
        .target(name: "ViewLog", dependencies: ["ViewLogModel", "ViewLogQuery", "ViewLogStore", "ViewLogViews", "LMDB"]),
        // The NATS C client (Debian's libnats-dev: its headers at build time), loaded by dlopen on the first replication
        // connection, so that no program linking ViewLogReplication (the CLI's `get`, `query`, …) loads libnats and
        // OpenSSL at start-up. Only the ViewLogReplication target imports this module.
        .target(name: "CNATS"),
        // Replication (DESIGN §9): binds a store to a NATS JetStream stream. ViewLog knows nothing of NATS.
        .target(name: "ViewLogReplication", dependencies: ["ViewLog", "CNATS"]),
        // Helpers for users' own tests: change-set validation, recording, golden rendering.
        .target(name: "ViewLogTesting", dependencies: ["ViewLog"]),
        // The CLI's JSON documents (DESIGN §7) and the requests behind them, made where both the CLI and the server
        // can call them: the server serves what the CLI prints, byte for byte.
        .target(name: "ViewLogDocuments", dependencies: ["ViewLog"]),
        // `viewlog serve` (DESIGN §12): the CLI's JSON documents over HTTP, WebSocket and SSE, and the inspector page.
        // Its own module, so that a library user never compiles Hummingbird.
        .target(
            name: "ViewLogServer",
            dependencies: [
                "ViewLog",
                "ViewLogDocuments",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["CLI"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["CLI"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["CLI"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CLI"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["CLI"])),
            ],
            // The OpenAPI document, a JSON file compiled into the module as bytes: no resource bundle to install
            // beside the executable (Bundle.module looks for one next to it, then in this build directory), and no
            // Foundation, whose `Bundle` would bring ICU into every CLI start.
            resources: [.embedInCode("openapi.json")]
        ),
        // The CLI: thin, parse -> call the library -> print.
        .executableTarget(
            name: "viewlog",
            dependencies: [
                "ViewLog",
                "ViewLogDocuments",
                "ViewLogReplication",
                "ViewLogServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
            ],
            // Start-up (bench/RESULTS-notes.md, its start-up section): the Swift toolchain links executables with
            // --export-dynamic, so the dynamic loader and the runtime's dladdr search ~23,000 exported symbols of the
            // executable; and libstdc++.so.6 (the Swift runtime's C++ library) costs its loading and ~1,700 symbol
            // bindings. The CLI exports nothing and links libstdc++ statically (tools/link/static-libstdc++/libstdc++.so
            // says how). (The README's release build also links it at a fixed address, `-Xlinker -no-pie`: that
            // flag is not here because with the toolchain's shared Swift libraries — a debug build, or a release
            // build without --static-swift-stdlib — the loader then warns on every start.) Unsafe flags on this
            // executable target only: the library products stay usable as versioned dependencies (SwiftPM refuses
            // unsafe flags only in the targets of a product another package uses).
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--no-export-dynamic",
                "-L", Context.packageDirectory + "/tools/link/static-libstdc++",
            ])]
        ),
        // Generators, models and fixtures shared by the test targets.
        .target(name: "TestSupport", dependencies: ["ViewLog", "ViewLogTesting"], path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB"]),
        // V1Store/ and V2StoreBeforeCheckpoints/ hold stores made by older code (data, not sources).
        .testTarget(name: "ViewLogTests", dependencies: ["ViewLog", "ViewLogTesting", "TestSupport"],
                    exclude: ["V1Store", "V2StoreBeforeCheckpoints"]),
        .testTarget(name: "ViewLogTestingTests", dependencies: ["ViewLogTesting", "TestSupport"]),
        // The documents and the follow loop the CLI and the server share.
        .testTarget(name: "ViewLogDocumentsTests", dependencies: ["ViewLogDocuments", "ViewLog", "TestSupport"]),
        // Replication against nats-server processes on loopback (Tests/TestSupport/NATSServers.swift).
        .testTarget(name: "ViewLogReplicationTests", dependencies: ["ViewLogReplication", "ViewLog", "CNATS", "TestSupport"]),
        // The server in process (HummingbirdTesting) and on a socket (WebSocket, SSE), against the built `viewlog`.
        .testTarget(name: "ViewLogServerTests", dependencies: [
            "ViewLogServer", "ViewLogDocuments", "ViewLog", "TestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["CLI"])),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket", condition: .when(traits: ["CLI"])),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["CLI"])),
        ]),
        // Runs the built `viewlog` executable (see Tests/viewlogTests/CLI.swift); Goldens/ holds its golden files.
        .testTarget(name: "viewlogTests", dependencies: ["ViewLog", "ViewLogTesting", "ViewLogReplication", "TestSupport"], exclude: ["Goldens"]),
    ],
    swiftLanguageModes: [.v6]
)
