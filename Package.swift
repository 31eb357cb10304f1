// swift-tools-version:6.2
import PackageDescription

/// The gateway's own targets build without a single warning: a warning is an error.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

// Dependencies point one way: ModelCore ← Model ← Backends ← Aggregation ← Gateway ← daygate, and
// ModelCore ← CalendarReader ← Backends. ModelCore (plain values and their parsers: JSON, dates)
// and CalendarReader (the pure iCalendar reader) use no package, so the fuzzers' smoke build
// (`make fuzz-smoke`) compiles little. Model re-exports ModelCore and adds what needs a package
// (schemas, config files, fingerprints). Cache and Simulators know only Model.
let package = Package(
    name: "daygate",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "daygate", targets: ["daygate"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0"),
    ],
    targets: [
        .target(name: "ModelCore"),
        .target(
            name: "Model",
            dependencies: [
                "ModelCore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ]
        ),
        // Reads untrusted iCalendar bytes: no I/O and no networking, so it builds alone (for fuzzing).
        .target(name: "CalendarReader", dependencies: ["ModelCore"]),
        .target(
            name: "Cache",
            dependencies: [
                "Model",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Backends",
            dependencies: [
                "Model", "CalendarReader",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "Aggregation",
            dependencies: [
                "Model", "Backends", "Cache",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Gateway",
            dependencies: [
                "Model", "Aggregation", "Backends", "Cache",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ]
        ),
        .target(
            name: "Simulators",
            dependencies: [
                "Model",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ]
        ),
        .executableTarget(
            name: "daygate",
            dependencies: [
                "Model", "Backends", "Gateway", "Simulators", "Aggregation", "Cache", "Yams",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Test support: running a child process (python3 reference scripts) off Swift's shared threads.
        .target(name: "ChildProcess", path: "Tests/ChildProcess"),
        // Test support: a gate that holds async waiters until the test opens it.
        .target(name: "Gates", path: "Tests/Gates"),
        // Test support: one seeded generator for tests that make their own inputs.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        .testTarget(name: "ModelTests", dependencies: ["Gates", "Model", "SeededRandom"]),
        .testTarget(name: "CalendarReaderTests", dependencies: ["CalendarReader", "ChildProcess", "Model"]),
        .testTarget(
            name: "CacheTests",
            dependencies: ["Cache", "Gates", "Model", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "BackendsTests",
            dependencies: [
                "Backends", "CalendarReader", "ChildProcess", "Gates", "Model", "SeededRandom", "Simulators", "Yams",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "AggregationTests",
            dependencies: ["Aggregation", "Backends", "Cache", "ChildProcess", "Gates", "Model"],
            exclude: ["calendar_feed_reference.py"]),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "Aggregation", "Backends", "Cache", "Gates", "Model", "SeededRandom", "Simulators",
                "daygate",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ]
        ),
        .testTarget(
            name: "SimulatorsTests",
            dependencies: [
                "ChildProcess", "Model", "Simulators",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)

// The fuzzers (Tests/Fuzz): one executable, `daygate-fuzz`, with a target per untrusted input
// (a calendar feed, the config, a route file, a request head, each backend's answers). In the
// ordinary build it replays the committed corpus and regressions (`daygate-fuzz replay`); with
// DAYGATE_FUZZ=1 (`make fuzz`, in its own build folder .build-fuzz) it is a libFuzzer binary, and
// the gateway's own modules are compiled with coverage and AddressSanitizer — the packages they
// use are not, which keeps a fresh fuzz build to about the time of an ordinary one.
let fuzzing = Context.environment["DAYGATE_FUZZ"] == "1"
// `daygate-fuzz-smoke` has only the targets whose code uses no package (ModelCore,
// CalendarReader: a calendar feed, JSON), so its libFuzzer build is quick and `make test` runs it.
let fuzzSettings: [SwiftSetting] = fuzzing ? [.define("LIBFUZZER")] : []
let fuzzLinking: [LinkerSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
package.targets += [
    .target(
        name: "FuzzSupport", dependencies: ["ModelCore", "CalendarReader"], path: "Tests/Fuzz/Support",
        swiftSettings: fuzzSettings),
    .executableTarget(
        name: "daygate-fuzz",
        dependencies: [
            "FuzzSupport", "Model", "CalendarReader", "Backends", "Aggregation", "Gateway",
            .product(name: "Hummingbird", package: "hummingbird"),
        ],
        path: "Tests/Fuzz/Sources", swiftSettings: fuzzSettings, linkerSettings: fuzzLinking),
    .executableTarget(
        name: "daygate-fuzz-smoke", dependencies: ["FuzzSupport"], path: "Tests/Fuzz/Smoke",
        swiftSettings: fuzzSettings, linkerSettings: fuzzLinking),
]
let ownTargets: Set<String> = [
    "ModelCore", "Model", "CalendarReader", "Cache", "Backends", "Aggregation", "Gateway", "FuzzSupport",
    "daygate-fuzz", "daygate-fuzz-smoke",
]

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + strict
    if fuzzing, ownTargets.contains(target.name) {
        target.swiftSettings! += [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
}
