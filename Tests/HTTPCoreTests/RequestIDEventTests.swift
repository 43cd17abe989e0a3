import EventLog
import Foundation
@testable import HTTPCore
import XCTest

/// Answers with the request id the event log sees while the handler runs, inline or on a worker lane.
private final class RequestIDResponder: HTTPResponder {
    func plan(for request: HTTPRequest) -> RoutePlan {
        let handler: @Sendable (HTTPRequest) -> HTTPResponse = { _ in
            HTTPResponse(status: .ok, body: Array((EventLog.requestID ?? "none").utf8))
        }
        return request.path == "/blocking" ? RoutePlan(label: "/blocking", isBlocking: true, handler: handler)
            : RoutePlan(label: "/inline", handler: handler)
    }
}

/// Every event logged while a request is handled carries the id its response and access-log line carry.
final class RequestIDEventTests: XCTestCase {
    func testTheHandlerRunsWithTheRequestIDBoundForEvents() throws {
        let server = try HTTPServer.oneWorker(RequestIDResponder())
        defer {
            server.shutdown()
            server.wait()
        }
        for path in ["/inline", "/blocking"] {
            let fd = try LoopbackClient.send(port: server.port, "GET \(path) HTTP/1.1\r\nHost: a\r\nX-Request-Id: given-\(path.count)\r\nConnection: close\r\n\r\n")
            defer { close(fd) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer.prefix(count)
            }
            let text = String(decoding: received, as: UTF8.self)
            XCTAssertTrue(text.hasSuffix("\r\n\r\ngiven-\(path.count)"), text)
            XCTAssertTrue(text.contains("X-Request-Id: given-\(path.count)\r\n"), text)
        }
        XCTAssertNil(EventLog.requestID, "the id is bound only while a request is handled")
    }
}
