import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StrictJSON
import XCTest

/// A real server on loopback port 0, driven by a raw-socket client. Timeouts are configured short.
final class LiveServerTests: XCTestCase {
    private let suggestBody = #"{"name":"淡路島産 にんじん","k":2}"#

    private func post(_ path: String, _ body: String, extra: String = "") -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    func testKeepAliveServesManyRequestsOnOneConnection() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        for _ in 0..<20 {
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(response.status, 200)
            XCTAssertNil(response.header("Connection"))
        }
        client.send(post("/v1/suggest", suggestBody))
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(suggestedKeywords(response.body).first, "にんじん", response.body)
    }

    /// The HTTP layer is generic; the service gives it its names, which dashboards and alert rules rely on.
    func testMetricsAndThreadsCarryTheServiceNames() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
        client.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        let text = try XCTUnwrap(client.readResponse()).body
        XCTAssertTrue(text.contains(#"kwsuggest_http_requests_total{route="/healthz",method="GET",status="200"} 1"#), text)
        XCTAssertTrue(text.contains("# TYPE kwsuggest_http_request_duration_seconds histogram"), text)
        XCTAssertTrue(text.contains("# TYPE kwsuggest_http_request_queue_seconds histogram"), text)
        XCTAssertTrue(text.contains("kwsuggest_http_requests_in_flight 1"), text)
        XCTAssertTrue(text.contains("kwsuggest_http_connections_open 1"), text)
        XCTAssertTrue(text.contains("kwsuggest_http_connections_rejected_total 0"), text)
        XCTAssertFalse(text.contains("\nhttp_"), text)
        XCTAssertEqual(live.server.threadNames, ["kwsuggest-loop-0", "kwsuggest-loop-1", "kwsuggest-worker-0",
                                                 "kwsuggest-batches-0", "kwsuggest-batches-1", "kwsuggest-bulk-reads-0",
                                                 "kwsuggest-bulk-reads-1", "kwsuggest-feedback-0",
                                                 "kwsuggest-keyword-writes-0", "kwsuggest-queue-writes-0"])
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        // The batch runs on a worker thread; the requests after it must still be answered after it.
        let batch = #"{"names":["トマト","豚肉"],"k":1}"#
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n" + post("/v1/suggest/batch", batch)
                    + "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n" + post("/v1/suggest", suggestBody)
                    + "GET /readyz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let statuses = (0..<5).compactMap { _ in client.readResponse() }
        XCTAssertEqual(statuses.map(\.status), [200, 200, 404, 200, 200])
        XCTAssertEqual(batchKeywords(statuses[1].body), [["トマト"], ["豚肉"]], statuses[1].body)
        XCTAssertEqual(suggestedKeywords(statuses[3].body).first, "にんじん", statuses[3].body)
        XCTAssertTrue(statuses[4].body.contains("ready"))
        XCTAssertEqual(statuses[4].header("Connection"), "close")
        XCTAssertTrue(client.isClosed())
    }

    func testExpectContinue() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(suggestBody.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        var interim = [UInt8](repeating: 0, count: 25)
        XCTAssertEqual(recv(client.fd, &interim, 25, Int32(MSG_WAITALL)), 25)
        XCTAssertEqual(String(decoding: interim, as: UTF8.self), "HTTP/1.1 100 Continue\r\n\r\n")
        client.send(suggestBody)
        XCTAssertEqual(client.readResponse()?.status, 200)
    }

    func testHeadHasLengthButNoBody() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        // Read until both answers are in (the HEAD answer has a Content-Length but no body, so the generic
        // reader cannot frame it): bounded by the socket's receive timeout, not by a sleep.
        var buffer: [UInt8] = []
        var bytes = [UInt8](repeating: 0, count: 4096)
        while !buffer.contains(subsequence: Array(#"{"status":"ok"}"#.utf8)) {
            let count = recv(client.fd, &bytes, 4096, 0)
            guard count > 0 else { break }
            buffer += bytes[0..<count]
        }
        let head = try XCTUnwrap(ParsedResponse.take(from: &buffer, bodyless: true))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "15")
        XCTAssertEqual(head.body, "")
        let get = try XCTUnwrap(ParsedResponse.take(from: &buffer))
        XCTAssertEqual(get.body, #"{"status":"ok"}"#)
    }

    func testLoneLFClient() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\nHost: t\n\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
    }

    func testHTTP10ClosesByDefault() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.0\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(client.isClosed())
    }

    func testLimits() throws {
        let live = try LiveServer { $0.limits.maxBodyBytes = 1000 }
        defer { live.stop() }
        let cases: [(String, Int, String)] = [
            ("GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "a", count: 33_000) + "\r\n\r\n", 431, "headers_too_large"),
            ("GET /" + String(repeating: "a", count: 17_000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414, "uri_too_long"),
            (post("/v1/suggest", String(repeating: " ", count: 1001)), 413, "body_too_large"),
            ("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\r\n", 411, "length_required"),
            ("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "conflicting_framing"),
            (post("/v1/suggest", "{}", extra: "Content-Type: text/plain\r\n").replacingOccurrences(of: "Content-Type: application/json\r\n", with: ""), 415, "unsupported_media_type"),
            ("GET / HTTP/1.1\r\nHost: t\r\n" + (0..<101).map { "X-\($0): 1\r\n" }.joined() + "\r\n", 431, "too_many_headers"),
        ]
        for (text, status, code) in cases {
            let client = try live.client()
            client.send(text)
            let response = try XCTUnwrap(client.readResponse(), "\(status)")
            XCTAssertEqual(response.status, status, code)
            XCTAssertEqual(response.errorCode, code)
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        }
        // The server is still up.
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
    }

    func testHeaderTimeoutIs408AndClose() throws {
        let live = try LiveServer { $0.headerTimeout = 0.3 }
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\r\nHo")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 408)
        XCTAssertEqual(response.errorCode, "request_timeout")  // only the 0.3 s header timer answers 408 here
        XCTAssertTrue(client.isClosed())
    }

    func testBodyIdleTimeoutIs408() throws {
        let live = try LiveServer { $0.bodyIdleTimeout = 0.3 }
        defer { live.stop() }
        let client = try live.client()
        client.send(String(post("/v1/suggest", suggestBody).dropLast(5)))
        XCTAssertEqual(client.readResponse()?.status, 408)
    }

    func testIdleKeepAliveConnectionIsClosed() throws {
        let live = try LiveServer { $0.keepAliveTimeout = 0.3 }
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
        XCTAssertTrue(client.isClosed())
    }

    func testSlowClientDoesNotHoldUpOthers() throws {
        let live = try LiveServer {
            $0.eventLoops = 1
            $0.headerTimeout = 600
        }
        defer { live.stop() }
        let slow = try (0..<20).map { _ in try live.client() }
        for client in slow { client.send("GET /healthz HTTP/1.1\r\nHost") }
        let normal = try live.client()
        let started = Date()
        normal.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(normal.readResponse()?.status, 200)
        // Not a speed check: a loop blocked by the slow clients would answer only after their 600 s header
        // timeout, so any answer well before that shows they did not block it, however loaded the machine.
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
    }

    /// Past `maxConnections` an idle keep-alive connection is closed for the new client (the refusal when none
    /// is idle, 503 `server_full`, is `IdleEvictionTests.testFullServerWithoutIdleConnectionsStillRefuses`).
    func testMaxConnectionsEvictsAnIdleConnection() throws {
        let live = try LiveServer { $0.maxConnections = 2 }
        defer { live.stop() }
        let first = try live.client(), second = try live.client()
        first.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(first.readResponse()?.status, 200)
        second.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(second.readResponse()?.status, 200)
        let third = try live.client()
        third.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(third.readResponse()).status, 200)
        XCTAssertTrue(first.isClosed() != second.isClosed(), "exactly one idle connection makes room")
    }

    func testCORSPreflightLive() throws {
        let live = try LiveServer(cors: ["http://admin.test"])
        defer { live.stop() }
        let client = try live.client()
        client.send("OPTIONS /v1/suggest HTTP/1.1\r\nHost: t\r\nOrigin: http://admin.test\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "http://admin.test")
        XCTAssertNotNil(response.header("Access-Control-Allow-Methods"))
        XCTAssertNil(response.header("Content-Length"))  // RFC 9110 §8.6: none on 204
        client.send(post("/v1/suggest", suggestBody, extra: "Origin: http://admin.test\r\n"))
        XCTAssertEqual(client.readResponse()?.header("Access-Control-Allow-Origin"), "http://admin.test")
    }

    func testGracefulShutdownAnswersInFlightRequest() throws {
        let engine = FakeEngine(gated: true)
        let live = try LiveServer(engine: engine) { $0.drainTimeout = 600 }
        let busy = try live.client()
        let idle = try live.client()
        idle.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(idle.readResponse()?.status, 200)
        busy.send(post("/v1/suggest", suggestBody))
        XCTAssertEqual(engine.entered.wait(timeout: .now() + 10), .success)  // running inside the engine now
        let stopped = Date()
        live.server.shutdown()
        engine.gate?.signal()
        let response = try XCTUnwrap(busy.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(busy.isClosed())
        XCTAssertTrue(idle.isClosed())
        live.server.wait()
        // Stopped when the in-flight request finished, not at the 600 s drain deadline.
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 60)
        XCTAssertThrowsError(try live.client())  // no longer listening
    }

    func testRequestsSentJustBeforeShutdownAreAnswered() throws {
        let live = try LiveServer()
        let clients = try (0..<8).map { _ in try live.client() }
        for client in clients {
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(client.readResponse()?.status, 200)
        }
        // Now idle keep-alive connections; each sends one more request as the drain starts.
        for client in clients { client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n") }
        live.server.shutdown()
        for client in clients {
            XCTAssertEqual(client.readResponse()?.status, 200)
            XCTAssertTrue(client.isClosed())
        }
        live.server.wait()
    }

    func testGracefulShutdownWaitsForBlockingHandler() throws {
        let engine = FakeEngine(gated: true)
        let live = try LiveServer(engine: engine)
        let client = try live.client()
        client.send(post("/v1/suggest/batch", #"{"names":["a","b"]}"#))
        XCTAssertEqual(engine.entered.wait(timeout: .now() + 10), .success)  // the first name is being scored
        live.server.shutdown()
        engine.gate?.signal()
        engine.gate?.signal()  // and the second
        XCTAssertEqual(client.readResponse()?.status, 200)
        live.server.wait()
    }

    func testIPv6Loopback() throws {
        guard let live = try? LiveServer({ $0.host = "::1" }) else {
            throw XCTSkip("IPv6 loopback is not available on this machine")
        }
        defer { live.stop() }
        XCTAssertTrue(live.server.boundAddresses.first?.hasPrefix("http://[::1]:") ?? false)
        let client = try RawClient(port: live.port, host: "::1")
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
    }

    func testAccessLogLinesAreEscapedJSON() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let live = try LiveServer {
            $0.accessLog = true
            $0.accessLogFD = fds[1]
        }
        let client = try live.client()
        client.send("GET /a%22b%5C%0A?q=1 HTTP/1.1\r\nHost: t\r\nX-Request-Id: req-1\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 404)
        live.stop()
        close(fds[1])
        let data = FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(object["method"] as? String, "GET")
        XCTAssertEqual(object["path"] as? String, "/a%22b%5C%0A")
        XCTAssertEqual(object["status"] as? Int, 404)
        XCTAssertEqual(object["request_id"] as? String, "req-1")
        XCTAssertNotNil(object["duration_ms"] as? Double)
        XCTAssertNotNil(object["time"] as? String)
    }

    func testVanishingClientsLeakNoDescriptors() throws {
        let live = try LiveServer()
        defer { live.stop() }
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        // Warm up (threads, lazily opened files).
        do {
            let client = try live.client()
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = client.readResponse()
        }
        // The warm-up connection is closed once the server counts none.
        for _ in 0..<200 where live.server.metrics.connections != 0 { usleep(50_000) }
        let before = openDescriptors()
        for index in 0..<50 {
            let client = try live.client()
            switch index % 3 {
            case 0: client.send("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{\"na")  // mid-body
            case 1: client.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", count: 50))  // leaves mid-response
            default: break  // connects and leaves
            }
        }
        var after = openDescriptors()
        // Up to 10 s for the loops to notice every close (slow under ThreadSanitizer or a saturated machine).
        for _ in 0..<200 where after != before || live.server.metrics.connections != 0 {
            usleep(50_000)
            after = openDescriptors()
        }
        XCTAssertEqual(after, before)
        XCTAssertEqual(live.server.metrics.connections, 0)
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
