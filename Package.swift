// swift-tools-version:6.0
// kwsuggest: ingredient-keyword suggestion. No package dependencies by design.
import PackageDescription

/// One settings list shared by every Swift target (Swift 6 language mode comes from the tools version).
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "kwsuggest",
    products: [
        .executable(name: "kwsuggest", targets: ["kwsuggest"]),
        .library(name: "KeywordService", targets: ["KeywordService"]),
        .library(name: "KeywordServer", targets: ["KeywordServer"]),
    ],
    dependencies: [],
    targets: [
        // Data flows top to bottom: text → vectors → model → index → service → HTTP → CLI.
        .target(name: "KeywordText", swiftSettings: settings),
        .target(name: "KeywordVectors", swiftSettings: settings),
        .target(name: "KeywordModel", dependencies: ["KeywordText", "KeywordVectors"], swiftSettings: settings),
        .target(name: "CKernels"),
        .target(name: "KeywordIndex", dependencies: ["KeywordModel", "CKernels"], swiftSettings: settings),
        // libpq's few functions, resolved with dlopen only when a PostgreSQL store is used.
        .target(name: "CPostgres"),
        .target(name: "KeywordService", dependencies: ["KeywordIndex", "CPostgres"], swiftSettings: settings),
        .target(name: "CSystem"),
        .target(name: "KeywordServer", dependencies: ["KeywordService", "CSystem"], swiftSettings: settings),
        .executableTarget(name: "kwsuggest", dependencies: ["KeywordServer", "KeywordService"], swiftSettings: settings),

        .testTarget(name: "KeywordTextTests", dependencies: ["KeywordText"], resources: [.copy("Fixtures")]),
        .testTarget(name: "KeywordVectorsTests", dependencies: ["KeywordVectors"], resources: [.copy("Fixtures")]),
        .testTarget(name: "KeywordModelTests", dependencies: ["KeywordModel", "KeywordIndex"]),
        .testTarget(name: "KeywordServiceTests", dependencies: ["KeywordService"]),
        .testTarget(name: "KeywordServerTests", dependencies: ["KeywordServer"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CLITests", dependencies: []),
    ]
)
