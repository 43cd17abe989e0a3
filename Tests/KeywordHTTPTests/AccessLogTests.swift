import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// `--access-log errors`: only answers of status 400 and above are logged.
final class AccessLogTests: XCTestCase {
    func testErrorsModeLogsOnlyErrors() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let live = try LiveServer {
            $0.accessLogMode = .errors
            $0.accessLogFD = fds[1]
        }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /missing HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
        XCTAssertEqual(client.readResponse()?.status, 404)
        XCTAssertEqual(client.readResponse()?.status, 200)
        live.stop()
        close(fds[1])
        let lines = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.contains(#""status":404"#) ?? false, "\(lines)")
    }
}
