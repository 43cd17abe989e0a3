import StrictJSON
import XCTest

/// `JSONDecoding`: Decodable types through the strict parser.
final class JSONDecodingTests: XCTestCase {
    private struct Record: Decodable, Equatable {
        struct Inner: Decodable, Equatable {
            var n: Int
        }
        var id: Int64
        var seed: UInt64?
        var name: String
        var ratio: Double
        var weight: Float?
        var tags: [String]
        var inner: [String: Inner]
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws(JSONDecodingError) -> T {
        try JSONDecoding.decode(type, from: Array(text.utf8))
    }

    private func failure<T: Decodable>(_ type: T.Type, _ text: String, file: StaticString = #filePath,
                                       line: UInt = #line) -> JSONDecodingError? {
        do {
            _ = try decode(type, text)
            XCTFail("decoded \(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testDecodesAndIgnoresUnknownKeys() throws {
        let record = try decode(Record.self, #"{"id": 3, "name": "にんじん", "ratio": 0.1, "tags": ["a"], "inner": {"x": {"n": 2}}, "extra": [1]}"#)
        XCTAssertEqual(record, Record(id: 3, seed: nil, name: "にんじん", ratio: 0.1, weight: nil, tags: ["a"], inner: ["x": .init(n: 2)]))
        XCTAssertNil(try decode(Record.self, #"{"id": 3, "seed": null, "name": "", "ratio": 1, "tags": [], "inner": {}}"#).seed)
    }

    func testARepeatedKeyIsAnErrorWithItsOffset() throws {
        let text = #"{"id": 1, "name": "a", "id": 2}"#
        let error = try XCTUnwrap(failure(Record.self, text))
        XCTAssertEqual(error.duplicateKey, "id")
        XCTAssertEqual(error.offset, 29)
        XCTAssertEqual(error.description, "the key 'id' appears twice at byte 29")
        XCTAssertEqual(error.line(in: Array(text.utf8)), 1)
        let nested = try XCTUnwrap(failure(Record.self, "{\"inner\": {\n\"x\": {\"n\": 1, \"n\": 2}}}"))
        XCTAssertEqual(nested.duplicateKey, "n")
        XCTAssertEqual(nested.line(in: Array("{\"inner\": {\n\"x\": {\"n\": 1, \"n\": 2}}}".utf8)), 2)
    }

    func testTrailingDataIsAnError() throws {
        let error = try XCTUnwrap(failure([String].self, #"["a"] x"#))
        XCTAssertEqual(error.description, "unexpected data after the JSON value at byte 6")
        XCTAssertNotNil(failure([String].self, "[\"a\"]\n[\"b\"]"))
    }

    func testAWrongTypeNamesTheField() throws {
        let base = #""name": "a", "ratio": 1, "tags": [], "inner": {}"#
        XCTAssertEqual(failure(Record.self, #"{"id": "3", "# + base + "}")?.description, "'id': expected an integer, found a string")
        XCTAssertEqual(failure(Record.self, #"{"id": 3, "name": "a", "ratio": 1, "tags": ["a", 2], "inner": {}}"#)?.description,
                       "'tags[1]': expected a string, found a number")
        XCTAssertEqual(failure(Record.self, #"{"id": 3, "name": "a", "ratio": 1, "tags": [], "inner": {"k": {"n": true}}}"#)?.description,
                       "'inner.k.n': expected an integer, found a boolean")
        XCTAssertEqual(failure(Record.self, #"{"id": 3, "name": null, "ratio": 1, "tags": [], "inner": {}}"#)?.description,
                       "'name': expected a string, found null")
        XCTAssertEqual(failure(Record.self, #"{"id": 3, "ratio": 1, "tags": [], "inner": {}}"#)?.description, "missing field 'name'")
        XCTAssertEqual(failure(Record.self, "[]")?.description, "expected an object, found an array")
    }

    func testIntegersAreExact() throws {
        let base = #""name": "a", "ratio": 1, "tags": [], "inner": {}"#
        XCTAssertEqual(try decode(Record.self, #"{"id": 9007199254740993, "seed": 18446744073709551615, "# + base + "}").id,
                       9_007_199_254_740_993)
        XCTAssertEqual(try decode(Record.self, #"{"id": 1, "seed": 18446744073709551615, "# + base + "}").seed, UInt64.max)
        XCTAssertEqual(try decode(Record.self, #"{"id": 5.0, "# + base + "}").id, 5)
        XCTAssertEqual(try decode(Record.self, #"{"id": 1e3, "# + base + "}").id, 1000)
        XCTAssertEqual(failure(Record.self, #"{"id": 1.5, "# + base + "}")?.description, "'id': 1.5 is not an integer of type Int64")
        XCTAssertEqual(failure(Record.self, #"{"id": 9223372036854775808, "# + base + "}")?.description,
                       "'id': 9223372036854775808 is not an integer of type Int64")
        // Beyond 2^53 only an integer literal is exact: 1e16 could be the Double of several integers.
        XCTAssertNotNil(failure(Record.self, #"{"id": 1e16, "# + base + "}"))
        XCTAssertNotNil(failure(Record.self, #"{"id": 1, "seed": -1, "# + base + "}"))
    }

    func testNumbersMatchFoundationsReading() throws {
        let base = #""id": 1, "name": "a", "tags": [], "inner": {}"#
        for literal in ["0.1", "0.8700000047683716", "1e-7", "3.4028235e38", "-2.5E+3", "0.30000000000000004"] {
            let record = try decode(Record.self, #"{"ratio": \#(literal), "weight": \#(literal), "# + base + "}")
            XCTAssertEqual(record.ratio, Double(literal), literal)
            XCTAssertEqual(record.weight, Float(literal), literal)
        }
        XCTAssertEqual(failure(Record.self, #"{"ratio": 1, "weight": 1e39, "# + base + "}")?.description, "'weight': 1e39 is beyond Float's range")
    }

    func testIntegerLiteralsCompareExactly() throws {
        XCTAssertNotEqual(try JSONParser.parse(Array("9007199254740993".utf8)), try JSONParser.parse(Array("9007199254740992".utf8)))
        XCTAssertEqual(try JSONParser.parse(Array("-1.5e2".utf8)), .number(-150))
        XCTAssertEqual(try JSONParser.parse(Array("-0".utf8)), .number(0))
    }
}
