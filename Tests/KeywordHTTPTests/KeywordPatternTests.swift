import Foundation
@testable import KeywordHTTP
import MutationTesting
import StoreInterface
import XCTest

/// The Keyword schema of /openapi.json states the server's keyword rule exactly: each code point's role
/// (`KeywordRules.role(of:)`) agrees with the rule, and the served pattern accepts exactly the keywords the rule
/// accepts, so a schema-driven client (schemathesis) never sends a valid keyword the server refuses, or the reverse.
/// The one known exception is stated in the schema: a few compatibility characters fold to several (㍿ to 株式会社),
/// and a keyword of many of them is longer than the limit once folded.
final class KeywordPatternTests: XCTestCase {
    /// Whether the server accepts `raw` as a keyword sent to it: the one rule every surface applies.
    private func accepted(_ raw: String) -> Bool {
        (try? KeywordRules.cleaned(raw, field: "keyword")) != nil
    }

    /// Every assigned code point: a refused one refuses a keyword it sits inside; a visible one makes a keyword
    /// alone; an invisible one neither refuses nor makes one. (Unassigned, private-use and surrogate code points,
    /// most of the code space, are checked to be refused without folding each.)
    func testEveryCodePointsRoleIsTheRules() {
        var checked = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let role = KeywordRules.role(of: scalar)
            switch scalar.properties.generalCategory {
            case .unassigned, .privateUse:
                XCTAssertEqual(role, .refused, String(format: "U+%04X", value))
                continue
            default:
                break
            }
            let inside = accepted("a\(Character(scalar))a")
            let alone = accepted(String(Character(scalar)))
            let code = String(format: "U+%04X", value)
            switch role {
            case .refused: XCTAssertFalse(inside, "\(code) is refused but allowed inside a keyword")
            case .invisible: XCTAssertTrue(inside && !alone, "\(code) is invisible: inside \(inside), alone \(alone)")
            case .visible: XCTAssertTrue(inside && alone, "\(code) is visible: inside \(inside), alone \(alone)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100_000)
        XCTAssertEqual(KeywordRules.role(of: "\u{00AF}"), .invisible, "¯ folds to a space and a combining macron")
        XCTAssertEqual(KeywordRules.role(of: "\u{309B}"), .invisible, "゛ folds to a space and a combining mark")
        XCTAssertEqual(KeywordRules.role(of: "\u{3164}"), .refused, "ㅤ folds to an invisible Hangul filler")
        XCTAssertEqual(KeywordRules.role(of: "ｷ"), .visible)
    }

    /// The served pattern, compiled by ICU (ECMA-like syntax), against the rule: hand-picked edge cases, then
    /// seeded random keywords drawn from code points of every role and from white space.
    func testServedPatternAcceptsExactlyWhatTheServerAccepts() throws {
        let object = jsonObject(makeAPI().respond(to: makeRequest(.get, "/openapi.json")))
        let schemas = try XCTUnwrap((object["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let pattern = try XCTUnwrap(schemas["Keyword"]?["pattern"] as? String)
        let maxLength = try XCTUnwrap(schemas["Keyword"]?["maxLength"] as? Int)
        let regex = try NSRegularExpression(pattern: pattern)
        func schemaValid(_ text: String) -> Bool {
            text.unicodeScalars.count <= maxLength
                && regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        let edges = ["a", "にんじん", " ¯ ", "゛", "か゛", "\u{0301}", "\u{0301}a", "\t a \t", "a\tb", "\u{00A0}", "\u{3000}人参\u{3000}",
                     "\u{200B}", "a\u{200B}", "\u{2028}a", "a\u{2028}b", "\u{0085}a\u{0085}", "a\u{0085}b", "ｷﾞｮｳｻﾞ皮", "¨¨",
                     String(repeating: "x", count: 100), String(repeating: "x", count: 101), "🥕", "\u{E000}", "\u{FFFF}", "",
                     // Folding that shortens a keyword: 120 code points as sent, 60 once composed; 100 as sent, 50.
                     String(repeating: "e\u{301}", count: 60), String(repeating: "\u{1100}\u{1161}", count: 60),
                     String(repeating: "e\u{301}", count: 50), " " + String(repeating: "x", count: 100) + " "]
        for text in edges {
            XCTAssertEqual(schemaValid(text), accepted(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        var pools: [KeywordRules.CodePointRole: [Unicode.Scalar]] = [:]
        for value in stride(from: UInt32(0x20), through: 0x3FFFF, by: 7) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            pools[KeywordRules.role(of: scalar), default: []].append(scalar)
        }
        let spaces: [Unicode.Scalar] = ["\t", "\n", " ", "\u{00A0}", "\u{3000}", "\u{2028}", "\u{0085}"]
        var generator = SplitMix(seed: fuzzSeed(default: 21))
        var disagreements: [String] = []
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int(generator.next() % 6) {
                let pool: [Unicode.Scalar]
                switch generator.next() % 8 {
                case 0: pool = pools[.refused] ?? []
                case 1, 2: pool = pools[.invisible] ?? []
                case 3: pool = spaces
                default: pool = pools[.visible] ?? []
                }
                guard !pool.isEmpty else { continue }
                text.unicodeScalars.append(pool[Int(generator.next() % UInt64(pool.count))])
            }
            if schemaValid(text) != accepted(text) {
                disagreements.append(text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
            }
        }
        XCTAssertEqual(disagreements, [])
    }
}
