import Foundation
@testable import StrictJSON
import MutationTesting
import XCTest

final class JSONTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    func testParsesObjectsArraysAndScalars() throws {
        let value = try parse(#" {"name": "にんじん\n", "k": 5, "x": [true, false, null, -1.5e2], "o": {}} "#)
        XCTAssertEqual(value["name"], .string("にんじん\n"))
        XCTAssertEqual(value["k"], .number(5))
        XCTAssertEqual(value["x"], .array([.bool(true), .bool(false), .null, .number(-150)]))
        XCTAssertEqual(value["o"], .object([:]))
    }

    func testUnicodeEscapesAndSurrogatePairs() throws {
        XCTAssertEqual(try parse(#""\u306b\ud83e\udd55""#), .string("に🥕"))
        XCTAssertThrowsError(try parse(#""\ud83e""#))
        XCTAssertThrowsError(try parse(#""\udd55""#))
    }

    func testRejectsRepeatedKeys() {
        XCTAssertThrowsError(try parse(#"{"k": 1, "k": 2}"#)) { error in
            XCTAssertEqual((error as? JSONParseError)?.duplicateKey, "k")
        }
        XCTAssertThrowsError(try parse(#"[{"a": {"b": 1, "b": 1}}]"#))
        XCTAssertNoThrow(try parse(#"{"a": {"k": 1}, "b": {"k": 2}}"#))
    }

    func testRejectsMalformedDocuments() {
        for text in ["", "{", "{\"a\" 1}", "{\"a\":1,}", "[1,]", "01", "1.", "-", "tru", "\"a", "{a:1}", "1 2",
                     "\"tab\there\"", "\"\\x\"", "[" + String(repeating: "[", count: 100) + "]"] {
            XCTAssertThrowsError(try parse(text), text.debugDescription)
        }
    }

    func testRejectsInvalidUTF8WithEncodingFlag() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE3, 0x81]] {
            do {
                _ = try JSONParser.parse(bytes)
                XCTFail("accepted \(bytes)")
            } catch {
                XCTAssertTrue(error.isEncoding, "\(bytes)")
            }
        }
        XCTAssertNil(JSONParser.firstInvalidUTF8(Array("にんじん🥕".utf8)))
    }

    func testValueLimitStopsAtTheFirstValueBeyondIt() throws {
        // The document, the array, 1, the inner object and null: 5 values.
        let text = #"{"a": [1, {"b": null}]}"#
        XCTAssertNoThrow(try JSONParser.parse(Array(text.utf8), maxValues: 5))
        XCTAssertThrowsError(try JSONParser.parse(Array(text.utf8), maxValues: 4)) { error in
            let failure = error as? JSONParseError
            XCTAssertEqual(failure?.valueLimit, 4)
            XCTAssertEqual(failure?.offset, 16, "at null, the fifth value")
        }
        // A long document of tiny values stops where the limit is passed, not at its end: value n + 1 of
        // [1,1,…] starts at byte 2n - 1.
        let tiny = Array(("[" + Array(repeating: "1", count: 500_000).joined(separator: ",") + "]").utf8)
        XCTAssertThrowsError(try JSONParser.parse(tiny, maxValues: 10)) { error in
            XCTAssertEqual((error as? JSONParseError)?.offset, 19)
        }
        XCTAssertEqual(try JSONParser.parse(Array("[1,1,1]".utf8), maxValues: 4), .array([.number(1), .number(1), .number(1)]))
        XCTAssertNil(try? JSONParser.parse(Array("[1,1,1]".utf8), maxValues: 3))
        // Without a limit (model files), nothing is refused for its count.
        XCTAssertNoThrow(try JSONParser.parse(tiny))
        // Other errors do not carry the limit.
        XCTAssertThrowsError(try JSONParser.parse(Array("[1,]".utf8), maxValues: 10)) { error in
            XCTAssertNil((error as? JSONParseError)?.valueLimit)
        }
    }

    func testNestingLimitIsExact() {
        func nested(_ depth: Int) -> [UInt8] { Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8) }
        XCTAssertNoThrow(try JSONParser.parse(nested(JSONParser.maxDepth)))
        XCTAssertThrowsError(try JSONParser.parse(nested(JSONParser.maxDepth + 1))) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, "nesting deeper than \(JSONParser.maxDepth)")
            XCTAssertEqual((error as? JSONParseError)?.offset, JSONParser.maxDepth)
        }
    }

    func testWriterOutputIsReadByFoundation() throws {
        var json = JSONWriter()
        json.object { json in
            json.field("s", string: "quote\" back\\ nl\n ctl\u{1} に")
            json.field("i", int: -3)
            json.field("f") { $0.number(Float(0.87)) }
            json.field("nan") { $0.number(Double.nan) }
            json.field("a") { json in json.array { json in json.bool(true); json.null() } }
        }
        let text = String(decoding: json.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""f":0.87"#), text)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        XCTAssertEqual(object["s"] as? String, "quote\" back\\ nl\n ctl\u{1} に")
        XCTAssertEqual(object["i"] as? Int, -3)
        XCTAssertTrue(object["nan"] is NSNull)
        XCTAssertEqual((object["a"] as? [Any])?.count, 2)
    }

    /// Random byte strings and mutations of valid JSON never crash the parser (bounded, deterministic).
    func testMutatedJSONNeverCrashes() {
        let seed = Array(#"{"name": "淡路島産 にんじん", "k": 5, "explain": true, "names": ["a", "\u00e9"]}"#.utf8)
        var generator = SplitMix(seed: fuzzSeed(default: 7))
        for _ in 0..<fuzzIterations(default: 20_000) {
            var bytes = seed
            generator.mutate(&bytes)
            _ = try? JSONParser.parse(bytes)
        }
    }
}
