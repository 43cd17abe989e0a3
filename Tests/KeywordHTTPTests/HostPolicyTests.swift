import HTTPCore
@testable import KeywordHTTP
import XCTest

/// Open writes (no token) and the feedback export are served only for loopback `Host` names and the configured
/// ones: a page that rebinds its own name to 127.0.0.1 still sends its own name, and is refused.
final class HostPolicyTests: XCTestCase {
    private let write = #"{"add": ["ホスト検査"]}"#

    private func api(hosts: [String] = [], token: String? = nil) throws -> KeywordAPI {
        var configuration = APIConfiguration()
        configuration.adminToken = token
        configuration.hosts = try HostPolicy(allowedNames: hosts)
        return KeywordAPI(configuration: configuration, state: EngineSlot(engine: FakeEngine()),
                          metrics: KeywordAPI.makeMetrics())
    }

    func testAForeignHostCannotWriteWhileWritesAreOpen() throws {
        let api = try api()
        for host in ["attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example", "localhost.attacker.example",
                     "[::2]", "10.0.0.1", "", "local host", "localhost:http", "[::1]x"] {
            let request = makeRequest(.post, "/v1/keywords", headers: [("Host", host)], body: write)
            let response = api.respond(to: request)
            XCTAssertEqual(response.status.code, 403, host)
            XCTAssertEqual(errorCode(response), "host_not_allowed", host)
            // Refused on the head too, before any body is read.
            XCTAssertEqual(api.admit(request)?.status.code, 403, host)
            let export = makeRequest(.get, "/v1/feedback/export", headers: [("Host", host)])
            XCTAssertEqual(errorCode(api.respond(to: export)), "host_not_allowed", host)
        }
        // No Host at all (HTTP/1.0 may omit it).
        let bare = HTTPRequest(method: .post, target: "/v1/keywords",
                               headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(write.utf8))
        XCTAssertEqual(errorCode(api.respond(to: bare)), "host_not_allowed")
    }

    /// The token and `Host` guards run once, on the head: the plan carries their refusal, `respond(to:)` (like the
    /// server) sends it instead of the handler, and the handler behind the plan does not check them again.
    func testTheGuardsAreDecidedOnceOnTheHead() throws {
        let foreign = makeRequest(.post, "/v1/keywords", headers: [("Host", "attacker.example")], body: write)
        let open = try api()
        XCTAssertEqual(open.plan(for: foreign).refusal.flatMap(errorCode), "host_not_allowed")
        XCTAssertEqual(open.plan(for: foreign).handler(foreign).status, .ok)

        let guarded = try api(token: "s3cret")
        let anonymous = makeRequest(.post, "/v1/keywords", body: write)
        let plan = guarded.plan(for: anonymous)
        XCTAssertEqual(plan.refusal?.status.code, 401)
        XCTAssertEqual(guarded.respond(to: anonymous).status.code, 401)
        XCTAssertEqual(plan.handler(anonymous).status, .ok)
        let signed = makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Bearer s3cret")], body: write)
        XCTAssertNil(guarded.plan(for: signed).refusal)
        XCTAssertEqual(guarded.respond(to: signed).status, .ok)
    }

    func testLoopbackNamesWithAnyPortMayWrite() throws {
        let api = try api()
        for host in ["localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:65535"] {
            let request = makeRequest(.post, "/v1/keywords", headers: [("Host", host)], body: #"{"add": []}"#)
            XCTAssertNil(api.admit(request), host)
            XCTAssertEqual(api.respond(to: request).status, .ok, host)
        }
    }

    func testReadsAnswerEveryHost() throws {
        let api = try api()
        for target in ["/v1/keywords", "/v1/suggest?name=にんじん", "/healthz"] {
            XCTAssertEqual(api.respond(to: makeRequest(.get, target, headers: [("Host", "attacker.example")])).status, .ok, target)
        }
    }

    func testAllowedHostNamesMayWrite() throws {
        let api = try api(hosts: ["Kwsuggest.Internal", "10.0.0.5", "[fd00::5]"])
        for host in ["kwsuggest.internal", "kwsuggest.internal:8080", "10.0.0.5:80", "[FD00::5]:8080", "localhost"] {
            let request = makeRequest(.post, "/v1/keywords", headers: [("Host", host)], body: #"{"add": []}"#)
            XCTAssertEqual(api.respond(to: request).status, .ok, host)
        }
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Host", "other.internal")],
                                                   body: #"{"add": []}"#)).status.code, 403)
    }

    func testWithATokenTheTokenDecides() throws {
        let api = try api(token: "s3cret")
        let request = makeRequest(.post, "/v1/keywords", headers: [("Host", "attacker.example"),
                                                                  ("Authorization", "Bearer s3cret")], body: write)
        XCTAssertEqual(api.respond(to: request).status, .ok)
        let without = makeRequest(.post, "/v1/keywords", headers: [("Host", "localhost")], body: write)
        XCTAssertEqual(api.respond(to: without).status.code, 401)
    }

    func testAllowedHostNamesAreChecked() {
        for name in ["", "a b", "kwsuggest.internal:8080", "[::1", "user@host", "a/b", "ホスト"] {
            XCTAssertThrowsError(try HostPolicy(allowedNames: [name]), name)
        }
        XCTAssertEqual(try HostPolicy(allowedNames: ["A.Example", "[FD00::5]"]).allowedNames, ["a.example", "[fd00::5]"])
    }
}
