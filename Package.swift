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
        .library(name: "SuggestionRuntime", targets: ["SuggestionRuntime"]),
        .library(name: "KeywordHTTP", targets: ["KeywordHTTP"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
    ],
    dependencies: [],
    targets: [
        // The strict JSON reader and writer every file and request format goes through: a leaf.
        .target(name: "StrictJSON", swiftSettings: settings),
        // What the package needs from the platform, written once: clocks, UTC times as text, the control-character
        // rule, binary search, the FNV-1a hash, SHA-256 and giving freed memory back to the system.
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
        .target(name: "KeywordIndex", dependencies: ["KeywordModel", "CKernels", "Locking", "Platform"], swiftSettings: settings),
        // The store contract: the `KeywordStore` protocol, its records, the keyword rules every way in obeys,
        // where a store lives, and the line formats (feedback, training data, archives).
        .target(name: "StoreInterface", dependencies: ["Platform", "StrictJSON"], swiftSettings: settings),
        // The team annotation queue's domain: its items, leases, decisions and labels, the rules every store
        // keeps them by, the operations both stores run over a workspace, and the queue's export lines.
        .target(name: "TeamQueue", dependencies: ["Platform", "StoreInterface", "StrictJSON"], swiftSettings: settings),
        // The model registry's domain: pushed model versions, which one is live, and the files they are kept in.
        .target(name: "ModelVersions", dependencies: ["StoreInterface", "StrictJSON"], swiftSettings: settings),
        // The default store: the overlay file, the feedback log and the lock file beside them.
        .target(name: "FileStore", dependencies: ["Locking", "ModelVersions", "Platform", "StoreInterface", "StrictJSON", "TeamQueue"], swiftSettings: settings),
        // The PostgreSQL store, and beside it libpq's few functions, resolved with dlopen only when it is used.
        .target(name: "CPostgres"),
        .target(name: "PostgresStore", dependencies: ["CPostgres", "Locking", "ModelVersions", "Platform", "StoreInterface", "StrictJSON", "TeamQueue"],
                swiftSettings: settings),
        // Model files: the directory (manifest, checksums, calibration) loaded, checked and written.
        .target(
            name: "ModelStorage",
            dependencies: ["EventLog", "KeywordIndex", "KeywordModel", "KeywordText", "KeywordVectors", "Platform", "StrictJSON"],
            swiftSettings: settings),
        // Opening the store a location names (and its queue and model registry): the one place that knows every
        // store implementation.
        .target(name: "StoreOpening", dependencies: ["FileStore", "ModelStorage", "ModelVersions", "Platform", "PostgresStore", "StoreInterface", "TeamQueue"],
                swiftSettings: settings),
        // Training data: labelled names read and written (JSON lines), and the ones feedback records teach.
        // The memory of decided names: the store's decisions by name key, with the one rule that resolves them
        // (training from feedback uses the same rule).
        .target(name: "DecisionMemory", dependencies: ["Locking", "StoreInterface", "TeamQueue"], swiftSettings: settings),
        .target(name: "TrainingData", dependencies: ["DecisionMemory", "ModelStorage", "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // The serving engine: a loaded model and its live keyword list behind a store.
        .target(name: "SuggestionRuntime", dependencies: ["DecisionMemory", "EventLog", "KeywordIndex", "KeywordModel", "Locking", "ModelStorage", "ModelVersions", "Platform", "StoreInterface", "StrictJSON"],
                swiftSettings: settings),
        // Training and evaluation (the CLI only): encoder fitting, calibration fitting, metrics.
        .target(
            name: "Training",
            dependencies: ["KeywordIndex", "KeywordModel", "ModelStorage", "ModelVersions", "Platform", "SuggestionRuntime", "StoreInterface", "TrainingData"],
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
        .target(name: "APICore", dependencies: ["HTTPCore", "Locking", "Platform", "StoreInterface", "StrictJSON", "TeamQueue"],
                swiftSettings: settings),
        // The team annotation queue over HTTP: the queue as the API uses it (each product suggested first), its
        // routes with their caps, handlers, metrics and its part of the OpenAPI document.
        .target(name: "QueueAPI", dependencies: ["APICore", "EventLog", "HTTPCore", "Locking", "Platform", "SuggestionRuntime", "StoreInterface", "StrictJSON", "TeamQueue"],
                swiftSettings: settings),
        // The workbench page, script and styles are files of their own, compiled into the binary as byte arrays.
        .target(
            name: "KeywordHTTP",
            dependencies: ["DecisionMemory", "APICore", "EventLog", "HTTPCore", "Locking", "QueueAPI", "SuggestionRuntime", "StoreInterface", "StrictJSON",
                           "TrainingData"],
            resources: [.embedInCode("Workbench/workbench.html"), .embedInCode("Workbench/workbench.js"),
                        .embedInCode("Workbench/queue.js"), .embedInCode("Workbench/common.js"),
                        .embedInCode("Workbench/workbench.css")],
            swiftSettings: settings),
        // Running `serve`: the server, the model loader, the store watcher, the registry follower and the signals
        // as a group of services with run/shutdown, and the rules checked before it listens.
        .target(
            name: "ProcessLifecycle",
            dependencies: ["DecisionMemory", "APICore", "EventLog", "FileStore", "HTTPCore", "KeywordHTTP", "Locking", "Platform", "QueueAPI", "SuggestionRuntime", "Sockets", "StoreInterface", "StoreOpening", "TeamQueue"],
            swiftSettings: settings),

        // The measurements behind `kwsuggest bench`: load time, suggest latency, tokenizer throughput, memory, keyword
        // changes and annotation-queue operations.
        .target(
            name: "Benchmarks",
            dependencies: ["DecisionMemory", "FileStore", "KeywordIndex", "KeywordVectors", "Locking", "ModelStorage", "Platform", "SuggestionRuntime", "StoreInterface", "StoreOpening", "TeamQueue"],
            swiftSettings: settings),

        // The CLI on top of both paths.
        .executableTarget(
            name: "kwsuggest",
            dependencies: ["DecisionMemory", "APICore", "Benchmarks", "EventLog", "FileStore", "HTTPCore", "KeywordIndex", "KeywordModel", "KeywordHTTP", "KeywordText", "KeywordVectors", "ModelStorage", "ModelVersions", "Platform", "PostgresStore", "ProcessLifecycle", "QueueAPI", "SuggestionRuntime", "Sockets", "StoreInterface", "StoreOpening", "StrictJSON", "TeamQueue", "Training", "TrainingData"],
            swiftSettings: settings),

        .testTarget(name: "PlatformTests", dependencies: ["Platform"], swiftSettings: settings),
        .testTarget(name: "EventLogTests", dependencies: ["EventLog"], swiftSettings: settings),
        .testTarget(name: "DecisionMemoryTests",
                    dependencies: ["DecisionMemory", "FileStore", "KeywordModel", "ModelStorage", "QueueAPI", "StoreInterface", "SuggestionRuntime", "TeamQueue",
                                   "StrictJSON"],
                    swiftSettings: settings),
        .testTarget(name: "KeywordTextTests", dependencies: ["KeywordText"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordVectorsTests", dependencies: ["KeywordVectors"], resources: [.copy("Fixtures")],
                    swiftSettings: settings),
        .testTarget(name: "KeywordModelTests", dependencies: ["KeywordModel", "KeywordIndex"], swiftSettings: settings),
        .testTarget(
            name: "SuggestionRuntimeTests",
            dependencies: ["CDigest", "FileStore", "KeywordIndex", "KeywordModel", "KeywordText", "Locking", "ModelStorage", "ModelVersions", "Platform", "PostgresStore", "StoreInterface", "StrictJSON", "SuggestionRuntime", "TeamQueue", "Training", "TrainingData"],
            swiftSettings: settings),
        // Test-only: a seeded generator for the mutation tests of the JSON reader, the parser and the API.
        .target(name: "MutationTesting", path: "Tests/MutationTesting", swiftSettings: settings),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON", "MutationTesting"], swiftSettings: settings),
        .testTarget(name: "HTTPCoreTests", dependencies: ["EventLog", "HTTPCore", "MutationTesting"], swiftSettings: settings),
        .testTarget(
            name: "KeywordHTTPTests",
            dependencies: ["APICore", "EventLog", "FileStore", "HTTPCore", "KeywordHTTP", "Locking", "MutationTesting", "Platform", "PostgresStore", "QueueAPI", "StoreInterface", "StrictJSON", "SuggestionRuntime", "TeamQueue"],
            resources: [.copy("Fixtures")],
            swiftSettings: settings),
        .testTarget(name: "ProcessLifecycleTests",
                    dependencies: ["APICore", "DecisionMemory", "FileStore", "KeywordHTTP", "Locking", "ProcessLifecycle", "StoreInterface", "StoreOpening",
                                   "SuggestionRuntime", "TeamQueue"],
                    swiftSettings: settings),
        // Reads Package.swift and the sources: each module's imports are exactly its declared dependencies.
        .testTarget(name: "PackageGraphTests", swiftSettings: settings),
        // Runs the built `kwsuggest` binary (found beside the test bundle); it imports none of the modules, and
        // the dependency only makes SwiftPM build the binary first.
        .testTarget(name: "CLITests", dependencies: ["kwsuggest"], swiftSettings: settings),
    ]
)
