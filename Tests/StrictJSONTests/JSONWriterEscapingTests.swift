import StrictJSON
import XCTest

/// The one JSON string escaping: quotes, backslashes and every control character (C0, DEL, C1) escaped, the rest
/// written as it is, and the reader gives back the same text.
final class JSONWriterEscapingTests: XCTestCase {
    func testControlCharactersAreEscapedAndTheRestKept() {
        XCTAssertEqual(JSONWriter.quoted("a\"b\\c\nd\re\tf"), #""a\"b\\c\nd\re\tf""#)
        XCTAssertEqual(JSONWriter.quoted("\u{0}\u{1F}\u{7F}"), #""\u0000\u001f\u007f""#)
        XCTAssertEqual(JSONWriter.quoted("\u{80}x\u{85}\u{9F}"), #""\u0080x\u0085\u009f""#)
        XCTAssertEqual(JSONWriter.quoted("\u{A0}é¿にんじん🥕"), "\"\u{A0}é¿にんじん🥕\"")
    }

    func testEveryCodePointBelowU0100RoundTrips() throws {
        var text = ""
        for value in 0..<0x100 { text.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        text += "にんじん"
        let parsed = try JSONParser.parse(Array(JSONWriter.quoted(text).utf8))
        XCTAssertEqual(parsed, .string(text))
    }
}
