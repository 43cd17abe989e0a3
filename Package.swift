// swift-tools-version:6.0
// kwsuggest: ingredient-keyword suggestion. No package dependencies by design.
import PackageDescription

/// One settings list shared by every Swift target, tests included (Swift 6 language mode comes from the
/// tools version).
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "kwsuggest",
    products: [
        .executable(name: "kwsuggest", targets: ["kwsuggest"]),
        .library(name: "KeywordService", targets: ["KeywordService"]),
        .library(name: "KeywordServer", targets: ["KeywordServer"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
    ],
    dependencies: [],
    targets: [
        // The strict JSON reader and writer every file and request format goes through: a leaf.
        .target(name: "StrictJSON", swiftSettings: settings),
        // What the package needs from the platform, written once: clocks and the FNV-1a hash.
        .target(name: "Platform", swiftSettings: settings),
        // The model path, as the data flows: text and vectors feed the service; the model (encoder, exact-match
        // evidence, trainer), which needs only the JSON reader for encoder.json, is what the keyword index builds
        // on; the service wires them together.
        .target(name: "KeywordText", dependencies: ["Platform"], swiftSettings: settings),
        .target(name: "KeywordVectors", dependencies: ["Platform"], swiftSettings: settings),
        .target(name: "KeywordModel", dependencies: ["Platform", "StrictJSON"], swiftSettings: settings),
        .target(name: "CKernels"),
        .target(name: "CDigest"),
        // The one lock type every layer shares (why: see Locked.swift).
        .target(name: "Locking", swiftSettings: settings),
        .target(name: "KeywordIndex", dependencies: ["KeywordModel", "CKernels", "Locking"], swiftSettings: settings),
        // libpq's few functions, resolved with dlopen only when a PostgreSQL store is used.
        .target(name: "CPostgres"),
        .target(
            name: "KeywordService",
            dependencies: ["CDigest", "CPostgres", "KeywordIndex", "KeywordModel", "KeywordText", "KeywordVectors",
                           "Locking", "Platform", "StrictJSON"],
            swiftSettings: settings),

        // The HTTP path: a generic HTTP/1.1 core that knows nothing of the application, and the application
        // (routes, handlers, admin page, OpenAPI, the runner that wires a model to a server) on top of it.
        .target(name: "CSystem"),
        .target(name: "HTTPCore", dependencies: ["CSystem", "Locking", "Platform", "StrictJSON"], swiftSettings: settings),
        // The workbench page, script and styles are files of their own, compiled into the binary as byte arrays.
        .target(name: "KeywordServer", dependencies: ["HTTPCore", "StrictJSON", "KeywordService", "Locking"],
                resources: [.embedInCode("Workbench/workbench.html"), .embedInCode("Workbench/workbench.js"),
                            .embedInCode("Workbench/workbench.css")],
                swiftSettings: settings),

        // The CLI on top of both paths.
        .executableTarget(
            name: "kwsuggest",
            dependencies: ["KeywordServer", "HTTPCore", "KeywordService", "KeywordIndex", "KeywordModel", "KeywordText",
                           "KeywordVectors", "Locking", "Platform", "StrictJSON"],
            swiftSettings: settings),

        .testTarget(name: "PlatformTests", dependencies: ["Platform"], swiftSettings: settings),
        .testTarget(name: "KeywordTextTests", dependencies: ["KeywordText"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordVectorsTests", dependencies: ["KeywordVectors"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordModelTests", dependencies: ["KeywordModel", "KeywordIndex"], swiftSettings: settings),
        .testTarget(
            name: "KeywordServiceTests",
            dependencies: ["KeywordService", "CDigest", "KeywordIndex", "KeywordModel", "Locking"],
            swiftSettings: settings),
        // Test-only: a seeded generator for the mutation tests of the JSON reader, the parser and the API.
        .target(name: "MutationTesting", path: "Tests/MutationTesting", swiftSettings: settings),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON", "MutationTesting"], swiftSettings: settings),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "MutationTesting"], swiftSettings: settings),
        .testTarget(
            name: "KeywordServerTests",
            dependencies: ["KeywordServer", "HTTPCore", "StrictJSON", "KeywordService", "Locking", "MutationTesting"],
            resources: [.copy("Fixtures")],
            swiftSettings: settings),
        // Reads Package.swift and the sources: each module's imports are exactly its declared dependencies.
        .testTarget(name: "PackageGraphTests", swiftSettings: settings),
        // Runs the built `kwsuggest` binary (found beside the test bundle); it imports none of the modules, and
        // the dependency only makes SwiftPM build the binary first.
        .testTarget(name: "CLITests", dependencies: ["kwsuggest"], swiftSettings: settings),
    ]
)
