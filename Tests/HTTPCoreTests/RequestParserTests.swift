import Foundation
@testable import HTTPCore
import MutationTesting
import XCTest

/// Literal bytes into the parser, well-formed and malformed.
final class RequestParserTests: XCTestCase {
    private func makeParser(_ change: (inout HTTPLimits) -> Void = { _ in }) -> RequestParser {
        var limits = HTTPLimits()
        change(&limits)
        return RequestParser(limits: limits)
    }

    /// Parses one complete message; fails the test when it is not a request.
    private func parse(_ text: String, _ change: (inout HTTPLimits) -> Void = { _ in },
                       file: StaticString = #filePath, line: UInt = #line) -> HTTPRequest? {
        var parser = makeParser(change)
        if case .request(let request, let consumed) = parser.parse(Array(text.utf8), from: 0) {
            XCTAssertEqual(consumed, text.utf8.count, "consumed", file: file, line: line)
            return request
        }
        return nil
    }

    private func failure(_ text: String, _ change: (inout HTTPLimits) -> Void = { _ in }) -> HTTPParseError? {
        var parser = makeParser(change)
        if case .failure(let error) = parser.parse(Array(text.utf8), from: 0) { return error }
        return nil
    }

    func testSimpleGet() throws {
        let request = try XCTUnwrap(parse("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"))
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.path, "/healthz")
        XCTAssertNil(request.query)
        XCTAssertEqual(request.minorVersion, 1)
        XCTAssertEqual(request.headers["host"], "a")
        XCTAssertTrue(request.wantsKeepAlive)
    }

    func testQueryIsSplitFromPath() throws {
        let request = try XCTUnwrap(parse("GET /v1/suggest?name=%E3%81%82&k=3 HTTP/1.1\r\nHost: a\r\n\r\n"))
        XCTAssertEqual(request.path, "/v1/suggest")
        XCTAssertEqual(request.query, "name=%E3%81%82&k=3")
    }

    func testAbsoluteFormTarget() throws {
        let request = try XCTUnwrap(parse("GET http://example.com/healthz?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"))
        XCTAssertEqual(request.path, "/healthz")
        XCTAssertEqual(request.query, "x=1")
    }

    func testContentLengthBody() throws {
        let request = try XCTUnwrap(parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"))
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "hello")
    }

    func testLoneLFLineEndingsAreAccepted() throws {
        // RFC 9112 §2.2 allows recognising a bare LF as a line terminator.
        let request = try XCTUnwrap(parse("POST /x HTTP/1.1\nHost: a\nContent-Length: 2\n\nok"))
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "ok")
    }

    func testLeadingEmptyLinesAreIgnored() throws {
        XCTAssertNotNil(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"))
    }

    func testHTTP10DefaultsToClose() throws {
        let request = try XCTUnwrap(parse("GET / HTTP/1.0\r\n\r\n"))
        XCTAssertFalse(request.wantsKeepAlive)
        let keepAlive = try XCTUnwrap(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
        XCTAssertTrue(keepAlive.wantsKeepAlive)
    }

    func testConnectionCloseIsHonoured() throws {
        let request = try XCTUnwrap(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive, close\r\n\r\n"))
        XCTAssertFalse(request.wantsKeepAlive)
    }

    func testChunkedBodyWithExtensionsAndTrailers() throws {
        let text = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let request = try XCTUnwrap(parse(text))
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "hello world")
    }

    func testChunkedBodyArrivingOneByteAtATime() throws {
        let text = Array("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\nGET".utf8)
        var parser = makeParser()
        var buffer: [UInt8] = []
        var result: RequestParser.Outcome = .needMore
        for byte in text {
            buffer.append(byte)
            result = parser.parse(buffer, from: 0)
            if case .request = result { break }
            XCTAssertEqual(result, .needMore)
        }
        guard case .request(let request, let consumed) = result else { return XCTFail("no request: \(result)") }
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "0123456789")
        XCTAssertEqual(consumed, text.count - 3)
    }

    func testPipelinedRequestsParseInOrder() throws {
        let text = Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nxGET /c HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        var parser = makeParser()
        var start = 0
        var paths: [String] = []
        while case .request(let request, let consumed) = parser.parse(text, from: start) {
            paths.append(request.path)
            start += consumed
        }
        XCTAssertEqual(paths, ["/a", "/b", "/c"])
        XCTAssertEqual(start, text.count)
    }

    func testIncompleteHeadNeedsMore() {
        var parser = makeParser()
        XCTAssertEqual(parser.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8), from: 0), .needMore)
        XCTAssertTrue(parser.hasPartialRequest)
    }

    func testExpectContinueIsFlagged() {
        var parser = makeParser()
        let head = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        XCTAssertEqual(parser.parse(Array(head.utf8), from: 0), .needMore)
        XCTAssertTrue(parser.wantsContinue)
        XCTAssertTrue(parser.isReadingBody)
        parser.continueSent()
        guard case .request(let request, _) = parser.parse(Array((head + "body").utf8), from: 0) else { return XCTFail() }
        XCTAssertEqual(request.body, Array("body".utf8))
    }

    // MARK: Malformed

    func testBothContentLengthAndChunkedIsRejected() {
        let error = failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        XCTAssertEqual(error?.status.code, 400)
        XCTAssertEqual(error?.code, .conflictingFraming)
    }

    func testNegativeAndGarbageContentLength() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n")?.code, .invalidContentLength)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n")?.code, .invalidContentLength)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n")?.code,
                       .invalidContentLength)
        // Identical repeated values are one value (RFC 9112 §6.3).
        XCTAssertNotNil(parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\nx"))
    }

    func testHugeContentLengthIs413() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n")?.status.code, 413)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n") { $0.maxBodyBytes = 10 }?.status.code, 413)
    }

    func testHugeChunkSizeIs413() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n")?.status.code, 413)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n")?.status.code, 413)
    }

    func testChunkedTotalOverLimitIs413() {
        let text = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nabcdef\r\n0\r\n\r\n"
        XCTAssertEqual(failure(text) { $0.maxBodyBytes = 10 }?.status.code, 413)
    }

    func testLongChunkExtensionIs400() {
        let head = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        let long = head + "1;" + String(repeating: "e", count: 1000) + "\r\nx\r\n0\r\n\r\n"
        XCTAssertEqual(failure(long)?.code, .invalidChunk)
        // Refused while the line is still arriving, before its end is buffered.
        XCTAssertEqual(failure(head + "1;" + String(repeating: "e", count: 400))?.code, .invalidChunk)
        XCTAssertNotNil(parse(head + "1;" + String(repeating: "e", count: 200) + "\r\nx\r\n0\r\n\r\n"))
    }

    func testChunkFramingOverheadIsBounded() {
        // Many small chunks with extensions: 400 KB of raw bytes for 2 KB of body (the reproduction's shape).
        var text = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "1;" + String(repeating: "e", count: 200) + "\r\n \r\n"
        for _ in 0..<2000 { text += chunk }
        var parser = makeParser()
        guard case .failure(let error) = parser.parse(Array(text.utf8), from: 0) else { return XCTFail("accepted") }
        XCTAssertEqual(error.status.code, 413)
        // Plain 1-byte chunks for a 10 KB body stay accepted.
        var plain = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<10_000 { plain += "1\r\nx\r\n" }
        XCTAssertEqual(parse(plain + "0\r\n\r\n")?.body.count, 10_000)
    }

    func testAmbiguousHeadsAre400() {
        let chunked = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nAuthorization: Bearer y\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure(chunked + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: a b\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost:\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: a:80x\r\n\r\n")?.status.code, 400)
        for host in ["example.com", "example.com:8080", "127.0.0.1:1", "[::1]:8080", "[fe80::1]", "xn--r8jz45g.jp"] {
            XCTAssertNotNil(parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n"), host)
        }
    }

    func testControlBytesInChunkExtensionsAndBadTrailersAre400() {
        let head = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        XCTAssertEqual(failure(head + "1;a\rb\r\nx\r\n0\r\n\r\n")?.code, .invalidChunk)
        XCTAssertEqual(failure(head + "1;a\u{0}b\r\nx\r\n0\r\n\r\n")?.code, .invalidChunk)
        XCTAssertNotNil(parse(head + "1;a=\"b c\"\r\nx\r\n0\r\n\r\n"))
        XCTAssertEqual(failure(head + "0\r\nno colon here\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure(head + "0\r\nX-Bad: a\u{0}b\r\n\r\n")?.status.code, 400)
        XCTAssertNotNil(parse(head + "0\r\nX-Fine: yes\r\n\r\n"))
    }

    func testBadChunkFraming() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")?.code, .invalidChunk)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")?.code, .invalidChunk)
    }

    func testUnknownTransferCodingIs501AndNonFinalChunkedIs400() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")?.status.code, 501)
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n")?.status.code, 400)
    }

    func testPostWithoutLengthIs411() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\n\r\n")?.status.code, 411)
    }

    func testMissingOrDuplicateHostIs400() {
        XCTAssertEqual(failure("GET / HTTP/1.1\r\n\r\n")?.status.code, 400)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")?.status.code, 400)
    }

    func testMalformedRequestLines() {
        for text in ["GET /\r\n\r\n", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1 x\r\nHost: a\r\n\r\n",
                     "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTQ/1.1\r\nHost: a\r\n\r\n", "GET x HTTP/1.1\r\nHost: a\r\n\r\n",
                     "GET / HTTP/1.1\rHost: a\r\n\r\n", "\u{0}GET / HTTP/1.1\r\nHost: a\r\n\r\n"] {
            XCTAssertEqual(failure(text)?.status.code, 400, text.debugDescription)
        }
        XCTAssertEqual(failure("GET / HTTP/2.0\r\nHost: a\r\n\r\n")?.status.code, 505)
    }

    func testMalformedHeaders() {
        for text in ["GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n",
                     "GET / HTTP/1.1\r\nHost: a\r\nName : x\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n",
                     "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n"] {
            XCTAssertEqual(failure(text)?.status.code, 400, text.debugDescription)
        }
    }

    func testHeaderSectionTooLargeIs431() {
        let big = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 33_000) + "\r\n\r\n"
        XCTAssertEqual(failure(big)?.status.code, 431)
        // Also before the end of the section arrives.
        let partial = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 33_000)
        XCTAssertEqual(failure(partial)?.status.code, 431)
    }

    func testTooManyHeadersIs431() {
        let headers = (0..<101).map { "X-\($0): y\r\n" }.joined()
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: a\r\n" + headers + "\r\n")?.code, .tooManyHeaders)
    }

    func testLongURIIs414() {
        let target = "/" + String(repeating: "a", count: 17_000)
        XCTAssertEqual(failure("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n")?.status.code, 414)
        XCTAssertEqual(failure("GET \(target)")?.status.code, 414)
    }

    func testUnsupportedExpectationIs417() {
        XCTAssertEqual(failure("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nExpect: magic\r\n\r\nx")?.status.code, 417)
    }

    func testTransferEncodingInHTTP10IsRejected() {
        XCTAssertEqual(failure("POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.status.code, 400)
    }

    /// Found by the libFuzzer target (fuzz/): the status for an overlong request line must not depend on how
    /// the bytes were split. Before the fix, one piece gave 400 (bad target) but pieces gave 414, and a line
    /// ending exactly at the limit gave 414 when a packet ended between its CR and LF.
    func testOverlongRequestLineStatusDoesNotDependOnPacketBoundaries() {
        let small: (inout HTTPLimits) -> Void = { $0.maxURIBytes = 16 }
        // 49 bytes > 16 + 32, with a NUL in the target.
        let overlong = "GET /\u{0}" + String(repeating: "a", count: 34) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        XCTAssertEqual(failure(overlong, small)?.status, .uriTooLong)
        var parser = makeParser(small)
        let bytes = Array(overlong.utf8)
        XCTAssertEqual(parser.parse(Array(bytes[..<30]), from: 0), .needMore)
        if case .failure(let error) = parser.parse(bytes, from: 0) { XCTAssertEqual(error.status, .uriTooLong) } else { XCTFail() }

        // The overlong line complete but the header section not yet: 414 at once, as when it arrives in pieces.
        var early = makeParser(small)
        if case .failure(let error) = early.parse(Array(overlong.utf8.prefix(overlong.utf8.count - 4)), from: 0) {
            XCTAssertEqual(error.status, .uriTooLong)
        } else { XCTFail("overlong request line not rejected before the header section ends") }

        // A 48-byte request line (exactly the bound; a long method, a short target) whose CR arrives before its LF.
        let line = String(repeating: "M", count: 36) + " /a HTTP/1.1"
        XCTAssertEqual(line.utf8.count, 48)
        let request = Array((line + "\r\nHost: a\r\n\r\n").utf8)
        var split = makeParser(small)
        XCTAssertEqual(split.parse(Array(request[..<49]), from: 0), .needMore)  // up to and including the CR
        guard case .request(let parsed, _) = split.parse(request, from: 0) else { return XCTFail("not parsed") }
        XCTAssertEqual(parsed.path, "/a")
    }

    /// A bounded deterministic mutation pass: random edits of valid requests never crash or hang the parser,
    /// and every outcome is one of the three documented ones.
    func testMutatedRequestsNeverCrash() {
        let seeds = ["GET /v1/suggest?name=x HTTP/1.1\r\nHost: a\r\n\r\n",
                     "POST /v1/suggest HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}\n",
                     "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"].map { Array($0.utf8) }
        var generator = SplitMix(seed: fuzzSeed(default: 42))
        for _ in 0..<fuzzIterations(default: 20_000) {
            var bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + generator.next() % 4) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                default: bytes.insert(contentsOf: bytes[position..<min(bytes.count, position + 8)], at: position)
                }
                if bytes.isEmpty { bytes = [0x0A] }
            }
            var parser = makeParser { $0.maxBodyBytes = 1000 }
            var start = 0
            var rounds = 0
            while rounds < 10, case .request(_, let consumed) = parser.parse(bytes, from: start) {
                XCTAssertGreaterThan(consumed, 0)
                start += consumed
                rounds += 1
            }
        }
    }
}
