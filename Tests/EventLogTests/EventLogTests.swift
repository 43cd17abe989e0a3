import EventLog
import Foundation
import XCTest

/// An event is one JSON line: level and name first, then the fields in the order given, every value escaped.
final class EventLogTests: XCTestCase {
    func testAnEventIsOneJSONLineWithLevelAndNameFirst() throws {
        let event = LogEvent(.warning, "store_unavailable", ["store": "postgres://h/d", "error": "a \"quoted\"\nsecond line"])
        let text = String(decoding: event.line, as: UTF8.self)
        XCTAssertEqual(text, #"{"level":"warning","event":"store_unavailable","store":"postgres://h/d","error":"a \"quoted\"\nsecond line"}"# + "\n")
        XCTAssertEqual(text.filter { $0 == "\n" }.count, 1, "a value's newline is escaped, so the event stays one line")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.line)) as? [String: String])
        XCTAssertEqual(object["error"], "a \"quoted\"\nsecond line")
    }

    func testFieldsKeepTheirOrder() {
        let event = LogEvent(.info, "model_loaded", fields: [("model", "m"), ("load_ms", "1.0"), ("store", "file:x")])
        XCTAssertEqual(String(decoding: event.line, as: UTF8.self),
                       #"{"level":"info","event":"model_loaded","model":"m","load_ms":"1.0","store":"file:x"}"# + "\n")
    }
}
