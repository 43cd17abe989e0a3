import Foundation
@testable import HTTPCore
import XCTest

/// Answers every request at once, on the loop or on one of the worker lanes.
private final class LaneResponder: HTTPResponder {
    func plan(for request: HTTPRequest) -> RoutePlan {
        let handler: @Sendable (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: .ok, body: Array("ok".utf8)) }
        switch request.path {
        case "/shared": return RoutePlan(label: "/shared", isBlocking: true, handler: handler)
        case "/reserved": return RoutePlan(label: "/reserved", isBlocking: true, lane: .writes, handler: handler)
        default: return RoutePlan(label: "/inline", handler: handler)
        }
    }
}

/// The server names its metrics and threads after its configuration, not after any one application.
final class NamingTests: XCTestCase {
    func testMetricsAndThreadsAreNamedAfterTheConfiguredPrefixes() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 2
        configuration.lanes = [.general: 2, .writes: 1, .bulk: 2]
        configuration.accessLog = false
        configuration.metricsPrefix = "edge_web"
        configuration.threadNamePrefix = "edge"
        let server = try HTTPServer(configuration: configuration, responder: LaneResponder())
        try server.start()
        defer {
            server.shutdown()
            server.wait()
        }
        XCTAssertEqual(server.threadNames, ["edge-loop-0", "edge-loop-1", "edge-worker-0", "edge-worker-1", "edge-bulk-0",
                                           "edge-bulk-1", "edge-writes-0"])
        for path in ["/inline", "/shared", "/reserved"] { XCTAssertEqual(try get(port: server.port, path), "ok") }

        let text = server.metrics.render()
        XCTAssertEqual(server.metrics.prefix, "edge_web")
        XCTAssertTrue(text.contains(#"edge_web_requests_total{route="/inline",method="GET",status="200"} 1"#), text)
        XCTAssertTrue(text.contains("# TYPE edge_web_request_duration_seconds histogram"), text)
        XCTAssertTrue(text.contains("edge_web_request_queue_seconds_count 3"), text)
        XCTAssertTrue(text.contains("edge_web_requests_in_flight 0"), text)
        XCTAssertTrue(text.contains("# TYPE edge_web_connections_open gauge"), text)
        XCTAssertTrue(text.contains("edge_web_connections_rejected_total 0"), text)
        // Every line, comment or sample, names a metric with the prefix.
        for line in text.split(separator: "\n") {
            let name = line.hasPrefix("# ") ? line.split(separator: " ")[2] : line
            XCTAssertTrue(name.hasPrefix("edge_web_"), String(line))
        }
    }

    func testTheDefaultNamesAreTheServersOwn() throws {
        let configuration = ServerConfiguration()
        XCTAssertEqual(configuration.metricsPrefix, "http")
        XCTAssertEqual(configuration.threadNamePrefix, "http")
        let server = try HTTPServer(configuration: configuration, responder: LaneResponder())
        server.startWithoutListening()
        XCTAssertEqual(server.threadNames.first, "http-loop-0")
        XCTAssertEqual(server.threadNames.last, "http-worker-1")
        server.shutdown()
        server.wait()
        let text = ServerMetrics(configuration: configuration).render()
        XCTAssertTrue(text.contains("# TYPE http_requests_total counter"), text)
        XCTAssertTrue(text.contains("http_connections_open 0"), text)
    }

    func testAMetricPrefixIsAValidPrometheusName() {
        for valid in ["http", "kw_http", "a:b", "_x", "A9"] { XCTAssertTrue(ServerMetrics.isValidPrefix(valid), valid) }
        for invalid in ["", "9http", "my-app", "a b", "ö"] { XCTAssertFalse(ServerMetrics.isValidPrefix(invalid), invalid) }
    }

    private func get(port: Int, _ path: String) throws -> String {
        let fd = try LoopbackClient.send(port: port, "GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        defer { close(fd) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200"), let split = text.range(of: "\r\n\r\n") else {
            throw POSIXError(.EPROTO)
        }
        return String(text[split.upperBound...])
    }
}
