@testable import HTTPCore
import XCTest

/// The request counters: labels come from a bounded set whatever clients send.
final class MetricsTests: XCTestCase {
    func testUnknownMethodsShareOneLabel() {
        let metrics = ServerMetrics(shards: 2)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<20_000 {
            let method = "M" + String((0..<40).map { _ in Character(UnicodeScalar(UInt8.random(in: 65...90, using: &generator))) })
            metrics.record(shard: index, route: "/healthz", method: method, status: 405, seconds: 0.001)
        }
        metrics.record(shard: 0, route: "/healthz", method: "GET", status: 200, seconds: 0.001)
        let text = metrics.render()
        let series = text.split(separator: "\n").filter { $0.hasPrefix("http_requests_total{") }
        XCTAssertEqual(series.count, 2, text)
        XCTAssertTrue(text.contains(#"http_requests_total{route="/healthz",method="OTHER",status="405"} 20000"#))
        XCTAssertTrue(text.contains(#"http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        XCTAssertLessThan(text.utf8.count, 4096)
    }

    func testSeriesPerShardAreBounded() {
        let metrics = ServerMetrics(shards: 1)
        for index in 0..<5_000 {
            metrics.record(shard: 0, route: "/r\(index)", method: "GET", status: 200, seconds: 0)
        }
        let series = metrics.render().split(separator: "\n").filter { $0.hasPrefix("http_requests_total{") }
        XCTAssertEqual(series.count, ServerMetrics.maxSeriesPerShard + 1)
        XCTAssertEqual(metrics.count(route: "(other)", status: 0), 5_000 - ServerMetrics.maxSeriesPerShard)
    }

    func testQueueWaitIsAHistogramOfItsOwn() {
        let metrics = ServerMetrics(shards: 2)
        metrics.recordQueueWait(shard: 0, seconds: 0.0003)
        metrics.recordQueueWait(shard: 1, seconds: 0.004)
        let text = metrics.render()
        XCTAssertTrue(text.contains(#"http_request_queue_seconds_bucket{le="0.0005"} 1"#), text)
        XCTAssertTrue(text.contains(#"http_request_queue_seconds_bucket{le="0.005"} 2"#), text)
        XCTAssertTrue(text.contains("http_request_queue_seconds_count 2"), text)
    }
}
