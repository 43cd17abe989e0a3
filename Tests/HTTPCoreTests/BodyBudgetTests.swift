import Foundation
@testable import HTTPCore
import Synchronization
import XCTest

private func text(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
    HTTPResponse(status: status, body: Array(body.utf8))
}

/// Routes for the budget tests: `/echo` answers inline with the body's length; `/slow` runs on the single
/// shared worker until `release` is signalled; `/queue` runs on that worker at once; `/stream` streams its answer;
/// `/deny` is refused on its head (401); `/capped` takes at most 100,000 bytes.
private final class BudgetResponder: HTTPResponder {
    let release = DispatchSemaphore(value: 0)

    func plan(for request: HTTPRequest) -> RoutePlan {
        var plan = route(request)
        plan.refusal = request.path == "/deny" ? text(.unauthorized, "no") : nil
        plan.bodyLimit = request.path == "/capped" ? 100_000 : nil
        return plan
    }

    private func route(_ request: HTTPRequest) -> RoutePlan {
        switch request.path {
        case "/slow":
            return RoutePlan(label: "/slow", isBlocking: true) { [release] request in
                release.wait()
                return text(.ok, String(request.body.count))
            }
        case "/queue":
            return RoutePlan(label: "/queue", isBlocking: true) { _ in text(.ok, "queued") }
        case "/stream":
            return RoutePlan(label: "/stream", isBlocking: true) { request in
                var response = HTTPResponse(status: .ok)
                let sent = Atomic(false)
                let size = request.body.count
                response.stream = ResponseStream {
                    sent.exchange(true, ordering: .relaxed) ? .end : .bytes(Array(String(size).utf8))
                }
                return response
            }
        default:
            return RoutePlan(label: request.path) { request in text(.ok, String(request.body.count)) }
        }
    }
}

/// A blocking client on one end of a socketpair.
private final class PairClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(_ server: HTTPServer) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        server.adopt(fds[0])
        fd = fds[1]
    }

    deinit { hangUp() }

    func hangUp() {
        if fd >= 0 { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count <= 0 { return }
                offset += count
            }
        }
    }

    /// One response: its status and body (Content-Length or chunked); nil when the peer closed first.
    func readResponse() -> (status: Int, body: String)? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let text = String(decoding: buffer, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = String(text[..<end.lowerBound])
                let status = Int(head.dropFirst(9).prefix(3)) ?? 0
                let rest = String(text[end.upperBound...])
                if let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                   let length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)), rest.utf8.count >= length {
                    buffer.removeFirst(head.utf8.count + 4 + length)
                    return (status, String(rest.prefix(length)))
                }
                if head.lowercased().contains("transfer-encoding: chunked"), let last = rest.range(of: "0\r\n\r\n") {
                    buffer.removeFirst(head.utf8.count + 4 + rest[..<last.upperBound].utf8.count)
                    return (status, rest)
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

/// The server-wide body budget over socketpairs: what holds it, and that every way a request ends returns
/// exactly what it held. One loop serves every connection, so a round trip on another connection orders events.
final class BodyBudgetTests: XCTestCase {
    private var server: HTTPServer!
    private var responder: BudgetResponder!

    private func start(_ change: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.eventLoops = 1
        configuration.blockingWorkers = 1
        configuration.accessLog = false
        configuration.bodyBudgetBytes = 400_000
        configuration.budgetedBodyBytes = 65536
        configuration.limits.maxBodyBytes = 1_000_000
        change(&configuration)
        responder = BudgetResponder()
        server = try HTTPServer(configuration: configuration, responder: responder)
        server.startWithoutListening()
    }

    override func tearDown() {
        if let server {
            for _ in 0..<4 { responder.release.signal() }
            server.shutdown()
            server.wait()
        }
        server = nil
        super.tearDown()
    }

    private func head(_ path: String, _ length: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n"
    }

    private func body(_ size: Int) -> [UInt8] { [UInt8](repeating: 0x78, count: size) }

    /// Everything sent to the loop before this was read and handled: two round trips on a fresh connection.
    private func settle() {
        let probe = PairClient(server)
        for _ in 0..<2 {
            probe.send("GET /echo HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(probe.readResponse()?.status, 200)
        }
    }

    func testADeclaredLengthAloneHoldsNoBudget() throws {
        try start()
        // Heads announcing far more than the budget, with no body: nothing is held, and others are served.
        let idle = (0..<4).map { _ in PairClient(server) }
        for client in idle { client.send(head("/echo", 900_000)) }
        settle()
        XCTAssertEqual(server.bodyBytesHeld, 0)
        // Bytes that arrive are held, in steps, never more than the body can take.
        idle[0].send(body(200_000))
        settle()
        XCTAssertGreaterThanOrEqual(server.bodyBytesHeld, 200_000)
        XCTAssertLessThanOrEqual(server.bodyBytesHeld, 200_000 + 65536 + 100)
        // A body that outgrows what is left is refused as its bytes arrive: 503 and close; it returns its steps.
        let late = PairClient(server)
        late.send(head("/echo", 900_000))
        late.send(body(300_000))
        XCTAssertEqual(late.readResponse()?.status, 503)
        settle()
        XCTAssertLessThanOrEqual(server.bodyBytesHeld, 200_000 + 65536 + 100)
        // The first completes and is answered; all is returned.
        idle[0].send(body(700_000))
        XCTAssertEqual(idle[0].readResponse()?.body, "900000")
        XCTAssertEqual(server.bodyBytesHeld, 0)
    }

    func testABodyThatArrivesWholeIsCounted() throws {
        try start()
        let holder = PairClient(server)
        holder.send(head("/echo", 900_000))
        holder.send(body(350_000))
        settle()
        let held = server.bodyBytesHeld
        XCTAssertGreaterThanOrEqual(held, 350_000)
        // A complete 100 KB request in one write: counted, so it does not fit.
        let whole = PairClient(server)
        whole.send(Array(head("/echo", 100_000).utf8) + body(100_000))
        XCTAssertEqual(whole.readResponse()?.status, 503)
        settle()
        XCTAssertEqual(server.bodyBytesHeld, held)
        holder.send(body(550_000))
        XCTAssertEqual(holder.readResponse()?.body, "900000")
        XCTAssertEqual(server.bodyBytesHeld, 0)
        // With the budget free the same request is served, and held while it waits for its worker.
        let again = PairClient(server)
        again.send(Array(head("/slow", 100_000).utf8) + body(100_000))
        settle()
        XCTAssertGreaterThanOrEqual(server.bodyBytesHeld, 100_000)
        responder.release.signal()
        XCTAssertEqual(again.readResponse()?.body, "100000")
        XCTAssertEqual(server.bodyBytesHeld, 0)
    }

    func testEveryEndReturnsWhatWasHeld() throws {
        try start()
        // Keep-alive: two large bodies in turn on one connection.
        let reused = PairClient(server)
        for _ in 0..<2 {
            reused.send(head("/echo", 300_000))
            reused.send(body(300_000))
            XCTAssertEqual(reused.readResponse()?.body, "300000")
            XCTAssertEqual(server.bodyBytesHeld, 0)
        }
        // A streamed answer.
        reused.send(head("/stream", 300_000))
        reused.send(body(300_000))
        XCTAssertEqual(reused.readResponse()?.status, 200)
        XCTAssertEqual(server.bodyBytesHeld, 0)
        // Refused on the head: 401 from admit, 413 over the route's cap.
        for path in ["/deny", "/capped"] {
            let refused = PairClient(server)
            refused.send(head(path, 300_000))
            refused.send(body(100_000))
            XCTAssertEqual(refused.readResponse()?.status, path == "/deny" ? 401 : 413)
            settle()
            XCTAssertEqual(server.bodyBytesHeld, 0)
        }
        // A parse error part way through a chunked body.
        let broken = PairClient(server)
        broken.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n30d40\r\n")
        broken.send(body(200_000))
        broken.send("\r\nzz\r\n")
        XCTAssertEqual(broken.readResponse()?.status, 400)
        settle()
        XCTAssertEqual(server.bodyBytesHeld, 0)
        // The client leaves part way through a body.
        let leaving = PairClient(server)
        leaving.send(head("/echo", 300_000))
        leaving.send(body(200_000))
        settle()
        XCTAssertGreaterThan(server.bodyBytesHeld, 0)
        leaving.hangUp()
        settle()
        XCTAssertEqual(server.bodyBytesHeld, 0)
        // The client leaves while its handler runs: held until the handler returns.
        let gone = PairClient(server)
        gone.send(head("/slow", 300_000))
        gone.send(body(300_000))
        settle()
        XCTAssertGreaterThanOrEqual(server.bodyBytesHeld, 300_000)
        gone.hangUp()
        settle()
        XCTAssertGreaterThanOrEqual(server.bodyBytesHeld, 300_000)
        responder.release.signal()
        // `/queue` runs on the same single worker after `/slow`, so its answer comes after the orphaned one.
        let queued = PairClient(server)
        queued.send("GET /queue HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(queued.readResponse()?.body, "queued")
        XCTAssertEqual(server.bodyBytesHeld, 0)
    }

    func testATimedOutBodyReturnsWhatItHeld() throws {
        try start { $0.bodyIdleTimeout = 0.1 }
        let stalled = PairClient(server)
        stalled.send(head("/echo", 300_000))
        stalled.send(body(200_000))
        XCTAssertEqual(stalled.readResponse()?.status, 408)
        XCTAssertEqual(server.bodyBytesHeld, 0)
    }
}
