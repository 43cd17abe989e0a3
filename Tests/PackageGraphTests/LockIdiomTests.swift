import Foundation
import XCTest

/// The package has one lock idiom, `Locked` in Sources/Locking (why: see Locked.swift). Any other lock in
/// Sources (`NSLock`, `Mutex`, `os_unfair_lock`, a pthread mutex) fails this test; comments do not count.
final class LockIdiomTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The lock names looked for, as whole words.
    static let lockNames = ["NSLock", "NSRecursiveLock", "NSConditionLock", "Mutex", "os_unfair_lock",
                            "pthread_mutex_t", "pthread_mutex_lock", "pthread_mutex_init", "pthread_rwlock_t"]

    /// `file:line: name` for every lock name in `text` outside `//` comments.
    static func lockUses(in text: String, file: String) throws -> [String] {
        let pattern = try NSRegularExpression(pattern: #"\b("# + lockNames.joined(separator: "|") + #")\b"#)
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            let range = NSRange(code.startIndex..., in: code)
            for match in pattern.matches(in: code, range: range) {
                if let name = Range(match.range(at: 1), in: code) { found.append("\(file):\(number + 1): \(code[name])") }
            }
        }
        return found
    }

    func testTheScanFindsALockOutsideComments() throws {
        let sample = "// an NSLock in a comment\nprivate let lock = NSLock()\nvar m = Mutex(0) // Mutex\n"
        XCTAssertEqual(try Self.lockUses(in: sample, file: "x.swift"), ["x.swift:2: NSLock", "x.swift:3: Mutex"])
    }

    func testNoLockOutsideTheLockingModule() throws {
        let sources = root.appendingPathComponent("Sources")
        let locking = sources.appendingPathComponent("Locking").standardizedFileURL.path + "/"
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return XCTFail("cannot list \(sources.path)")
        }
        var scanned = 0
        var found: [String] = []
        for case let file as URL in walker where ["swift", "c", "h"].contains(file.pathExtension) {
            let path = file.standardizedFileURL.path
            guard !path.hasPrefix(locking) else { continue }
            scanned += 1
            let relative = String(path.dropFirst(root.standardizedFileURL.path.count + 1))
            found += try Self.lockUses(in: String(contentsOf: file, encoding: .utf8), file: relative)
        }
        XCTAssertGreaterThan(scanned, 50, "the scan found too few source files")
        XCTAssertEqual(found, [], "use Locked (Sources/Locking) instead")
    }
}
