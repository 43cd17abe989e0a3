import Foundation
import XCTest

/// A running `serve` follows its store's registry: a promotion is served without a restart (in /readyz and in
/// every suggestion's `model`), a rollback returns to --model; on the file store and on PostgreSQL.
final class CLIModelSwapTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-swap" }

    /// A copy of the shipped model whose manifest names `version`.
    private func model(_ version: String) throws -> String {
        let directory = scratch + "/" + version
        try FileManager.default.copyItem(atPath: CLITests.packageRoot.appendingPathComponent("models/default").path, toPath: directory)
        let url = URL(fileURLWithPath: directory + "/manifest.json")
        var manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        manifest["model_version"] = version
        try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys]).write(to: url)
        return directory
    }

    private func readyModel(_ port: Int) -> String? {
        guard let (status, body) = try? CLIServeTests.request(port, "GET", "/readyz"), status == 200,
              let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return object["model"] as? String
    }

    /// Polls /readyz until it names `version` (a debug build on a busy machine loads a model in seconds).
    private func waitFor(_ version: String, _ port: Int) -> Bool {
        for _ in 0..<1200 {
            if readyModel(port) == version { return true }
            usleep(50_000)
        }
        return false
    }

    private func swapAndRollBack(store: String) throws {
        let server = try CLIServeTests.Server(arguments: ["--store", store], keepLog: false)
        defer { _ = server.stop() }
        let shipped = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: CLITests.packageRoot
            .appendingPathComponent("models/default/manifest.json"))) as? [String: Any])?["model_version"] as? String)
        XCTAssertTrue(waitFor(shipped, server.port), "serves --model while no version is live")
        let version = "swap-\(UUID().uuidString.prefix(8).lowercased())"
        let pushed = try CLITests.run(["model", "push", try model(version), "--store", store])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(try CLITests.run(["model", "promote", version, "--store", store, "--force"]).status, 0)
        XCTAssertTrue(waitFor(version, server.port), "serves the promoted version")
        let (status, body) = try CLIServeTests.request(server.port, "POST", "/v1/suggest", body: #"{"name":"にんじん 3本"}"#)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(body.contains("\"model\":\"\(version)\""), body)
        XCTAssertTrue(try CLIServeTests.request(server.port, "GET", "/readyz").1.contains(#""model_source":"registry""#))
        XCTAssertEqual(try CLITests.run(["model", "rollback", "--store", store]).status, 0)
        XCTAssertTrue(waitFor(shipped, server.port), "back on --model after the first promotion is rolled back")
    }

    func testFileStore() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/store", withIntermediateDirectories: true)
        try swapAndRollBack(store: "file:" + scratch + "/store/keywords.overlay.json")
    }

    func testPostgresStore() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip("needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test")
        }
        // A registry left with a live version by another test would be served from the start.
        if let live = (try? JSONSerialization.jsonObject(with: Data(try CLITests.run(["model", "list", "--store", url, "--json"]).stdout.utf8))
                       as? [String: Any]).flatMap({ ($0["head"] as? [String: Any])?["live"] as? String }) {
            throw XCTSkip("the test database has \(live) live")
        }
        try swapAndRollBack(store: url)
    }
}
