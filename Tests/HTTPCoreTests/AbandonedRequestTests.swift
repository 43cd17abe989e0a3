import Foundation
@testable import HTTPCore
import Synchronization
import XCTest

/// A responder whose `/slow` holds its worker until released and whose `/count` counts the times it ran.
private final class CountingResponder: HTTPResponder, Sendable {
    let release = DispatchSemaphore(value: 0)
    let runs = Atomic<Int>(0)

    func plan(for request: HTTPRequest) -> RoutePlan {
        if request.path == "/slow" {
            return RoutePlan(label: "/slow", isBlocking: true) { [release] _ in
                release.wait()
                return HTTPResponse(status: .ok)
            }
        }
        return RoutePlan(label: "/count", isBlocking: true) { [self] _ in
            runs.add(1, ordering: .relaxed)
            return HTTPResponse(status: .noContent)
        }
    }
}

/// A request queued for a worker whose client closes the connection before a worker takes it is not run.
final class AbandonedRequestTests: XCTestCase {
    func testQueuedRequestOfAClientThatLeftIsNotRun() throws {
        let responder = CountingResponder()
        let server = try HTTPServer.oneWorker(responder)
        defer {
            responder.release.signal()
            server.shutdown()
            server.wait()
        }
        // The one shared worker is held; the next request waits in its queue.
        let slow = try LoopbackClient.send(port: server.port, "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
        defer { close(slow) }
        let leaving = try LoopbackClient.send(port: server.port, "POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
        XCTAssertTrue(wait { server.metrics.requestsInFlight == 2 }, "both requests reached the server")
        close(leaving)
        // The loop sees the client go (polled, not slept on) while its request still waits for the worker.
        XCTAssertTrue(wait { server.metrics.connections == 1 }, "the server did not notice the client leave")
        responder.release.signal()
        XCTAssertTrue(answer(slow).hasPrefix("HTTP/1.1 200"))
        // One worker, first in first out: once a later request is answered, the abandoned one was taken.
        let staying = try LoopbackClient.send(port: server.port, "POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
        defer { close(staying) }
        XCTAssertTrue(answer(staying).hasPrefix("HTTP/1.1 204"))
        XCTAssertEqual(responder.runs.load(ordering: .relaxed), 1, "the request of the client that left ran")
        XCTAssertEqual(server.metrics.requestsAbandoned, 1)
        XCTAssertTrue(server.metrics.render().contains("http_requests_abandoned_total 1"))
        XCTAssertTrue(wait { server.metrics.requestsInFlight == 0 }, "the abandoned request stayed counted in flight")
    }

    /// Polls `condition` every millisecond for up to 10 s.
    private func wait(_ condition: () -> Bool) -> Bool {
        let started = Date()
        while !condition() {
            if Date().timeIntervalSince(started) > 10 { return false }
            usleep(1000)
        }
        return true
    }

    private func answer(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, 0)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }
}
