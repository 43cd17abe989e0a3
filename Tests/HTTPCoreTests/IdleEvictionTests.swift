import Foundation
@testable import HTTPCore
import XCTest

/// Answers 200 `ok` inline; `/slow` holds a worker until released.
private final class OKResponder: HTTPResponder {
    let release = DispatchSemaphore(value: 0)

    func plan(for request: HTTPRequest) -> RoutePlan {
        if request.path == "/slow" {
            return RoutePlan(label: "/slow", isBlocking: true) { [release] _ in
                release.wait()
                return HTTPResponse(status: .ok)
            }
        }
        return RoutePlan(label: "/ok") { _ in HTTPResponse(status: .ok, body: Array("ok".utf8)) }
    }
}

/// Sockets that never send a byte: they time out long before keep-alive, and a full server closes them to make
/// room for a client that has something to ask.
final class IdleEvictionTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func feed(_ connection: HTTPConnection, _ text: String, at now: UInt64) -> RequestParser.Outcome {
        Array(text.utf8).withUnsafeBytes { connection.receive($0, now: now) }
        return connection.parseNext(now: now)
    }

    func testSilentConnectionTimesOutAtTheFirstByteDeadline() {
        let timeouts = HTTPConnection.Timeouts(ServerConfiguration())
        let silent = HTTPConnection(fd: -1, id: 1, limits: HTTPLimits(), now: 0, interest: 0)
        XCTAssertEqual(silent.expiry(now: 5 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(silent.expiry(now: 5 * second + 1, timeouts: timeouts, draining: false), .close)
        // Once it has asked something it is a keep-alive connection: 60 s from its last activity.
        let used = HTTPConnection(fd: -1, id: 2, limits: HTTPLimits(), now: 0, interest: 0)
        guard case .request = feed(used, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", at: second) else {
            return XCTFail("no request")
        }
        used.idleSince = second
        XCTAssertEqual(used.expiry(now: 30 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(used.expiry(now: 61 * second + 1, timeouts: timeouts, draining: false), .close)
    }

    func testEvictionPrefersSilentThenOldestAndNeverTouchesBusyConnections() {
        let silentOld = HTTPConnection(fd: -1, id: 1, limits: HTTPLimits(), now: 1, interest: 0)
        let silentNew = HTTPConnection(fd: -1, id: 2, limits: HTTPLimits(), now: 5, interest: 0)
        let keptAlive = HTTPConnection(fd: -1, id: 3, limits: HTTPLimits(), now: 0, interest: 0)
        guard case .request = feed(keptAlive, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", at: 0) else { return XCTFail("no request") }
        let partial = HTTPConnection(fd: -1, id: 4, limits: HTTPLimits(), now: 0, interest: 0)
        XCTAssertEqual(feed(partial, "GET / HTTP/1.1\r\nHo", at: 0), .needMore)
        XCTAssertTrue(silentOld.evictsBefore(silentNew))
        XCTAssertFalse(silentNew.evictsBefore(silentOld))
        XCTAssertTrue(silentNew.evictsBefore(keptAlive), "a socket that never asked goes before a kept-alive one")
        XCTAssertTrue(keptAlive.evictsBefore(partial))
        XCTAssertNil(partial.evictionRank, "a request being received is never evicted")
        XCTAssertFalse(partial.evictsBefore(keptAlive))
    }

    private let responder = OKResponder()

    private func startServer(maxConnections: Int) throws -> HTTPServer {
        var configuration = ServerConfiguration()
        configuration.blockingWorkers = maxConnections
        configuration.port = 0
        configuration.eventLoops = 2
        configuration.maxConnections = maxConnections
        configuration.accessLog = false
        let server = try HTTPServer(configuration: configuration, responder: responder)
        _ = try server.start()
        return server
    }

    private func answer(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = recv(fd, &buffer, buffer.count, 0)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    func testFullServerEvictsASilentConnectionForANewClient() throws {
        let server = try startServer(maxConnections: 8)
        defer {
            server.shutdown()
            server.wait()
        }
        var silent: [Int32] = []
        defer { for fd in silent { close(fd) } }
        for _ in 0..<8 { silent.append(try LoopbackClient.send(port: server.port, "")) }
        let client = try LoopbackClient.send(port: server.port, "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        defer { close(client) }
        XCTAssertTrue(answer(client).hasPrefix("HTTP/1.1 200"), "a full table of silent sockets refused a real client")
        // The oldest silent socket on the client's loop was closed for it (end of stream, no answer).
        XCTAssertEqual(silent.filter { fd in
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }.count, 1)
        XCTAssertTrue(server.metrics.render().contains("http_connections_evicted_total 1"))
        XCTAssertTrue(server.metrics.render().contains("http_connections_rejected_total 0"))
    }

    func testFullServerWithoutIdleConnectionsStillRefuses() throws {
        let server = try startServer(maxConnections: 4)
        defer {
            for _ in 0..<4 { responder.release.signal() }
            server.shutdown()
            server.wait()
        }
        var busy: [Int32] = []
        defer { for fd in busy { close(fd) } }
        for _ in 0..<4 { busy.append(try LoopbackClient.send(port: server.port, "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")) }
        // Every connection waits for its answer (polled, not slept on), so the one past the limit is refused.
        let started = Date()
        while server.metrics.requestsInFlight < 4, Date().timeIntervalSince(started) < 10 { usleep(1000) }
        XCTAssertEqual(server.metrics.requestsInFlight, 4)
        let client = try LoopbackClient.send(port: server.port, "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        defer { close(client) }
        XCTAssertTrue(answer(client).hasPrefix("HTTP/1.1 503"))
    }
}
