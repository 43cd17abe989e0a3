import Foundation
import XCTest

/// `Package.swift` declares exactly what each module imports: every import of a module of this package is a
/// declared dependency, and every declared dependency is imported somewhere in the target. A newcomer reads the
/// module graph there first, so it must be the real one.
final class PackageGraphTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Target name → (source folder, declared dependencies), read from Package.swift.
    private func declaredTargets() throws -> [String: (path: String, dependencies: Set<String>)] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Each target declaration: `.target(` / `.executableTarget(` / `.testTarget(` up to its closing `)`.
        let pattern = try NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"(.*?)\)(,|\n)"#,
                                              options: [.dotMatchesLineSeparators])
        var result: [String: (String, Set<String>)] = [:]
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let kind = text.substring(with: match.range(at: 1))
            let name = text.substring(with: match.range(at: 2))
            let rest = text.substring(with: match.range(at: 3))
            var dependencies: Set<String> = []
            if let list = rest.range(of: #"dependencies:\s*\[([^\]]*)\]"#, options: .regularExpression) {
                let inner = rest[list]
                for piece in inner.split(separator: "\"").enumerated() where piece.offset % 2 == 1 {
                    dependencies.insert(String(piece.element))
                }
            }
            var path = (kind == "testTarget" ? "Tests/" : "Sources/") + name
            if let custom = rest.range(of: #"path:\s*"([^"]+)""#, options: .regularExpression) {
                path = String(rest[custom].split(separator: "\"")[1])
            }
            result[name] = (path, dependencies)
        }
        return result
    }

    /// The modules a folder's Swift files import: `import X`, with any attributes (`@testable`,
    /// `@preconcurrency`) and access level (`public import X`) in front, at any indentation.
    private func imports(in folder: String) throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern: #"^[ \t]*(?:@\w+[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+(\w+)"#,
            options: [.anchorsMatchLines])
        var found: Set<String> = []
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        for case let file as URL in walker where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { found.insert(String(text[range])) }
            }
        }
        return found
    }

    func testEveryImportOfAPackageModuleIsDeclaredAndEveryDeclarationIsUsed() throws {
        let targets = try declaredTargets()
        XCTAssertGreaterThanOrEqual(targets.count, 15, "the manifest parser found too few targets: \(targets.keys.sorted())")
        let swiftModules = Set(targets.keys)
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) {
            let folder = root.appendingPathComponent(target.path)
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), "\(name): no \(target.path)")
            let imported = try imports(in: target.path).intersection(swiftModules)
            // A test target that runs a built binary declares it without importing it.
            let declared = name == "CLITests" ? [] : target.dependencies
            XCTAssertEqual(imported.subtracting(declared).sorted(), [], "\(name) imports modules Package.swift does not declare")
            let unused = declared.subtracting(imported).filter { dependency in
                // C targets are imported by their module name too, so the same rule holds for them.
                swiftModules.contains(dependency)
            }
            XCTAssertEqual(unused.sorted(), [], "\(name) declares dependencies it never imports")
        }
    }

    /// The service layers point one way: the store contract and the stores know nothing of models, serving or training;
    /// the model files nothing of stores; serving no store implementation, no HTTP and no training; training (the
    /// CLI's) no HTTP and no store implementation; the API's building blocks no engine, no store implementation and no
    /// endpoint; the queue's API no store implementation and nothing of the rest of the application; the HTTP API no
    /// training, no store implementation and nothing of how the process runs; the runner no training; the benchmarks no
    /// HTTP and no training; the event log nothing above it; the socket layer nothing of HTTP. Checked on the whole
    /// dependency closure, so no edge sneaks in through another module.
    func testServiceLayersKeepTheirDirection() throws {
        let targets = try declaredTargets()
        func closure(_ name: String) -> Set<String> {
            var seen: Set<String> = [], stack = [name]
            while let next = stack.popLast() {
                for dependency in targets[next]?.dependencies ?? [] where seen.insert(dependency).inserted {
                    stack.append(dependency)
                }
            }
            return seen
        }
        let forbidden: [String: Set<String>] = [
            "StoreInterface": ["ModelStorage", "SuggestionRuntime", "Training", "TrainingData", "KeywordIndex", "KeywordModel", "HTTPCore"],
            "FileStore": ["ModelStorage", "SuggestionRuntime", "Training", "TrainingData", "KeywordIndex", "HTTPCore", "PostgresStore"],
            "PostgresStore": ["ModelStorage", "SuggestionRuntime", "Training", "TrainingData", "KeywordIndex", "HTTPCore", "FileStore"],
            "ModelStorage": ["StoreInterface", "FileStore", "PostgresStore", "SuggestionRuntime", "Training", "HTTPCore"],
            "SuggestionRuntime": ["FileStore", "PostgresStore", "Training", "TrainingData", "HTTPCore", "KeywordHTTP"],
            "Training": ["FileStore", "PostgresStore", "HTTPCore", "KeywordHTTP"],
            "StoreOpening": ["SuggestionRuntime", "Training", "HTTPCore", "KeywordHTTP"],
            "APICore": ["SuggestionRuntime", "Training", "FileStore", "PostgresStore", "KeywordHTTP", "ProcessLifecycle"],
            "QueueAPI": ["Training", "FileStore", "PostgresStore", "StoreOpening", "KeywordHTTP", "ProcessLifecycle"],
            "EventLog": ["HTTPCore", "Sockets", "SuggestionRuntime", "StoreInterface", "KeywordHTTP"],
            "KeywordHTTP": ["Training", "FileStore", "PostgresStore", "StoreOpening", "ProcessLifecycle"],
            "ProcessLifecycle": ["Training"],
            "Benchmarks": ["HTTPCore", "KeywordHTTP", "Training"],
            "Sockets": ["HTTPCore", "KeywordHTTP", "StrictJSON"],
        ]
        for (module, banned) in forbidden.sorted(by: { $0.key < $1.key }) {
            XCTAssertNotNil(targets[module], "no target \(module)")
            XCTAssertEqual(closure(module).intersection(banned).sorted(), [], "\(module) reaches modules it must not")
        }
        // The offline `suggest` command runs without the HTTP modules.
        let suggest = try String(contentsOf: root.appendingPathComponent("Sources/kwsuggest/Commands/SuggestCommand.swift"),
                                 encoding: .utf8)
        for module in ["HTTPCore", "KeywordHTTP"] {
            XCTAssertFalse(suggest.contains("import \(module)\n"), "SuggestCommand.swift imports \(module)")
        }
    }
}
