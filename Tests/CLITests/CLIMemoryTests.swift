import Foundation
import XCTest

/// The decision memory across `serve` processes: a decision posted to one replica answers the same product, under
/// shop decorations, on another replica within 10 s; a keyword outside the served list is never suggested.
final class CLIMemoryTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = try CLIServeTests.makeModelDirectory("cli-memory")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testADecisionOnOneReplicaAnswersOnTheOtherWithinTenSeconds() throws {
        try checkReplicas(store: "file:" + directory + "/shared.overlay.json")
    }

    func testADecisionOnOneReplicaAnswersOnTheOtherOnPostgres() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip("needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test")
        }
        try checkReplicas(store: url, suffix: UUID().uuidString.prefix(6).lowercased())
    }

    private func top(_ port: Int, _ name: String) throws -> String {
        let (status, body) = try CLIServeTests.request(port, "POST", "/v1/suggest", body: #"{"name": "\#(name)", "k": 2}"#)
        XCTAssertEqual(status, 200, body)
        return body
    }

    private func checkReplicas(store: String, suffix: String = "") throws {
        let servers = try (0..<2).map { _ in
            try CLIServeTests.Server(arguments: ["--model", directory, "--store", store, "--no-verify"], keepLog: false)
        }
        defer { for server in servers { _ = server.stop() } }
        for server in servers { try CLIServeTests.waitUntilReady(server.port) }
        let name = "農家直送 メークイン\(suffix) 1kg"
        XCTAssertFalse(try top(servers[1].port, name).contains(#""source":"memory""#))
        let decision = #"{"name": "\#(name)", "keyword": "にんじん", "action": "correct", "annotator": "alice"}"#
        XCTAssertEqual(try CLIServeTests.request(servers[0].port, "POST", "/v1/feedback", body: decision).0, 201)
        // The replica that stored it answers at once.
        XCTAssertTrue(try top(servers[0].port, name).hasPrefix(#"{"name":"\#(name)","suggestions":[{"keyword":"にんじん","#))
        let decorated = "【まとめ買い】農家直送 メークイン\(suffix) 2kg ×2"
        var answer = ""
        let start = Date()
        while Date().timeIntervalSince(start) < 10 {
            answer = try top(servers[1].port, decorated)
            if answer.contains(#""source":"memory""#) { break }
            usleep(100_000)
        }
        XCTAssertTrue(answer.hasPrefix(#"{"name":"\#(decorated)","suggestions":[{"keyword":"にんじん","#), answer)
        XCTAssertTrue(answer.contains(#""source":"memory"},{"keyword":""#), answer)
        XCTAssertTrue(answer.contains(#""source":"model"}]"#), answer)
        // A keyword the served list does not hold is never suggested from memory.
        let unlisted = #"{"name": "\#(name)", "keyword": "メークイン", "action": "correct", "annotator": "bob"}"#
        XCTAssertEqual(try CLIServeTests.request(servers[0].port, "POST", "/v1/feedback", body: unlisted).0, 201)
        XCTAssertFalse(try top(servers[0].port, name).contains("メークイン\""))
    }
}
