import Foundation
@testable import HTTPCore
import XCTest

/// A responder whose `/slow` holds its worker until released and whose `/write` answers at once on the writes lane.
private final class LaneResponder: HTTPResponder {
    let release = DispatchSemaphore(value: 0)

    func plan(for request: HTTPRequest) -> RoutePlan {
        if request.path == "/slow" {
            return RoutePlan(label: "/slow", isBlocking: true) { [release] _ in
                release.wait()
                return HTTPResponse(status: .ok)
            }
        }
        if request.path == "/export" {
            // A blocking route on the bulk lane whose body streams in two pieces.
            return RoutePlan(label: "/export", isBlocking: true, lane: .bulk) { _ in
                let pulls = PullCounter()
                var response = HTTPResponse(status: .ok)
                response.stream = ResponseStream {
                    switch pulls.next() {
                    case 1: .bytes(Array("piece-one ".utf8))
                    case 2: .bytes(Array("piece-two".utf8))
                    default: .end
                    }
                }
                return response
            }
        }
        return RoutePlan(label: "/write", isBlocking: true, lane: .writes) { _ in HTTPResponse(status: .noContent) }
    }
}

extension WorkLane {
    /// The lanes the tests declare, as an application would.
    static let writes = WorkLane("writes")
    static let bulk = WorkLane("bulk")
}

extension HTTPServer {
    /// One event loop, one general worker, and a lane each for writes and bulk answers (streams made there too).
    static func withTestLanes(_ responder: any HTTPResponder) throws -> HTTPServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 1
        configuration.lanes = [.general: 1, .writes: 1, .bulk: 2]
        configuration.streamLane = .bulk
        configuration.accessLog = false
        let server = try HTTPServer(configuration: configuration, responder: responder)
        _ = try server.start()
        return server
    }
}

final class LaneTests: XCTestCase {
    func testReservedLaneDoesNotQueueBehindTheSharedOne() throws {
        let responder = LaneResponder()
        let server = try HTTPServer.withTestLanes(responder)
        defer {
            for _ in 0..<4 { responder.release.signal() }
            server.shutdown()
            server.wait()
        }
        // Three slow jobs fill the single shared worker and its queue.
        var slow: [Int32] = []
        for _ in 0..<3 { slow.append(try send(port: server.port, "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")) }
        defer { for fd in slow { close(fd) } }
        let write = try send(port: server.port, "POST /write HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")
        defer { close(write) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(write, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(count, 0, "no answer while the shared lane was busy")
        XCTAssertTrue(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).hasPrefix("HTTP/1.1 204"))
    }

    /// A bulk route and its streamed body are made on the bulk lane: both finish while every shared worker is held.
    func testBulkLaneAndStreamedBodiesDoNotQueueBehindTheSharedOne() throws {
        let responder = LaneResponder()
        let server = try HTTPServer.withTestLanes(responder)
        defer {
            for _ in 0..<4 { responder.release.signal() }
            server.shutdown()
            server.wait()
        }
        var slow: [Int32] = []
        for _ in 0..<3 { slow.append(try send(port: server.port, "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")) }
        defer { for fd in slow { close(fd) } }
        let export = try send(port: server.port, "GET /export HTTP/1.1\r\nHost: a\r\n\r\n")
        defer { close(export) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !String(decoding: received, as: UTF8.self).hasSuffix("\r\n0\r\n\r\n") {
            let count = recv(export, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        let text = String(decoding: received, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), text)
        XCTAssertTrue(text.contains("piece-one ") && text.contains("piece-two") && text.hasSuffix("\r\n0\r\n\r\n"),
                      "the streamed body did not finish while the shared lane was busy: \(text)")
    }

    private func send(port: Int, _ text: String) throws -> Int32 {
        try LoopbackClient.send(port: port, text)
    }
}

/// Signals when it is freed.
private final class Tracked: Sendable {
    let freed: DispatchSemaphore
    init(_ freed: DispatchSemaphore) { self.freed = freed }
    deinit { freed.signal() }
}

final class WorkerPoolTests: XCTestCase {
    /// What a job captures (a request body, a streamed answer) is let go once the job has run, not kept until the
    /// queue is next compacted.
    func testAJobsCapturesAreFreedOnceItHasRun() {
        let pool = WorkerPool(count: 1, name: "test-worker")
        defer { pool.stop() }
        let freed = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        submit(to: pool, Tracked(freed), ran: ran)
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(freed.wait(timeout: .now() + 10), .success, "the job's captures outlived it")
    }

    private func submit(to pool: WorkerPool, _ tracked: Tracked, ran: DispatchSemaphore) {
        pool.submit {
            _ = tracked.freed
            ran.signal()
        }
    }
}
