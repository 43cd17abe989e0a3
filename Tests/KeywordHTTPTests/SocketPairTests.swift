import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
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

    /// A chunked body whose chunks arrive in separate reads, the first ending inside a UTF-8 character: the
    /// server reads the first part, has nothing to answer yet, and answers once the test sends the rest.
    func testChunkedRequestBody() throws {
        let server = try makeServer()
        defer { server.shutdown(); server.wait() }
        let client = makePair(server)
        let body = Array(#"{"name":"トマト"}"#.utf8)
        client.send(Array("POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".utf8)
                    + Array("Transfer-Encoding: chunked\r\n\r\na\r\n".utf8) + Array(body[0..<10]) + Array("\r\n".utf8))
        XCTAssertTrue(waitUntilPeerHasRead(client), "the server never read the first chunk")
        var byte: UInt8 = 0
        XCTAssertEqual(recv(client.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)), -1, "answered before the body was complete")
        XCTAssertEqual(errno, EAGAIN)
        client.send(Array(String(body.count - 10, radix: 16).utf8) + Array("\r\n".utf8) + Array(body[10...])
                    + Array("\r\n0\r\n\r\n".utf8))
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200, response.body)
        XCTAssertEqual(suggestedKeywords(response.body).first, "トマト", response.body)
    }

    /// Waits until the server has read every byte sent so far on `client`'s socket pair: a Unix socket's
    /// output queue (TIOCOUTQ, SIOCOUTQ) holds sent bytes until the reader takes them. Polls an event rather
    /// than guessing a time; false after 5 s.
    private func waitUntilPeerHasRead(_ client: RawClient) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var unread: Int32 = 0
            guard ioctl(client.fd, UInt(TIOCOUTQ), &unread) == 0 else { return false }
            if unread == 0 { return true }
            usleep(1_000)
        }
        return false
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
