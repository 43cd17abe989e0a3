import Glibc
@testable import ProcessLifecycle
import XCTest

/// Signals are read in batches and acted on once per batch.
final class SignalBatchTests: XCTestCase {
    func testAStormOfHangupsIsOneReloadAndTermWinsOverThem() {
        let hangups = [UInt8](repeating: UInt8(SIGHUP), count: 200)
        XCTAssertEqual(SignalBatch(hangups), .reload(count: 200))
        XCTAssertEqual(SignalBatch(hangups + [UInt8(SIGTERM)]), .stop(SIGTERM))
        XCTAssertEqual(SignalBatch([UInt8(SIGINT)] + hangups), .stop(SIGINT))
        XCTAssertEqual(SignalBatch([0]), .wake)
        XCTAssertEqual(SignalBatch([]), .nothing)
    }
}
