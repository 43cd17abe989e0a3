import Foundation
@testable import HTTPCore
@testable import KeywordServer
import StrictJSON
import XCTest

/// A connection driven over a socketpair: the event loop and HTTP state machine without TCP.
final class SocketPairTests: XCTestCase {
    private func makeServer(_ change: (inout ServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        let configuration = makeConfiguration(change)
        let server = try HTTPServer(configuration: configuration, responder: makeAPI())
        server.startWithoutListening()
        return server
    }

    private func makePair(_ server: HTTPServer) -> RawClient {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        server.adopt(fds[0])
        return RawClient(fd: fds[1])
    }

    func testRequestAndResponseOverSocketPair() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-123\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, #"{"status":"ok"}"#)
        XCTAssertEqual(response.header("Content-Length"), "15")
        XCTAssertNotNil(response.header("Date"))
        XCTAssertEqual(response.header("X-Request-Id"), "abc-123")
    }

    func testBytesArrivingOneAtATime() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        let body = Array(#"{"name":"トマト"}"#.utf8)
        let head = "POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        for byte in Array(head.utf8) + body {
            client.send([byte])
        }
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200, response.body)
        XCTAssertEqual(suggestedKeywords(response.body).first, "トマト", response.body)
    }

    func testBodyCutInsideACharacterIsInvalidUTF8() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        let body = Array(#"{"name":"トマト"}"#.utf8).prefix(11)  // ends inside ト
        client.send("POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n")
        client.send(Array(body))
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.errorCode, "invalid_utf8")
    }

    func testInjectedRequestIDIsReplaced() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\"b<script>\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        let id = try XCTUnwrap(response.header("X-Request-Id"))
        XCTAssertFalse(id.contains("\""))
        XCTAssertFalse(id.isEmpty)
    }

    func testMalformedRequestGets400AndClose() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        client.send("GARBAGE\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(response.errorCode, "malformed_request")
        XCTAssertTrue(client.isClosed())
    }
}
