import Foundation
import XCTest

/// `kwsuggest store import` obeys the API's rules: a line that breaks one exits 1 naming the line, and nothing
/// at all is written; a keyword outside the list is still a valid correction.
final class CLIStoreImportRulesTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-store-import-rules" }

    private let good = #"{"type":"feedback","id":3,"received_at":"2026-01-02T03:04:05.000Z","name":"新物 にんじん","keyword":"にんじん","action":"accept","shown":["にんじん"],"annotator":"aiko"}"#

    private func feedback(id: String = "4", receivedAt: String = "2026-01-02T03:04:06.000Z", name: String = "豚バラ",
                          keyword: String = "豚肉", shown: String = #"["牛肉"]"#, extra: String = "") -> String {
        #"{"type":"feedback","id":\#(id),"received_at":"\#(receivedAt)","name":"\#(name)","keyword":"\#(keyword)","action":"correct","shown":\#(shown)\#(extra)}"#
    }

    func testBadArchivesAreRefusedWholeNamingTheLine() throws {
        let store = "file:" + scratch + "/keywords.overlay.json"
        let fiveThousand = String(repeating: "a", count: 5000)
        let manyShown = "[" + (1...500).map { #""k\#($0)""# }.joined(separator: ",") + "]"
        let cases: [(String, String)] = [
            (#"{"type":"keywords","added":["a\u0001b",""],"removed":[]}"#, "'added[0]' contains a control character"),
            (#"{"type":"keywords","added":["ごぼう"],"removed":[""]}"#, "'removed[0]' is empty"),
            (#"{"type":"keywords","added":["ごぼう"],"removed":["ごぼう"]}"#, "is also in 'added'"),
            (feedback(receivedAt: "not a time"), "'received_at' is not a UTC time"),
            (feedback(receivedAt: "2026-02-30T03:04:06.000Z"), "'received_at' is not a UTC time"),
            (feedback(extra: #","annotator":"a\u0007b""#), "'annotator' contains a control character"),
            (feedback(extra: #","annotator":"\#(fiveThousand)""#), "'annotator' must be 1 to 200 characters"),
            (feedback(name: fiveThousand), "'name' is longer than 1100 characters"),
            (feedback(name: "   "), "'name' is empty"),
            (feedback(keyword: "a\\u0000"), "'keyword' contains a control character"),
            (feedback(shown: manyShown), "'shown' holds at most 50 keywords"),
            (feedback(id: "9223372036854775807"), "is not a record id an import may give (an integer from 1 to 4503599627370496"),
            (feedback(id: "9007199254740991"), "is not a record id an import may give (an integer from 1 to 4503599627370496"),
            (feedback(id: "4503599627370497"), "is not a record id an import may give"),
            (feedback(id: "-5"), "is not a record id"),
            (feedback(id: "0"), "is not a record id"),
            (feedback(id: "2"), "record id 2 does not follow 3"),
            (feedback(id: "3"), "record id 3 does not follow 3"),
        ]
        for (line, message) in cases {
            let archive = #"{"type":"keywords","added":["ごぼう"],"removed":[]}"# + "\n" + good + "\n" + line + "\n"
            let headed = line.contains(#""type":"keywords""#) ? good + "\n" + line + "\n" : archive
            let outcome = try CLITests.run(["store", "import", "--store", store], stdin: headed)
            XCTAssertEqual(outcome.status, 1, "\(line.prefix(120)): \(outcome.stderr)")
            let number = line.contains(#""type":"keywords""#) ? 2 : 3
            XCTAssertTrue(outcome.stderr.contains("<stdin>:\(number): "), outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(message), "\(message) not in \(outcome.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/keywords.overlay.json"), "nothing is written")
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/keywords.overlay.feedback.jsonl"), "nothing is written")
        }
    }

    /// The refusals above are about validity; a correction naming a keyword the model lacks imports, and so do the
    /// largest id an import may give and names padded as the API accepts them (stored trimmed, as the API stores them).
    func testValidArchiveImportsWithKeywordsOutsideTheList() throws {
        let store = "file:" + scratch + "/keywords.overlay.json"
        let archive = good + "\n" + feedback(id: "4503599627370496", name: "  豚バラ  ", keyword: "存在しない食材") + "\n"
        let outcome = try CLITests.run(["store", "import", "--store", store], stdin: archive)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let exported = try CLITests.run(["store", "export", "--store", store])
        XCTAssertTrue(exported.stdout.contains(#""id":4503599627370496,"keyword":"存在しない食材","name":"豚バラ""#), exported.stdout)
    }
}
