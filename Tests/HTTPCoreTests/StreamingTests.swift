import Foundation
@testable import HTTPCore
import Synchronization
import XCTest

/// Streamed responses and per-route body limits, without sockets: the writer's framing, the parser's limit, and
/// the connection's deadline while a body streams.
final class StreamingTests: XCTestCase {
    private func streamed() -> HTTPResponse {
        var response = HTTPResponse(status: .ok)
        response.stream = ResponseStream { .end }
        return response
    }

    func testStreamedHeadIsChunkedWithoutContentLength() {
        var writer = ResponseWriter()
        var output: [UInt8] = []
        writer.write(streamed(), omitBody: false, close: false, into: &output)
        let head = String(decoding: output, as: UTF8.self)
        XCTAssertTrue(head.contains("\r\nTransfer-Encoding: chunked\r\n"), head)
        XCTAssertFalse(head.lowercased().contains("content-length"), head)
        XCTAssertTrue(head.hasSuffix("\r\n\r\n"))
        // HTTP/1.0: no chunked coding; the body ends with the connection.
        output = []
        writer.write(streamed(), omitBody: false, close: true, chunked: false, into: &output)
        let old = String(decoding: output, as: UTF8.self)
        XCTAssertFalse(old.contains("Transfer-Encoding"), old)
        XCTAssertFalse(old.lowercased().contains("content-length"), old)
        XCTAssertTrue(old.contains("Connection: close"), old)
    }

    func testPiecesAreFramedAsChunks() {
        var output: [UInt8] = []
        ResponseWriter.appendPiece(Array("hello".utf8), chunked: true, to: &output)
        ResponseWriter.appendPiece([], chunked: true, to: &output)  // an empty piece must not end the body
        ResponseWriter.appendPiece(Array(repeating: 0x61, count: 26), chunked: true, to: &output)
        ResponseWriter.appendLastChunk(to: &output)
        XCTAssertEqual(String(decoding: output, as: UTF8.self),
                       "5\r\nhello\r\n1a\r\n" + String(repeating: "a", count: 26) + "\r\n0\r\n\r\n")
        var raw: [UInt8] = []
        ResponseWriter.appendPiece(Array("hello".utf8), chunked: false, to: &raw)
        XCTAssertEqual(raw, Array("hello".utf8))
    }

    func testCollectPullsToTheEndOrReportsFailure() {
        let count = PullCounter()
        let stream = ResponseStream {
            let n = count.next()
            return n <= 3 ? .bytes(Array("\(n)".utf8)) : .end
        }
        XCTAssertEqual(stream.collect(), Array("123".utf8))
        XCTAssertNil(ResponseStream { .failed("disk") }.collect())
    }

    func testRouteLimitRefusesADeclaredLengthOnTheHead() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1000
        var parser = RequestParser(limits: limits)
        let head = Array("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 600\r\n\r\n".utf8)
        XCTAssertEqual(parser.parse(head, from: 0), .needMore)
        XCTAssertEqual(parser.declaredBodyLength, 600)
        XCTAssertNil(parser.limitBody(to: 600))
        let error = parser.limitBody(to: 599)
        XCTAssertEqual(error?.status.code, 413)
        XCTAssertEqual(error?.message, "the request body exceeds 599 bytes")
        // A route's limit never raises the server's ceiling, and it ends with the request.
        XCTAssertNil(parser.limitBody(to: 5000))
        XCTAssertEqual(parser.bodyLimit, 1000)
        parser.reset()
        XCTAssertEqual(parser.bodyLimit, 1000)
    }

    func testRouteLimitStopsAChunkedBodyAsItGrows() {
        var parser = RequestParser(limits: HTTPLimits())
        var bytes = Array("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        XCTAssertEqual(parser.parse(bytes, from: 0), .needMore)
        XCTAssertNil(parser.declaredBodyLength)
        XCTAssertNil(parser.limitBody(to: 500))
        bytes += Array("12c\r\n".utf8) + Array(repeating: 0x61, count: 300) + Array("\r\n".utf8)
        XCTAssertEqual(parser.parse(bytes, from: 0), .needMore)
        bytes += Array("12c\r\n".utf8)
        guard case .failure(let error) = parser.parse(bytes, from: 0) else { return XCTFail("a body past the limit was taken") }
        XCTAssertEqual(error.status.code, 413)
        XCTAssertEqual(error.message, "the request body exceeds 500 bytes")
    }

    func testStreamingConnectionClosesOnlyForAReaderThatStopped() {
        let second: UInt64 = 1_000_000_000
        let configuration = ServerConfiguration()
        let timeouts = HTTPConnection.Timeouts(configuration)
        let connection = HTTPConnection(fd: -1, id: 1, limits: configuration.limits, now: 0, interest: 0)
        connection.state = .streaming
        // Waiting for the producer (nothing unsent) never times out.
        XCTAssertEqual(connection.expiry(now: 300 * second, timeouts: timeouts, draining: false), .none)
        connection.outbound = Array(repeating: 0, count: 10)
        connection.lastWriteAt = 300 * second
        XCTAssertEqual(connection.expiry(now: 320 * second, timeouts: timeouts, draining: false), .none)
        XCTAssertEqual(connection.expiry(now: 331 * second, timeouts: timeouts, draining: false), .close)
        XCTAssertFalse(connection.isIdle)
    }
}

/// A counter a `@Sendable` producer can step.
final class PullCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    var current: Int { value.load(ordering: .relaxed) }
}
