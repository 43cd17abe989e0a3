import APICore
@testable import ProcessLifecycle
import XCTest

/// The admin token from the environment and the open-writes rule.
final class WritePolicyTests: XCTestCase {
    func testTokenIsTrimmedOrRejected() throws {
        XCTAssertNil(try WritePolicy.token(fromEnvironment: nil))
        XCTAssertNil(try WritePolicy.token(fromEnvironment: ""))
        XCTAssertEqual(try WritePolicy.token(fromEnvironment: "s3cret\n"), "s3cret")
        XCTAssertEqual(try WritePolicy.token(fromEnvironment: "  s3cret \r\n"), "s3cret")
        XCTAssertThrowsError(try WritePolicy.token(fromEnvironment: "two words"))
        XCTAssertThrowsError(try WritePolicy.token(fromEnvironment: "a\u{1}b"))
        XCTAssertThrowsError(try WritePolicy.token(fromEnvironment: " \n"))
    }

    func testOpenWritesAreWarnedOnLoopbackAndRefusedElsewhere() throws {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"] {
            XCTAssertNotNil(try WritePolicy.check(host: host, token: nil, allowOpenWrites: false), host)
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "example.com", "127.0.0.1.example.com"] {
            XCTAssertThrowsError(try WritePolicy.check(host: host, token: nil, allowOpenWrites: false), host)
            XCTAssertNotNil(try WritePolicy.check(host: host, token: nil, allowOpenWrites: true), host)
            XCTAssertNil(try WritePolicy.check(host: host, token: "t", allowOpenWrites: false), host)
        }
    }

    func testOpenWritesWithAnyOriginWarn() {
        XCTAssertNotNil(WritePolicy.corsWarning(token: nil, cors: CORSPolicy(allowedOrigins: ["*"])))
        XCTAssertNil(WritePolicy.corsWarning(token: "t", cors: CORSPolicy(allowedOrigins: ["*"])))
        XCTAssertNil(WritePolicy.corsWarning(token: nil, cors: CORSPolicy(allowedOrigins: ["https://a.example"])))
    }
}
