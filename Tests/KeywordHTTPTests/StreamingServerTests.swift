@testable import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
@testable import PostgresStore
@testable import StoreInterface
import Synchronization
import XCTest

/// A responder with streamed routes: `/count?n=` streams n numbered lines; `/endless` streams 64 KiB pieces
/// forever, counting its pulls; `/broken` fails after one piece.
private final class StreamResponder: HTTPResponder {
    let pulls = Atomic<Int>(0)
    let pulled = DispatchSemaphore(value: 0)

    func plan(for request: HTTPRequest) -> RoutePlan {
        RoutePlan(label: request.path, isBlocking: true) { [self] request in
            var response = HTTPResponse(status: .ok)
            response.headers.add("Content-Type", "text/plain")
            switch request.path {
            case "/count":
                let total = Int(request.query?.dropFirst(2) ?? "") ?? 0
                let next = Atomic<Int>(0)
                response.stream = ResponseStream {
                    let line = next.add(1, ordering: .relaxed).newValue
                    return line <= total ? .bytes(Array("line \(line)\n".utf8)) : .end
                }
            case "/endless":
                response.stream = ResponseStream { [self] in
                    pulls.add(1, ordering: .relaxed)
                    pulled.signal()
                    return .bytes(Array(repeating: 0x78, count: 64 * 1024))
                }
            default:
                let sent = Atomic<Bool>(false)
                response.stream = ResponseStream {
                    sent.exchange(true, ordering: .relaxed) ? .failed("the store went away") : .bytes(Array("first\n".utf8))
                }
            }
            return response
        }
    }
}

/// Streamed responses through the event loop over a socketpair, and the body budget; one export over loopback.
final class StreamingServerTests: XCTestCase {
    private func pair(_ server: HTTPServer) -> RawClient {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        server.adopt(fds[0])
        return RawClient(fd: fds[1])
    }

    private func streamServer(_ responder: StreamResponder) throws -> HTTPServer {
        let server = try HTTPServer(configuration: makeConfiguration(), responder: responder)
        server.startWithoutListening()
        return server
    }

    func testStreamedBodyIsChunkedAndTheConnectionServesTheNextRequest() throws {
        let server = try streamServer(StreamResponder())
        defer { server.shutdown(); server.wait() }
        let client = pair(server)
        // Pipelined: the second request waits, unread, until the first body has ended.
        client.send("GET /count?n=500 HTTP/1.1\r\nHost: x\r\n\r\nGET /count?n=2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(first.header("Content-Length"))
        XCTAssertEqual(first.body, (1...500).map { "line \($0)\n" }.joined())
        let second = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(second.body, "line 1\nline 2\n")
        // HEAD: the headers GET would send, no body, and the connection stays usable.
        client.send("HEAD /count?n=3 HTTP/1.1\r\nHost: x\r\n\r\nGET /count?n=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: buffer, as: UTF8.self).contains("line 1\n\r\n0\r\n\r\n") {
            let count = recv(client.fd, &chunk, chunk.count, 0)
            guard count > 0 else { return XCTFail("closed: \(String(decoding: buffer, as: UTF8.self))") }
            buffer += chunk[0..<count]
        }
        let text = String(decoding: buffer, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 200 OK").count, 3, text)
        XCTAssertEqual(text.components(separatedBy: "Transfer-Encoding: chunked").count, 3, text)
    }

    func testHTTP10StreamEndsWithTheConnection() throws {
        let server = try streamServer(StreamResponder())
        defer { server.shutdown(); server.wait() }
        let client = pair(server)
        client.send("GET /count?n=3 HTTP/1.0\r\n\r\n")
        let text = client.readToEnd()
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK"), text)
        XCTAssertTrue(text.contains("Connection: close"), text)
        XCTAssertFalse(text.contains("Transfer-Encoding"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\nline 1\nline 2\nline 3\n"), text)
    }

    func testAFailedStreamClosesWithoutTheLastChunk() throws {
        let server = try streamServer(StreamResponder())
        defer { server.shutdown(); server.wait() }
        let client = pair(server)
        client.send("GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
        let text = client.readToEnd()
        XCTAssertTrue(text.hasSuffix("\r\n\r\n6\r\nfirst\n\r\n"), text)
        XCTAssertFalse(text.contains("0\r\n\r\n"), text)
    }

    /// A client that stops reading stops the producer: pulls continue only while earlier pieces leave, so what
    /// the server holds is bounded by the socket buffers and the low-water mark, not by the body.
    func testAReaderThatStopsReadingStopsTheProducer() throws {
        let responder = StreamResponder()
        let server = try streamServer(responder)
        defer { server.shutdown(); server.wait() }
        let client = pair(server)
        client.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        // The producer runs until the socket buffers are full, then waits; 48 pieces are 3 MiB, far more
        // than the buffers of a socketpair hold.
        var stalled = false
        while responder.pulls.load(ordering: .relaxed) < 48 {
            if responder.pulled.wait(timeout: .now() + 1) == .timedOut {
                stalled = true
                break
            }
        }
        XCTAssertTrue(stalled, "the producer kept running while nobody read: \(responder.pulls.load(ordering: .relaxed)) pulls")
        let before = responder.pulls.load(ordering: .relaxed)
        // Reading resumes the pulls.
        var chunk = [UInt8](repeating: 0, count: 65536)
        var read = 0
        while read < 4 * 1024 * 1024 {
            let count = recv(client.fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            read += count
        }
        XCTAssertGreaterThan(responder.pulls.load(ordering: .relaxed), before)
    }

    /// Large bodies share a budget, held for the bytes that arrived: a head alone holds none; while one body holds
    /// most of it, another large one is refused as its bytes arrive (503, Retry-After); small bodies are not
    /// counted; once the first is answered, the budget is free.
    func testLargeBodiesShareTheBudget() throws {
        let configuration = makeConfiguration {
            $0.bodyBudgetBytes = 300_000
            $0.budgetedBodyBytes = 65536
        }
        let server = try HTTPServer(configuration: makeAPI().serverConfiguration(configuration), responder: makeAPI())
        server.startWithoutListening()
        defer { server.shutdown(); server.wait() }
        let names = Array(repeating: "\"にんじん\"", count: 10).joined(separator: ",")
        func body(_ size: Int) -> [UInt8] {
            let json = "{\"names\": [\(names)]}"
            return Array((json + String(repeating: " ", count: size - json.utf8.count)).utf8)
        }
        func head(_ length: Int) -> String {
            "POST /v1/suggest/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\nExpect: 100-continue\r\n\r\n"
        }
        // Heads alone hold nothing: both are invited to send.
        let first = pair(server)
        first.send(head(200_000))
        XCTAssertTrue(first.readInterim().hasPrefix("HTTP/1.1 100 Continue"))
        let second = pair(server)
        second.send(head(150_000))
        XCTAssertTrue(second.readInterim().hasPrefix("HTTP/1.1 100 Continue"))
        XCTAssertEqual(server.bodyBytesHeld, 0)
        let firstBody = body(200_000)
        first.send(Array(firstBody[0..<190_000]))
        // A small body, not counted, is served meanwhile (and orders the loop's events: the first's bytes are in).
        let small = pair(server)
        small.send(head(60_000))
        XCTAssertTrue(small.readInterim().hasPrefix("HTTP/1.1 100 Continue"))
        small.send(body(60_000))
        XCTAssertEqual(small.readResponse()?.status, 200)
        XCTAssertGreaterThanOrEqual(server.bodyBytesHeld, 190_000)
        second.send(body(150_000))
        let busy = try XCTUnwrap(second.readResponse())
        XCTAssertEqual(busy.status, 503)
        XCTAssertEqual(busy.errorCode, "server_busy")
        XCTAssertEqual(busy.header("Retry-After"), "1")
        first.send(Array(firstBody[190_000...]))
        XCTAssertEqual(first.readResponse()?.status, 200)
        XCTAssertEqual(server.bodyBytesHeld, 0)
        let third = pair(server)
        third.send(head(150_000))
        XCTAssertTrue(third.readInterim().hasPrefix("HTTP/1.1 100 Continue"))
        third.send(body(150_000))
        XCTAssertEqual(third.readResponse()?.status, 200)
        // A chunked body is counted as it arrives: past the budget, 503 and close.
        let chunked = pair(server)
        let holder = pair(server)
        holder.send(head(250_000))
        XCTAssertTrue(holder.readInterim().hasPrefix("HTTP/1.1 100 Continue"))
        holder.send(Array(body(250_000)[0..<240_000]))
        chunked.send("POST /v1/suggest/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunked.send("30d40\r\n" + String(repeating: " ", count: 200_000) + "\r\n")
        let refused = try XCTUnwrap(chunked.readResponse())
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.errorCode, "server_busy")
    }

    /// Over loopback, from a file store of more records than one page: all of them without limit, exactly
    /// `limit` with it, and `Feedback-Last-Id` announced first is the last record sent.
    func testLiveExportStreamsEveryRecord() throws {
        let directory = NSTemporaryDirectory() + "export-stream-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try checkLiveExport(FileKeywordStore(overlayPath: directory + "/keywords.overlay.json"))
    }

    /// The same from PostgreSQL (tools/test.sh provides one; skipped without it).
    func testLiveExportStreamsEveryRecordFromPostgres() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip("needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test")
        }
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        for table in ["kwsuggest_schema_migrations", "kwsuggest_keyword_head", "kwsuggest_keyword_changes",
                      "kwsuggest_keywords", "kwsuggest_feedback", "kwsuggest_model_registry", "kwsuggest_model_blobs",
                      "kwsuggest_queue_items", "kwsuggest_queue_decisions"] {
            try connection.exec("DROP TABLE IF EXISTS \(table) CASCADE")
        }
        let store = try PostgresKeywordStore(url: url)
        defer { store.close() }
        try checkLiveExport(store)
    }

    /// Over loopback with one export at a time allowed: exports one after another are all served, since each
    /// gives its place back when its body has been sent.
    func testAFinishedLiveExportGivesItsPlaceBack() throws {
        let directory = NSTemporaryDirectory() + "export-slot-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        _ = try store.appendFeedback((1...20).map { FeedbackItem(name: "名前 \($0)", keyword: "にんじん", action: .accept) })
        var api = APIConfiguration()
        api.limits.maxConcurrentExports = 1
        let responder = KeywordAPI(configuration: api, state: EngineSlot(engine: FakeEngine(), store: store),
                                   metrics: KeywordAPI.makeMetrics())
        let server = try HTTPServer(configuration: responder.serverConfiguration(makeConfiguration()), responder: responder)
        try server.start()
        defer { server.shutdown(); server.wait() }
        let client = try RawClient(port: server.port)
        for round in 1...5 {
            client.send("GET /v1/feedback/export HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(response.status, 200, "export \(round): \(response.body.prefix(200))")
            XCTAssertEqual(response.body.split(separator: "\n").count, 20)
        }
    }

    private func checkLiveExport(_ store: any KeywordStore) throws {
        let total = FeedbackExport.maxPageRecords * 2 + 500
        _ = try store.appendFeedback((1...total).map {
            FeedbackItem(name: "名前 \($0)", keyword: "にんじん", action: $0 % 10 == 0 ? .reject : .accept)
        })
        var configuration = makeConfiguration()
        let api = makeAPI(store: store)
        configuration = api.serverConfiguration(configuration)
        let server = try HTTPServer(configuration: configuration, responder: api)
        try server.start()
        defer { server.shutdown(); server.wait() }

        let client = try RawClient(port: server.port)
        client.send("GET /v1/feedback/export?format=raw HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let all = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(all.status, 200)
        XCTAssertEqual(all.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(all.header("Feedback-Last-Id"), String(total))
        let lines = all.body.split(separator: "\n")
        XCTAssertEqual(lines.count, total)
        XCTAssertTrue(lines.last?.contains("\"id\":\(total),") == true, String(lines.last ?? ""))

        client.send("GET /v1/feedback/export?limit=1200&since=100 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let page = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(page.header("Feedback-Last-Id"), "1300")
        XCTAssertEqual(page.body.split(separator: "\n").count, 1200 - 120)  // rejects are not training data
        client.send("GET /v1/feedback/export?since=\(total) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let empty = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(empty.header("Feedback-Last-Id"), String(total))
        XCTAssertEqual(empty.body, "")
    }
}
