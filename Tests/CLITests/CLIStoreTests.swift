import Foundation
import XCTest

/// `kwsuggest store export|import`.
final class CLIStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "cli-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private let archive = """
        {"type":"keywords","added":["ごぼう","れんこん"],"removed":["豚肉"]}
        {"type":"feedback","id":3,"received_at":"2026-01-02T03:04:05.000Z","name":"新物 にんじん","keyword":"にんじん","action":"accept","shown":["にんじん"],"annotator":"aiko","client_id":"c-1"}
        {"type":"feedback","id":5,"received_at":"2026-01-02T03:04:06.000Z","name":"豚バラ","keyword":"牛肉","action":"reject","shown":[]}

        """

    /// file → archive → another file store → archive: the same bytes.
    func testImportThenExportRoundTrips() throws {
        let first = "file:" + directory + "/a/keywords.overlay.json"
        try FileManager.default.createDirectory(atPath: directory + "/a", withIntermediateDirectories: true)
        let imported = try CLITests.run(["store", "import", "--store", first], stdin: archive)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("2 added and 1 removed keywords; 2 of 2 feedback records stored"), imported.stderr)
        let again = try CLITests.run(["store", "import", "--store", first], stdin: archive)
        XCTAssertTrue(again.stderr.contains("0 of 2 feedback records stored"), again.stderr)
        let exported = try CLITests.run(["store", "export", "--store", first])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let lines = exported.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, exported.stdout)
        XCTAssertEqual(lines[0], #"{"added":["ごぼう","れんこん"],"removed":["豚肉"],"type":"keywords"}"#)
        XCTAssertTrue(lines[1].hasPrefix(#"{"type":"feedback","action":"accept","annotator":"aiko","client_id":"c-1","id":3,"#), String(lines[1]))

        try FileManager.default.createDirectory(atPath: directory + "/b", withIntermediateDirectories: true)
        let second = "file:" + directory + "/b/keywords.overlay.json"
        XCTAssertEqual(try CLITests.run(["store", "import", "--store", second], stdin: exported.stdout).status, 0)
        XCTAssertEqual(try CLITests.run(["store", "export", "--store", second]).stdout, exported.stdout)
    }

    /// The same archive through PostgreSQL and back.
    func testRoundTripThroughPostgres() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip("needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test")
        }
        let file = "file:" + directory + "/keywords.overlay.json"
        // Ids and client ids of their own, so records other tests left in the database cannot collide.
        // Starting with 1, so no replacement below makes `"id":3` or `"id":5` of another's digits.
        let base = Int.random(in: 1_000_000_000...1_999_999_999)
        let unique = archive.replacingOccurrences(of: #""id":3"#, with: "\"id\":\(base)")
            .replacingOccurrences(of: #""id":5"#, with: "\"id\":\(base + 2)")
            .replacingOccurrences(of: "c-1", with: "c-\(base)")
        XCTAssertEqual(try CLITests.run(["store", "import", "--store", file], stdin: unique).status, 0)
        let fromFile = try CLITests.run(["store", "export", "--store", file]).stdout
        let imported = try CLITests.run(["store", "import", "--store", url], stdin: fromFile)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertFalse(imported.stderr.contains(url), "the URL's password is masked: \(imported.stderr)")
        let fromDatabase = try CLITests.run(["store", "export", "--store", url]).stdout
        // The database may hold records from other tests; the archive's own lines must be there unchanged.
        for line in fromFile.split(separator: "\n") { XCTAssertTrue(fromDatabase.contains(line), String(line)) }
    }

    func testBadLineIsReportedWithItsNumberAndNothingIsWritten() throws {
        let store = "file:" + directory + "/keywords.overlay.json"
        let bad = "{\"type\":\"keywords\",\"added\":[\"a\"],\"removed\":[]}\n{\"type\":\"feedback\",\"id\":\"x\"}\n"
        let outcome = try CLITests.run(["store", "import", "--store", store], stdin: bad)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: <stdin>:2: "), outcome.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/keywords.overlay.json"))
    }

    func testMissingActionIsAUsageError() throws {
        let outcome = try CLITests.run(["store"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: Missing expected argument '<action>'"), outcome.stderr)
    }
}
