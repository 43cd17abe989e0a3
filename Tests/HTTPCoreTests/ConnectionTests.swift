import Foundation
@testable import HTTPCore
import XCTest

/// The per-connection protocol with a hand-driven clock: bytes in, deadlines out, no sockets and no sleeps.
final class ConnectionTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func makeConnection(_ change: (inout ServerConfiguration) -> Void = { _ in })
        -> (HTTPConnection, HTTPConnection.Timeouts) {
        var configuration = ServerConfiguration()
        change(&configuration)
        let connection = HTTPConnection(fd: -1, id: 1, limits: configuration.limits, now: 0, interest: 0)
        return (connection, HTTPConnection.Timeouts(configuration))
    }

    private func feed(_ connection: HTTPConnection, _ text: String, at now: UInt64) -> RequestParser.Outcome {
        Array(text.utf8).withUnsafeBytes { connection.receive($0, now: now) }
        return connection.parseNext(now: now)
    }

    func testTrickledBodyTimesOutAtTheBodyDeadline() {
        let (connection, timeouts) = makeConnection()
        XCTAssertEqual(feed(connection, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n", at: 0), .needMore)
        // One byte every 3 s never trips the 10 s idle timer; the 30 s body deadline ends it.
        var now: UInt64 = 0
        while now < 30 * second {
            now += 3 * second
            XCTAssertEqual(connection.expiry(now: now, timeouts: timeouts, draining: false), .none, "at \(now / second) s")
            XCTAssertEqual(feed(connection, "x", at: now), .needMore)
        }
        XCTAssertEqual(connection.expiry(now: now + 1, timeouts: timeouts, draining: false),
                       .timeOut("the request body took too long"))
    }

    func testBodyDeadlineScalesWithTheDeclaredLength() {
        let (connection, timeouts) = makeConnection { $0.limits.maxBodyBytes = 16 * 1024 * 1024 }
        // 12,667,719 bytes at 64 KiB/s take 193.3 s: one byte every 9 s keeps it alive until then, not 30 s.
        XCTAssertEqual(feed(connection, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 12667719\r\n\r\n", at: 0), .needMore)
        var now: UInt64 = 0
        while now < 189 * second {
            now += 9 * second
            XCTAssertEqual(connection.expiry(now: now, timeouts: timeouts, draining: false), .none, "at \(now / second) s")
            XCTAssertEqual(feed(connection, "x", at: now), .needMore)
        }
        XCTAssertEqual(connection.expiry(now: 193 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 194 * second, timeouts: timeouts, draining: false),
                       .timeOut("the request body took too long"))
        // Rate 0 keeps the plain deadline.
        let (plain, fixed) = makeConnection {
            $0.limits.maxBodyBytes = 16 * 1024 * 1024
            $0.minimumBodyRate = 0
        }
        XCTAssertEqual(feed(plain, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 12667719\r\n\r\n", at: 0), .needMore)
        XCTAssertEqual(feed(plain, "x", at: 25 * second), .needMore)
        XCTAssertEqual(plain.expiry(now: 31 * second, timeouts: fixed, draining: false),
                       .timeOut("the request body took too long"))
    }

    func testChunkedBodyDeadlineScalesWithWhatArrived() {
        let (connection, timeouts) = makeConnection { $0.limits.maxBodyBytes = 8 * 1024 * 1024 }
        XCTAssertEqual(feed(connection, "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", at: 0), .needMore)
        // 4 MiB arrived by 29 s: 64 s at the minimum rate.
        let chunk = String(format: "%x", 4 * 1024 * 1024) + "\r\n" + String(repeating: "y", count: 4 * 1024 * 1024) + "\r\n"
        XCTAssertEqual(feed(connection, chunk, at: 29 * second), .needMore)
        XCTAssertEqual(connection.expiry(now: 38 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(feed(connection, "1\r\n", at: 38 * second), .needMore)
        XCTAssertEqual(connection.expiry(now: 47 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(feed(connection, "z", at: 47 * second), .needMore)
        XCTAssertEqual(feed(connection, "\r\n", at: 56 * second), .needMore)
        XCTAssertEqual(connection.expiry(now: 65 * second, timeouts: timeouts, draining: false),
                       .timeOut("the request body took too long"))
    }

    func testStalledBodyTimesOutAtTheIdleDeadline() {
        let (connection, timeouts) = makeConnection()
        XCTAssertEqual(feed(connection, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab", at: 0), .needMore)
        XCTAssertEqual(connection.expiry(now: 10 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 10 * second + 1, timeouts: timeouts, draining: false),
                       .timeOut("the request body stalled"))
    }

    func testBodyClockRestartsForEachRequest() {
        let (connection, timeouts) = makeConnection()
        let head = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n"
        XCTAssertEqual(feed(connection, head + "a", at: 0), .needMore)
        guard case .request = feed(connection, "b", at: 29 * second) else { return XCTFail("no request") }
        XCTAssertNil(connection.bodyStartedAt)
        XCTAssertEqual(feed(connection, head.replacingOccurrences(of: ": 2", with: ": 9") + "a", at: 40 * second), .needMore)
        for at in [48, 56, 64] as [UInt64] { XCTAssertEqual(feed(connection, "x", at: at * second), .needMore) }
        XCTAssertEqual(connection.expiry(now: 69 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 71 * second, timeouts: timeouts, draining: false),
                       .timeOut("the request body took too long"))
    }

    func testSlowHeadersAndIdleConnections() {
        let (connection, timeouts) = makeConnection()
        // A new connection gets `firstByteTimeout`; after its first request, `keepAliveTimeout` between requests.
        XCTAssertEqual(connection.expiry(now: 5 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 5 * second + 1, timeouts: timeouts, draining: false), .close)
        guard case .request = feed(connection, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", at: 0) else { return XCTFail("no request") }
        XCTAssertEqual(connection.expiry(now: 60 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 60 * second + 1, timeouts: timeouts, draining: false), .close)
        let (slow, _) = makeConnection()
        XCTAssertEqual(feed(slow, "GET / HTTP/1.1\r\n", at: second), .needMore)
        XCTAssertEqual(slow.expiry(now: 11 * second + 1, timeouts: timeouts, draining: false),
                       .timeOut("the request headers took too long"))
    }
}
