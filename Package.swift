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
        .library(name: "Serving", targets: ["Serving"]),
        .library(name: "KeywordServer", targets: ["KeywordServer"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
    ],
    dependencies: [],
    targets: [
        // The strict JSON reader and writer every file and request format goes through: a leaf.
        .target(name: "StrictJSON", swiftSettings: settings),
        // What the package needs from the platform, written once: clocks, the FNV-1a hash, SHA-256 and giving freed
        // memory back to the system.
        .target(name: "Platform", dependencies: ["CDigest", "CSystem"], swiftSettings: settings),
        // The process's one event log on standard error: events as JSON lines with a level, and the CLI's
        // messages to a person.
        .target(name: "EventLog", dependencies: ["StrictJSON"], swiftSettings: settings),
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
        // The store contract: the `KeywordStore` protocol, its records, the keyword rules every way in obeys,
        // where a store lives, and the line formats (feedback, training data, archives).
        .target(name: "StoreInterface", dependencies: ["Platform", "StrictJSON"], swiftSettings: settings),
        // The default store: the overlay file, the feedback log and the lock file beside them.
        .target(name: "FileStore", dependencies: ["Locking", "StoreInterface", "StrictJSON"], swiftSettings: settings),
        // The PostgreSQL store, and beside it libpq's few functions, resolved with dlopen only when it is used.
        .target(name: "CPostgres"),
        .target(name: "PostgresStore", dependencies: ["CPostgres", "Locking", "Platform", "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // Model files: the directory (manifest, checksums, calibration) loaded, checked and written.
        .target(
            name: "ModelStorage",
            dependencies: ["EventLog", "KeywordIndex", "KeywordModel", "KeywordText", "KeywordVectors", "Platform", "StrictJSON"],
            swiftSettings: settings),
        // Opening the store a location names (and its queue and model registry): the one place that knows every
        // store implementation.
        .target(name: "StoreOpening", dependencies: ["FileStore", "ModelStorage", "Platform", "PostgresStore", "StoreInterface"],
                swiftSettings: settings),
        // Training data: labelled names read and written (JSON lines), and the ones feedback records teach.
        .target(name: "TrainingData", dependencies: ["ModelStorage", "StoreInterface", "StrictJSON"], swiftSettings: settings),
        // The serving engine: a loaded model and its live keyword list behind a store.
        .target(name: "Serving", dependencies: ["EventLog", "KeywordIndex", "KeywordModel", "Locking", "ModelStorage", "Platform",
                                                "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // Training and evaluation (the CLI only): encoder fitting, calibration fitting, metrics.
        .target(
            name: "Training",
            dependencies: ["KeywordIndex", "KeywordModel", "ModelStorage", "Platform", "Serving", "StoreInterface", "TrainingData"],
            swiftSettings: settings),

        // The HTTP path: a generic HTTP/1.1 core that knows nothing of the application, and the application
        // (routes, handlers, admin page, OpenAPI, the runner that wires a model to a server) on top of it.
        // Below the core, the socket layer in a module of its own (as FlyingSocks sits under FlyingFox): the
        // system-call wrappers (sockets, epoll, eventfd, pipes, signals) and listening sockets; it knows nothing of HTTP.
        .target(name: "CSystem"),
        .target(name: "Sockets", dependencies: ["CSystem", "Platform"], swiftSettings: settings),
        .target(name: "HTTPCore", dependencies: ["CSystem", "EventLog", "Locking", "Sockets", "StrictJSON"],
                swiftSettings: settings),
        // The API's building blocks, below its endpoints: the route value and the middlewares around handlers
        // (token, body cap, CORS, no-store), request decoding and the limits it applies, and errors as answers
        // with every code a client can see.
        .target(name: "APICore", dependencies: ["HTTPCore", "Locking", "Platform", "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // The team annotation queue over HTTP: the queue as the API uses it (each product suggested first), its
        // routes with their caps, handlers, metrics and its part of the OpenAPI document.
        .target(name: "QueueAPI", dependencies: ["APICore", "EventLog", "HTTPCore", "Locking", "Serving", "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // The workbench page, script and styles are files of their own, compiled into the binary as byte arrays.
        .target(
            name: "KeywordServer",
            dependencies: ["APICore", "EventLog", "HTTPCore", "Locking", "QueueAPI", "Serving", "StoreInterface", "StrictJSON",
                           "TrainingData"],
            resources: [.embedInCode("Workbench/workbench.html"), .embedInCode("Workbench/workbench.js"),
                        .embedInCode("Workbench/queue.js"), .embedInCode("Workbench/workbench.css")],
            swiftSettings: settings),
        // Running `serve`: the server, the model loader, the store watcher, the registry follower and the signals
        // as a group of services with run/shutdown, and the rules checked before it listens.
        .target(
            name: "ServerLifecycle",
            dependencies: ["APICore", "EventLog", "FileStore", "HTTPCore", "KeywordServer", "Locking", "QueueAPI", "Serving",
                           "Sockets", "StoreInterface", "StoreOpening"],
            swiftSettings: settings),

        // The measurements behind `kwsuggest bench`: load time, suggest latency, tokenizer throughput, memory, keyword
        // changes and annotation-queue operations.
        .target(
            name: "Benchmarks",
            dependencies: ["FileStore", "KeywordIndex", "KeywordVectors", "Locking", "ModelStorage", "Platform", "Serving",
                           "StoreInterface", "StoreOpening"],
            swiftSettings: settings),

        // The CLI on top of both paths.
        .executableTarget(
            name: "kwsuggest",
            dependencies: ["APICore", "Benchmarks", "EventLog", "FileStore", "HTTPCore", "KeywordIndex", "KeywordModel", "KeywordServer", "KeywordText",
                           "KeywordVectors", "ModelStorage", "Platform", "PostgresStore", "ServerLifecycle",
                           "Serving", "Sockets", "StoreInterface", "StoreOpening", "StrictJSON", "Training", "TrainingData"],
            swiftSettings: settings),

        .testTarget(name: "PlatformTests", dependencies: ["Platform"], swiftSettings: settings),
        .testTarget(name: "EventLogTests", dependencies: ["EventLog"], swiftSettings: settings),
        .testTarget(name: "KeywordTextTests", dependencies: ["KeywordText"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordVectorsTests", dependencies: ["KeywordVectors"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordModelTests", dependencies: ["KeywordModel", "KeywordIndex"], swiftSettings: settings),
        .testTarget(
            name: "KeywordServiceTests",
            dependencies: ["CDigest", "FileStore", "KeywordIndex", "KeywordModel", "Locking", "ModelStorage", "Platform",
                           "PostgresStore", "Serving", "StoreInterface", "StrictJSON", "Training", "TrainingData"],
            swiftSettings: settings),
        // Test-only: a seeded generator for the mutation tests of the JSON reader, the parser and the API.
        .target(name: "MutationTesting", path: "Tests/MutationTesting", swiftSettings: settings),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON", "MutationTesting"], swiftSettings: settings),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "MutationTesting"], swiftSettings: settings),
        .testTarget(
            name: "KeywordServerTests",
            dependencies: ["APICore", "FileStore", "HTTPCore", "KeywordServer", "Locking", "MutationTesting", "PostgresStore",
                           "QueueAPI", "Serving", "StoreInterface", "StrictJSON"],
            resources: [.copy("Fixtures")],
            swiftSettings: settings),
        .testTarget(name: "ServerLifecycleTests", dependencies: ["APICore", "ServerLifecycle"], swiftSettings: settings),
        // Reads Package.swift and the sources: each module's imports are exactly its declared dependencies.
        .testTarget(name: "PackageGraphTests", swiftSettings: settings),
        // Runs the built `kwsuggest` binary (found beside the test bundle); it imports none of the modules, and
        // the dependency only makes SwiftPM build the binary first.
        .testTarget(name: "CLITests", dependencies: ["kwsuggest"], swiftSettings: settings),
    ]
)
