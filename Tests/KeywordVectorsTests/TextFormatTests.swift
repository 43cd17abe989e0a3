import XCTest
@testable import KeywordVectors

final class TextFormatTests: VectorTestCase {
    func testWordsMayContainNonASCIISpacesAndLinesMayEndInSpaceOrCRLF() throws {
        let text = "3 2\r\n人参\u{3000}ジュース 1 2 \r\nfoo\u{00A0}bar -0.5 1e-3\n</s> 0.125 -7\n"
        let vectors = try WordVectors.load(path: try temporaryFile(text, extension: "vec"))
        XCTAssertEqual(vectors.rowCount, 3)
        XCTAssertEqual(vectors.vector(for: "人参\u{3000}ジュース"), [1, 2])
        XCTAssertEqual(vectors.vector(for: "foo\u{00A0}bar"), [-0.5, 1e-3])
        XCTAssertEqual(vectors.vector(for: "</s>"), [0.125, -7])
        XCTAssertNil(vectors.vector(for: "人参"))
    }

    func testNumbersParseLikeStrtof() {
        let samples = ["0.1", "-0.0012345", "12345.678", "1e-05", "-2.5E+3", "0.33333334", ".5", "7.", "16777217", "3.4028235e38", "1.17549435e-38"]
        for sample in samples {
            let ours = FastTextTextFormat.Parser.number(ArraySlice(sample.utf8))
            XCTAssertEqual(ours, Float(sample) ?? Float(Double(sample)!), sample)
        }
        for bad in ["", "-", "abc", "1.2.3", "nan", "inf", "0x1p3", "1e", "--1"] {
            XCTAssertNil(FastTextTextFormat.Parser.number(ArraySlice(bad.utf8)), bad)
        }
    }

    func testLinesWithExtraNumericFieldsAreADimensionMismatch() throws {
        let path = try temporaryFile("1 2\nword 1 2 3\n", extension: "vec")
        assertVectorError(.dimensionMismatch, .line(2), path: path) { _ = try WordVectors.load(path: path) }
    }
}
